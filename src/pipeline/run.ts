// One `crossmap map` run: inputs -> batches -> mapping (here or in workers) -> ordered, backpressured
// writes. At most `capacity` batches are in flight, so memory stays flat however large the input is.

import type { WriteStream } from "node:fs";
import type { Readable, Writable } from "node:stream";
import { debugPipeline, formatStats, otherThreadsCpuMs, threadStats } from "./debug.js";
import { Gatherer, type GatherMode } from "./gatherer.js";
import type { Hl7v2StageOptions } from "./hl7v2/stage.js";
import { type AnyInputPlan, readAnyInput } from "./inputs.js";
import { type Interrupt, interruptible, STOPPED } from "./interrupt.js";
import { IssueReport } from "./issues.js";
import { DEFAULT_MAX_RECORD_BYTES, workerHeapMb } from "./limits.js";
import type { PlanSpec } from "./load-plan.js";
import type { MappingPlan } from "./plan.js";
import { type BatchProcessor, inProcess, startMixed } from "./pool.js";
import { createProgress } from "./progress.js";
import { type BatchMapper, createStage, type StageOptions } from "./stage.js";
import { type RunSummary, SummaryCounter } from "./summary.js";
import type { BatchResult, OnError, RunIssue } from "./types.js";
import { keepFirstUnread } from "./unread.js";
import { dirSink, fileSink, type OutputSink, openForWriting, streamSink } from "./writers.js";

/**
 * About 130 person rows. Measured on 2 cores: 256 KB batches cost ~30 MB more peak RSS (worker heaps hold
 * a batch's parsed records and the garbage they leave) for no throughput gain; 32 KB spent more CPU on
 * messages than it saved. Measured again with bytes moved to workers (1M person rows, process CPU):
 * 32 KB 3.15 s, 64 KB 3.15 s, 128 KB 3.43 s, 256 KB 3.39 s.
 */
export const DEFAULT_BATCH_BYTES = 64 * 1024;
/** CSV rows and Bundle entries per batch. */
export const DEFAULT_BATCH_RECORDS = 2000;
/** HL7 v2: about 13 messages of the samples (~5 KB each) per batch; cut at the first message start after it. */
export const HL7V2_BATCH_BYTES = 64 * 1024;

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
  inputs: AnyInputPlan[];
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
  /** --quiet: without an --errors file, only errors reach stderr (warnings are counted, not printed). */
  quietIssues?: boolean;
  batchBytes?: number;
  batchRecords?: number;
  /** A record longer than this is an issue, not a record (default limits.ts). */
  maxRecordBytes?: number;
  /** CSV cells holding exactly one of these texts are absent, as empty ones are (--null). */
  csvNulls?: readonly string[];
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
  /** HL7 v2 runs: how messages become Bundles (the inputs are ER7). */
  hl7v2?: Hl7v2StageOptions;
}

export interface MapRunOutcome {
  summary: RunSummary;
  /** With --on-error fail, the error that stopped the run. */
  fatal?: RunIssue;
}

export async function runMap(options: MapRunOptions): Promise<MapRunOutcome> {
  const stage: StageOptions = {
    onError: options.onError,
    perEntity: splitsByEntity(options.output),
    ...(options.hl7v2 ? { hl7v2: options.hl7v2 } : {}),
  };
  // A sink's own issues (a value its destination cannot hold) are reported and counted as mapping issues are.
  const fromSink: { report?: (issue: RunIssue) => Promise<void> } = {};
  const { errors, sink, processor } = await openRun(
    options,
    stage,
    (issue) => fromSink.report?.(issue) ?? Promise.resolve(),
  );
  const counter = new SummaryCounter({ messages: options.hl7v2 !== undefined });
  const issues = new IssueReport(options, errors);
  fromSink.report = async (issue) => {
    // An error there is a row the destination refused: not out after all, counted apart (exit code 1); it
    // cannot be told which input record it came from, so it is not a record "with errors" (which would
    // count one record twice, or more records with errors than were read).
    if (issue.severity === "error") counter.refused(issue);
    else counter.addGathered(0, 0, [issue]);
    await issues.report(issue);
  };
  for (const issue of options.inputIssues ?? []) await issues.report(issue);
  counter.addIssues(options.inputIssues ?? []);
  const gathering = startGatherer(options, stage, sink, issues);
  const progress = startProgress(options);
  const firstUnread = keepFirstUnread();
  let fatal: RunIssue | undefined;
  let completed = false;
  try {
    completed = await pump(options, processor, progress, async (result) => {
      fatal = result.fatal;
      result.issues = firstUnread(result.issues);
      await writeResult(result, sink, issues, gathering);
      counter.add(result);
      progress.records(result.recordsIn);
      return fatal === undefined;
    });
    if (completed) await finishGathering(gathering, counter);
  } catch (err) {
    await gathering?.gatherer.abort().catch(() => {});
    await sink.abort().catch(() => {});
    throw err;
  } finally {
    await processor.close();
    progress.done();
    await issues.close();
  }
  await publish(completed, sink, gathering);
  const summary = counter.finish(completed);
  if (options.interrupt?.signal) summary.interrupted = options.interrupt.signal;
  if (debugPipeline) reportThreads(options.stderr, processor, summary.records_in);
  issues.noteHidden();
  return fatal ? { summary, fatal } : { summary };
}

/**
 * The errors file, the output sink and the processor, in that order: a bad path must fail before any
 * worker thread exists to keep us alive, and a processor that cannot start leaves no output behind.
 */
async function openRun(
  options: MapRunOptions,
  stage: StageOptions,
  report: (issue: RunIssue) => Promise<void>,
) {
  const errors: WriteStream | undefined = options.errorsFile
    ? (await openForWriting(options.errorsFile, "--errors")).createWriteStream()
    : undefined;
  const sink = await openSink(options, report);
  const processor = await startProcessor(options, stage).catch(async (err: unknown) => {
    await sink.abort().catch(() => {});
    errors?.destroy();
    throw err;
  });
  return { errors, sink, processor };
}

/** One batch's output to the sink, its issues to the report, its held records to gathering. */
async function writeResult(
  result: BatchResult,
  sink: OutputSink,
  issues: IssueReport,
  gathering: RunGatherer | undefined,
): Promise<void> {
  for (const [entity, text] of Object.entries(result.output)) await sink.write(entity, text);
  for (const issue of result.issues) await issues.report(issue);
  if (gathering && result.held) await gathering.gatherer.add(result.held);
}

/** A complete run's output is published (files renamed into place); a stopped one's is dropped. */
async function publish(completed: boolean, sink: OutputSink, gathering: RunGatherer | undefined) {
  if (completed) return sink.commit();
  await gathering?.gatherer.abort();
  await sink.abort();
}

/** Where batches are mapped: the caller's processor (NATS), this thread, or worker threads beside it. */
async function startProcessor(options: MapRunOptions, stage: StageOptions): Promise<BatchProcessor> {
  const mapBatch = await createStage(options.plan, stage);
  if (options.processor) return options.processor(mapBatch);
  if (options.workers === 1) return inProcess(mapBatch);
  return startMixed({
    workers: options.workers,
    mapBatch,
    init: { plan: options.planSpec, stage },
    workerUrl: options.workerUrl,
    heapMb: workerHeapMb(options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES),
  });
}

/** Gathering across the run, and the issues it reported (counted when it finishes). */
interface RunGatherer {
  gatherer: Gatherer;
  issues: { code: string; severity: string }[];
}

/** Gathering across the run (children into parents from other batches); HL7 v2 gathers within messages. */
function startGatherer(
  options: MapRunOptions,
  stage: StageOptions,
  sink: OutputSink,
  issues: IssueReport,
): RunGatherer | undefined {
  if (options.plan.gather.rules.size === 0 || stage.hl7v2 !== undefined) return undefined;
  const seen: RunGatherer["issues"] = [];
  const gatherer = new Gatherer({
    plan: options.plan.gather,
    mode: options.gather ?? "run",
    memoryBytes: options.gatherMemory ?? 256 * 1024 * 1024,
    perEntity: stage.perEntity,
    write: (entity, text) => sink.write(entity, text),
    issue: async (issue) => {
      seen.push({ code: issue.code, severity: issue.severity });
      await issues.report(issue);
    },
  });
  return { gatherer, issues: seen };
}

/** Writes what gathering still holds at the end of the run, and counts it. */
async function finishGathering(run: RunGatherer | undefined, counter: SummaryCounter): Promise<void> {
  if (!run) return;
  const counts = await run.gatherer.finish();
  counter.addGathered(counts.written, counts.orphans, run.issues);
}

function startProgress(options: MapRunOptions) {
  const totalBytes = options.inputs.every((i) => i.size !== undefined)
    ? options.inputs.reduce((n, i) => n + (i.size ?? 0), 0)
    : undefined;
  return createProgress({
    enabled: options.progress,
    totalBytes,
    stream: options.stderr,
    ...(options.progressNote ? { note: options.progressNote } : {}),
  });
}

/**
 * Reads every input into batches, hands them to the processor and their results, in input order, to
 * `handle`, with at most `capacity` batches in flight. False when `handle` or the interrupt stopped it.
 */
async function pump(
  options: MapRunOptions,
  processor: BatchProcessor,
  progress: ReturnType<typeof createProgress>,
  handle: (result: BatchResult) => Promise<boolean>,
): Promise<boolean> {
  const inflight: Promise<BatchResult>[] = [];
  const race = interruptible(options.interrupt);
  const next = async (): Promise<boolean> => {
    const result = await race(inflight.shift()!);
    return result !== STOPPED && (await handle(result));
  };
  for (const input of options.inputs) {
    const batches = readAnyInput(input, {
      stdin: options.stdin,
      batchBytes: options.batchBytes ?? (input.format === "hl7v2" ? HL7V2_BATCH_BYTES : DEFAULT_BATCH_BYTES),
      batchRecords: options.batchRecords ?? DEFAULT_BATCH_RECORDS,
      maxRecordBytes: options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES,
      onBytes: (n) => progress.bytes(n),
      readFields: (entity) => options.plan.readFields(entity),
      ...(options.csvNulls ? { csvNulls: options.csvNulls } : {}),
    })[Symbol.asyncIterator]();
    for (;;) {
      const read = options.interrupt?.signal ? STOPPED : await race(batches.next());
      if (read === STOPPED) {
        // Not awaited: a read that never ends (stdin) must not hold the run.
        batches.return?.(undefined).catch(() => {});
        return false;
      }
      if (read.done) break;
      const pending = processor.submit(read.value);
      // Handled later, in order; this only stops a failure from being reported as unhandled meanwhile.
      pending.catch(() => {});
      inflight.push(pending);
      if (inflight.length >= processor.capacity && !(await next())) return false;
    }
  }
  while (inflight.length > 0) if (!(await next())) return false;
  return true;
}

async function openSink(
  options: MapRunOptions,
  report: (issue: RunIssue) => Promise<void>,
): Promise<OutputSink> {
  const { output } = options;
  if (output.kind === "sink") return output.open(report);
  if (output.kind === "file") return fileSink(output.path);
  if (output.kind === "dir") return dirSink(output.path, tablesRead(options));
  return streamSink(options.stdout);
}

/**
 * The one target entity of each input whose source entity is known (a table), when the plan gathers
 * nothing: its file is this run's even when no record of it was written (an empty table). Not where a
 * record may become records of other entities (routing, fan-out), nor where records are gathered.
 */
function tablesRead(options: MapRunOptions): string[] {
  const { plan } = options;
  if (plan.gather.rules.size > 0 || plan.stages !== undefined) return [];
  const entities = new Set<string>();
  for (const input of options.inputs) {
    if (input.entity === undefined || input.unreadable !== undefined) continue;
    const mapper = plan.mapperFor(input.entity);
    if (mapper !== undefined && mapper.multi !== true) entities.add(mapper.targetEntity);
  }
  return [...entities];
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
    `process: cpu ${(totalMs / 1000).toFixed(2)} s, of which other threads (V8 compiler and GC, I/O) ${((totalMs - threads) / 1000).toFixed(2)} s`,
  );
  for (const l of lines) stderr.write(`crossmap debug: ${l}\n`);
}
