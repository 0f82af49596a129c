// One `crossmap map` run: inputs -> batches -> mapping (here or in workers) -> ordered, backpressured
// writes. At most `capacity` batches are in flight, so memory stays flat however large the input is.

import { once } from "node:events";
import type { WriteStream } from "node:fs";
import type { Readable, Writable } from "node:stream";
import { debugPipeline, formatStats, otherThreadsCpuMs, threadStats } from "./debug.js";
import { Gatherer, type GatherMode } from "./gatherer.js";
import { type InputPlan, readInput } from "./inputs.js";
import type { Interrupt } from "./interrupt.js";
import { formatIssueLine, issueJsonLine } from "./issues.js";
import { DEFAULT_MAX_RECORD_BYTES, workerHeapMb } from "./limits.js";
import type { PlanSpec } from "./load-plan.js";
import type { MappingPlan } from "./plan.js";
import { type BatchProcessor, inProcess, startMixed } from "./pool.js";
import { createProgress } from "./progress.js";
import { type BatchMapper, createBatchMapper } from "./stage.js";
import { type RunSummary, SummaryCounter } from "./summary.js";
import type { BatchResult, OnError, RunIssue } from "./types.js";
import { keepFirstUnread } from "./unread.js";
import { dirSink, fileSink, type OutputSink, openForWriting, streamSink, writeText } from "./writers.js";

/**
 * About 130 person rows. Measured on 2 cores: 256 KB batches cost ~30 MB more peak RSS (worker heaps hold
 * a batch's parsed records and the garbage they leave) for no throughput gain; 32 KB spent more CPU on
 * messages than it saved. Measured again with bytes moved to workers (1M person rows, process CPU):
 * 32 KB 3.15 s, 64 KB 3.15 s, 128 KB 3.43 s, 256 KB 3.39 s.
 */
export const DEFAULT_BATCH_BYTES = 64 * 1024;
/** CSV rows and Bundle entries per batch. */
export const DEFAULT_BATCH_RECORDS = 2000;

const STOPPED: unique symbol = Symbol("stopped");

export type OutputTarget =
  | { kind: "stdout" }
  | { kind: "file"; path: string }
  | { kind: "dir"; path: string }
  /**
   * A sink made elsewhere (a CDM database or CSV tables, the FHIR server writer: src/sinks), its issues
   * joining the run's; `byEntity` when it takes each target entity's records apart (as a folder does).
   */
  | {
      kind: "sink";
      open: (report: (issue: RunIssue) => Promise<void>) => Promise<OutputSink>;
      byEntity: boolean;
    };

/** Whether a target gets its records split by target entity. */
export const splitsByEntity = (output: OutputTarget): boolean =>
  output.kind === "dir" || (output.kind === "sink" && output.byEntity);

export interface MapRunOptions {
  plan: MappingPlan;
  /** The same plan as files, for workers to compile on their own. */
  planSpec: PlanSpec;
  inputs: InputPlan[];
  workers: number;
  onError: OnError;
  output: OutputTarget;
  errorsFile?: string;
  stdin: Readable;
  stdout: Writable;
  stderr: NodeJS.WriteStream;
  progress: boolean;
  /** Issues printed to stderr when there is no --errors file. */
  maxIssueLines?: number;
  batchBytes?: number;
  batchRecords?: number;
  /** A record longer than this is an issue, not a record (default limits.ts). */
  maxRecordBytes?: number;
  /** When it fires, the run stops and reports what it did (see interrupt.ts). */
  interrupt?: Interrupt;
  workerUrl?: URL;
  /** How gathering groups are complete: at the end of the run (default) or when the key changes. */
  gather?: GatherMode;
  /** Bytes of held records kept in memory before spilling to temporary files (default 256 MB). */
  gatherMemory?: number;
  /**
   * Where batches are mapped instead of this process's threads (the NATS coordinator), given the stage's
   * own mapper for any batch it keeps.
   */
  processor?: (mapBatch: BatchMapper) => BatchProcessor;
  /** More to show on the progress line (e.g. batches done and workers seen). */
  progressNote?: () => string;
  /** Issues found while resolving the inputs (skipped folder members), reported and counted first. */
  inputIssues?: readonly RunIssue[];
}

export interface MapRunOutcome {
  summary: RunSummary;
  /** With --on-error fail, the error that stopped the run. */
  fatal?: RunIssue;
}

export async function runMap(options: MapRunOptions): Promise<MapRunOutcome> {
  const perEntity = splitsByEntity(options.output);
  const maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  const stage = { onError: options.onError, perEntity };
  // Side files and the sink first: a bad path must fail before any worker thread exists to keep us alive.
  const errors: WriteStream | undefined = options.errorsFile
    ? (await openForWriting(options.errorsFile, "--errors")).createWriteStream()
    : undefined;
  // A sink's own issues (a value its destination cannot hold) are reported and counted as mapping issues are.
  const fromSink: { report?: (issue: RunIssue) => Promise<void> } = {};
  const sink = await openSink(
    options.output,
    options.stdout,
    (issue) => fromSink.report?.(issue) ?? Promise.resolve(),
  );
  let processor: BatchProcessor;
  try {
    const mapBatch = createBatchMapper(options.plan, stage);
    const init = { plan: options.planSpec, stage };
    processor = options.processor
      ? options.processor(mapBatch)
      : options.workers === 1
        ? inProcess(mapBatch)
        : startMixed({
            workers: options.workers,
            mapBatch,
            init,
            workerUrl: options.workerUrl,
            heapMb: workerHeapMb(maxRecordBytes),
          });
  } catch (err) {
    await sink.abort().catch(() => {});
    errors?.destroy();
    throw err;
  }
  const counter = new SummaryCounter();
  const totalBytes = options.inputs.every((i) => i.size !== undefined)
    ? options.inputs.reduce((n, i) => n + (i.size ?? 0), 0)
    : undefined;
  const progress = createProgress({
    enabled: options.progress,
    totalBytes,
    stream: options.stderr,
    ...(options.progressNote ? { note: options.progressNote } : {}),
  });
  const maxIssueLines = options.maxIssueLines ?? 20;
  let issueLines = 0;
  let fatal: RunIssue | undefined;

  const reportIssue = async (issue: RunIssue): Promise<void> => {
    if (errors) await writeText(errors, issueJsonLine(issue));
    else if (issueLines++ < maxIssueLines) options.stderr.write(`${formatIssueLine(issue)}\n`);
  };
  fromSink.report = async (issue) => {
    // An error there is a row the destination refused: counted as a record with errors (exit code 1).
    counter.addGathered(0, issue.severity === "error" ? 1 : 0, [issue]);
    await reportIssue(issue);
  };
  for (const issue of options.inputIssues ?? []) await reportIssue(issue);
  counter.addIssues(options.inputIssues ?? []);
  const gatherIssues: RunIssue[] = [];
  const gatherer =
    options.plan.gather.rules.size > 0
      ? new Gatherer({
          plan: options.plan.gather,
          mode: options.gather ?? "run",
          memoryBytes: options.gatherMemory ?? 256 * 1024 * 1024,
          perEntity,
          write: (entity, text) => sink.write(entity, text),
          issue: async (issue) => {
            gatherIssues.push({ code: issue.code, severity: issue.severity } as RunIssue);
            await reportIssue(issue);
          },
        })
      : undefined;

  const firstUnread = keepFirstUnread();
  const handle = async (result: BatchResult): Promise<boolean> => {
    result.issues = firstUnread(result.issues);
    for (const [entity, text] of Object.entries(result.output)) await sink.write(entity, text);
    for (const issue of result.issues) await reportIssue(issue);
    if (gatherer && result.held) await gatherer.add(result.held);
    counter.add(result);
    progress.records(result.recordsIn);
    fatal = result.fatal;
    return fatal === undefined;
  };

  const inflight: Promise<BatchResult>[] = [];
  const stop = options.interrupt;
  // Not Promise.race against the interrupt's promise: every race would leave a reaction on that
  // never-settling promise, holding its batch result for the rest of the run (measured: RSS grew with
  // the input). One listener wakes whichever wait is current.
  let wake: (() => void) | undefined;
  stop?.wait.then(() => wake?.());
  /** Waits for `p`, or for the interrupt, whichever comes first. */
  const race = <T>(p: Promise<T>): Promise<T | typeof STOPPED> => {
    if (stop === undefined) return p;
    return new Promise<T | typeof STOPPED>((resolve, reject) => {
      if (stop.signal !== undefined) return resolve(STOPPED);
      wake = () => resolve(STOPPED);
      p.then(
        (value) => {
          wake = undefined;
          resolve(value);
        },
        (err: unknown) => {
          wake = undefined;
          reject(err);
        },
      );
    });
  };
  let completed = false;
  try {
    completed = await (async () => {
      for (const input of options.inputs) {
        const batches = readInput(input, {
          stdin: options.stdin,
          batchBytes: options.batchBytes ?? DEFAULT_BATCH_BYTES,
          batchRecords: options.batchRecords ?? DEFAULT_BATCH_RECORDS,
          maxRecordBytes,
          onBytes: (n) => progress.bytes(n),
        })[Symbol.asyncIterator]();
        for (;;) {
          const next = stop?.signal ? STOPPED : await race(batches.next());
          if (next === STOPPED) {
            // Not awaited: a read that never ends (stdin) must not hold the run.
            batches.return?.(undefined).catch(() => {});
            return false;
          }
          if (next.done) break;
          const pending = processor.submit(next.value);
          // Handled later, in order; this only stops a failure from being reported as unhandled meanwhile.
          pending.catch(() => {});
          inflight.push(pending);
          if (inflight.length >= processor.capacity) {
            const result = await race(inflight.shift()!);
            if (result === STOPPED || !(await handle(result))) return false;
          }
        }
      }
      while (inflight.length > 0) {
        const result = await race(inflight.shift()!);
        if (result === STOPPED || !(await handle(result))) return false;
      }
      if (gatherer) {
        const counts = await gatherer.finish();
        counter.addGathered(counts.written, counts.orphans, gatherIssues);
      }
      return true;
    })();
  } catch (err) {
    await gatherer?.abort().catch(() => {});
    await sink.abort().catch(() => {});
    throw err;
  } finally {
    await processor.close();
    progress.done();
    if (errors) {
      errors.end();
      await once(errors, "close");
    }
  }
  if (completed) await sink.commit();
  else {
    await gatherer?.abort();
    await sink.abort();
  }
  const summary = counter.finish(completed);
  if (stop?.signal) summary.interrupted = stop.signal;
  if (debugPipeline) reportThreads(options.stderr, processor, summary.records_in);
  if (!errors && issueLines > maxIssueLines) {
    options.stderr.write(
      `crossmap map: ${issueLines - maxIssueLines} more issue(s) not shown; use --errors FILE\n`,
    );
  }
  return fatal ? { summary, fatal } : { summary };
}

async function openSink(
  output: OutputTarget,
  stdout: Writable,
  report: (issue: RunIssue) => Promise<void>,
): Promise<OutputSink> {
  if (output.kind === "sink") return output.open(report);
  if (output.kind === "file") return fileSink(output.path);
  if (output.kind === "dir") return dirSink(output.path);
  return streamSink(stdout);
}

/** CROSSMAP_DEBUG=pipeline: where the CPU went, per thread (the busiest bounds the speed-up). */
function reportThreads(stderr: NodeJS.WriteStream, processor: BatchProcessor, records: number): void {
  const main = threadStats(processor.mainBatches ?? 0);
  const lines = [formatStats("main thread", main, records)];
  let threads = main.cpuMs;
  processor.workerStats?.forEach((s, i) => {
    lines.push(formatStats(`worker ${i + 1}`, s, records));
    threads += s.cpuMs;
  });
  const others = otherThreadsCpuMs([main.tid, ...(processor.workerStats ?? []).map((s) => s.tid)]);
  lines.push(`other threads, ms each: ${others.join(" ")}`);
  const usage = process.cpuUsage();
  const totalMs = (usage.user + usage.system) / 1000;
  lines.push(
    `process: cpu ${(totalMs / 1000).toFixed(2)} s, of which other threads (GC, I/O) ${((totalMs - threads) / 1000).toFixed(2)} s`,
  );
  for (const l of lines) stderr.write(`crossmap debug: ${l}\n`);
}
