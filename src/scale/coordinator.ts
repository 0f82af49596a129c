// `crossmap map --nats URL`: the local pipeline's run with batches mapped by `crossmap worker`s. Stores the
// run (so workers can compile its crossmaps and a stopped run can resume), follows it to the end, then
// clears its work and results from the streams.

import { hostname } from "node:os";
import { AppError } from "../errors.js";
import type { InputPlan } from "../pipeline/inputs.js";
import { DEFAULT_BATCH_RECORDS, type MapRunOptions, type MapRunOutcome, runMap } from "../pipeline/run.js";
import type { BatchMapper } from "../pipeline/stage.js";
import type { RunSummary } from "../pipeline/summary.js";
import { BULK_STREAMS, closeNats, connectNats, ensureStreams, type Nats } from "./jetstream.js";
import { newRunId, RESULT_STREAM, RUN_ID, resultSubject, WORK_STREAM, workSubject } from "./names.js";
import { type RemoteStats, startRemote } from "./remote.js";
import { scanStoredResults } from "./results.js";
import {
  describeRun,
  publishRun,
  type RunDescriptor,
  readRun,
  readState,
  resumeMismatch,
  writeState,
} from "./run-record.js";
import { onStopSignal } from "./signals.js";

/** Batches out at once: enough to keep a few workers busy while the oldest is awaited (~16 MB of input). */
export const DEFAULT_IN_FLIGHT = 64;
/**
 * NDJSON bytes per batch. Four times the local pipeline's: every batch costs messages, acks and headers on
 * three processes (coordinator, worker, server), and its result must still fit one message in most cases
 * (FHIR output runs 2-3x the OMOP input; a larger result is sent in parts).
 */
export const NATS_BATCH_BYTES = 256 * 1024;

export interface NatsMapOptions extends MapRunOptions {
  nats: string;
  resume?: string;
  inFlight?: number;
  quiet?: boolean;
}

export interface NatsMapOutcome extends MapRunOutcome {
  summary: RunSummary & { nats: RemoteStats };
}

export async function runMapOverNats(options: NatsMapOptions): Promise<NatsMapOutcome> {
  if (options.resume !== undefined && !RUN_ID.test(options.resume)) {
    throw new AppError(400, "usage", `--resume: "${options.resume}" is not a run id`);
  }
  const nats = await connectNats(options.nats, `crossmap map ${hostname()}:${process.pid}`);
  const say = (line: string) => {
    if (!options.quiet) options.stderr.write(`crossmap map: ${line}\n`);
  };
  const stopSignals: (() => void)[] = [];
  try {
    await ensureStreams(nats, BULK_STREAMS);
    const stage = { onError: options.onError, perEntity: options.output.kind === "dir" };
    const run = options.resume ?? newRunId();
    const batchBytes = options.batchBytes ?? NATS_BATCH_BYTES;
    const descriptor = await describeRun({
      run,
      spec: options.planSpec,
      stage,
      // HL7 v2 runs never come here (map refuses --nats for them): the inputs are record files.
      inputs: options.inputs as InputPlan[],
      batch: { bytes: batchBytes, records: options.batchRecords ?? DEFAULT_BATCH_RECORDS },
    });
    const { stored, followFrom } = await prepare(nats, descriptor, options.resume !== undefined);
    await writeState(nats, run, { state: "running" });
    say(
      `NATS run ${run} on ${nats.url}` +
        (options.resume ? `, resumed: ${stored.size} batch(es) already mapped` : ""),
    );

    let local: BatchMapper | undefined;
    const remote = await startRemote({
      nats,
      run,
      mapBatch: (batch) => local!(batch),
      inFlight: options.inFlight ?? DEFAULT_IN_FLIGHT,
      stored,
      followFrom,
      warn: (line) => options.stderr.write(`crossmap map: ${line}\n`),
    });
    const hint = `run ${run} can be resumed with --resume ${run}`;
    let interrupted: string | undefined;
    const interrupt = (name: string) => {
      interrupted = name;
      remote.stop(new AppError(503, "interrupted", `interrupted by ${name}: ${hint}`));
    };
    if (options.interrupt) {
      // The CLI's own handler: runMap stops taking batches and reports what it did; the run stays resumable.
      void options.interrupt.wait.then(interrupt);
    } else {
      stopSignals.push(
        onStopSignal((name) => {
          if (interrupted) return false;
          interrupt(name);
          return true;
        }),
      );
    }

    let outcome: MapRunOutcome;
    try {
      outcome = await runMap({
        ...options,
        batchBytes,
        processor: (mapBatch) => {
          local = mapBatch;
          return remote;
        },
        progressNote: remote.note,
      });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      await writeState(nats, run, { state: "stopped", batches: remote.stats.batches, reason }).catch(
        () => {},
      );
      if (!interrupted) say(`the run stopped; ${hint}`);
      throw err;
    }
    if (outcome.summary.interrupted || interrupted) {
      // Stopped, not finished: the work and results stay in the streams for --resume.
      const reason = `interrupted by ${outcome.summary.interrupted ?? interrupted}`;
      await writeState(nats, run, { state: "stopped", batches: remote.stats.batches, reason });
      options.stderr.write(`crossmap map: ${reason}: ${hint}\n`);
      return { summary: Object.assign(outcome.summary, { nats: remote.stats }) };
    }
    const { summary, fatal } = outcome;
    // Done either way: a run stopped by --on-error fail would stop at the same record again.
    await clearRun(nats, run);
    await writeState(nats, run, {
      state: summary.completed ? "completed" : "failed",
      batches: remote.stats.batches,
      ...(fatal ? { reason: fatal.message } : {}),
    });
    say(formatNatsLine(remote.stats));
    const result: NatsMapOutcome = { summary: Object.assign(summary, { nats: remote.stats }) };
    if (fatal) result.fatal = fatal;
    return result;
  } finally {
    for (const off of stopSignals) off();
    await closeNats(nats);
  }
}

/** For a new run, stores it; for --resume, checks it is the same run and finds what is already mapped. */
async function prepare(
  nats: Nats,
  descriptor: RunDescriptor,
  resume: boolean,
): Promise<{ stored: Map<number, number[]>; followFrom: number }> {
  const run = descriptor.run;
  if (!resume) {
    await publishRun(nats, descriptor);
    const info = await nats.jsm.streams.info(RESULT_STREAM);
    return { stored: new Map(), followFrom: info.state.last_seq + 1 };
  }
  const before = await readRun(nats, run);
  if (!before) {
    throw new AppError(400, "unknown_run", `--resume ${run}: NATS at ${nats.url} has no such run`);
  }
  const state = await readState(nats, run);
  if (state?.state === "completed" || state?.state === "failed") {
    throw new AppError(
      400,
      "run_finished",
      `--resume ${run}: the run ${state.state === "completed" ? "completed" : "stopped at an error"} at ${state.updated}; start a new run`,
    );
  }
  const why = resumeMismatch(before, descriptor);
  if (why) throw new AppError(400, "resume_mismatch", `--resume ${run}: cannot resume it here: ${why}`);
  const { stored, nextSeq } = await scanStoredResults(nats, run);
  return { stored, followFrom: nextSeq };
}

async function clearRun(nats: Nats, run: string): Promise<void> {
  await nats.jsm.streams.purge(WORK_STREAM, { filter: workSubject(run) });
  await nats.jsm.streams.purge(RESULT_STREAM, { filter: resultSubject(run) });
}

/** `NATS run R: 40 batches mapped by 3 workers; 0 from an earlier attempt, 2 redelivered, 0 duplicates dropped` */
export function formatNatsLine(s: RemoteStats): string {
  const workers = Object.keys(s.workers).length;
  return (
    `NATS run ${s.run}: ${s.batches} batches, ${s.published} mapped by ${workers} worker${workers === 1 ? "" : "s"}` +
    `, ${s.from_earlier_attempt} from an earlier attempt, ${s.mapped_here} mapped here (too large to send)` +
    `, ${s.redelivered} redelivered, ${s.duplicates_dropped} duplicate results dropped`
  );
}

/** `crossmap map --nats`: the run function for these flags, in place of the local runMap. */
export function natsRunner(flags: {
  nats?: string;
  resume?: string;
  inFlight?: string;
  quiet?: boolean;
}): (options: MapRunOptions) => Promise<NatsMapOutcome> {
  const inFlight = flags.inFlight === undefined ? DEFAULT_IN_FLIGHT : Number(flags.inFlight);
  if (!Number.isInteger(inFlight) || inFlight < 1 || inFlight > 100_000) {
    throw new AppError(
      400,
      "usage",
      `--in-flight must be a whole number from 1 to 100000, got "${flags.inFlight}"`,
    );
  }
  return (options) =>
    runMapOverNats({
      ...options,
      nats: flags.nats ?? "",
      inFlight,
      ...(flags.resume !== undefined ? { resume: flags.resume } : {}),
      ...(flags.quiet ? { quiet: true } : {}),
    });
}
