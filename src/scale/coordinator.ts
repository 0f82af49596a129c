// `crossmap map --nats URL`: the local pipeline's run with batches mapped by `crossmap worker`s. Stores the
// run (so workers can compile its crossmaps and a stopped run can resume), follows it to the end, then
// clears its work and results from the streams.

import { hostname } from "node:os";
import { AppError } from "../errors.js";
import type { InputPlan } from "../pipeline/inputs.js";
import {
  DEFAULT_BATCH_RECORDS,
  type MapRunOptions,
  type MapRunOutcome,
  runMap,
  splitsByEntity,
} from "../pipeline/run.js";
import type { BatchMapper } from "../pipeline/stage.js";
import type { RunSummary } from "../pipeline/summary.js";
import { BULK_STREAMS, closeNats, connectNats, ensureStreams, type Nats, natsFailure } from "./jetstream.js";
import { DEFAULT_NATS_WAIT_S, type Link, watchLink } from "./link.js";
import { newRunId, RESULT_STREAM, RUN_ID, resultSubject, WORK_STREAM, workSubject } from "./names.js";
import { type RemoteStats, startRemote } from "./remote.js";
import { type Stored, scanStoredResults } from "./results.js";
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
  /** Seconds to wait for a lost NATS server before the run stops (default DEFAULT_NATS_WAIT_S). */
  natsWait?: number;
  quiet?: boolean;
}

export interface NatsMapOutcome extends MapRunOutcome {
  summary: RunSummary & { nats: RemoteStats };
}

export async function runMapOverNats(options: NatsMapOptions): Promise<NatsMapOutcome> {
  if (options.resume !== undefined && !RUN_ID.test(options.resume)) {
    throw new AppError(400, "usage", `--resume: "${options.resume}" is not a run id`);
  }
  const nats = await connectNats(options.nats, `crossmap map ${hostname()}:${process.pid}`, true);
  const say = (line: string) => {
    if (!options.quiet) options.stderr.write(`crossmap map: ${line}\n`);
  };
  const stopSignals: (() => void)[] = [];
  let remote: Awaited<ReturnType<typeof startRemote>> | undefined;
  const link = watchLink(nats, {
    waitMs: (options.natsWait ?? DEFAULT_NATS_WAIT_S) * 1000,
    // Said even with -q: a run that stands still must say why.
    say: (line) => options.stderr.write(`crossmap map: ${line}\n`),
    onGiveUp: (err) => remote?.stop(err),
  });
  try {
    await ensureStreams(nats, BULK_STREAMS);
    const stage = { onError: options.onError, perEntity: splitsByEntity(options.output) };
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
    const { stored, followFrom, direct } = await prepare(
      nats,
      descriptor,
      options.resume !== undefined,
    ).catch((err: unknown) => {
      throw err instanceof AppError ? err : natsFailure(`cannot read run ${run} from NATS`, err);
    });
    await writeState(nats, run, { state: "running" }, link);
    say(
      `NATS run ${run} on ${nats.url}` +
        (options.resume ? `, resumed: ${stored.size} batch(es) already mapped` : ""),
    );

    let local: BatchMapper | undefined;
    remote = await startRemote({
      nats,
      run,
      mapBatch: (batch) => local!(batch),
      inFlight: options.inFlight ?? DEFAULT_IN_FLIGHT,
      stored,
      direct,
      followFrom,
      warn: (line) => options.stderr.write(`crossmap map: ${line}\n`),
      link,
    });
    const started = remote;
    const hint = `run ${run} can be resumed with --resume ${run}`;
    let interrupted: string | undefined;
    const interrupt = (name: string) => {
      interrupted = name;
      started.stop(new AppError(503, "interrupted", `interrupted by ${name}: ${hint}`));
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
          return started;
        },
        progressNote: started.note,
      });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      // Not when the server is away: the run record then still says running, which resumes the same.
      if (!link.down) {
        await writeState(nats, run, { state: "stopped", batches: started.stats.batches, reason }).catch(
          () => {},
        );
      }
      if (!interrupted) say(`the run stopped; ${hint}`);
      throw err;
    }
    if (outcome.summary.interrupted || interrupted) {
      // Stopped, not finished: the work and results stay in the streams for --resume.
      const reason = `interrupted by ${outcome.summary.interrupted ?? interrupted}`;
      if (!link.down) {
        await writeState(nats, run, { state: "stopped", batches: started.stats.batches, reason }, link);
      }
      options.stderr.write(`crossmap map: ${reason}: ${hint}\n`);
      return { summary: Object.assign(outcome.summary, { nats: started.stats }) };
    }
    const { summary, fatal } = outcome;
    // Done either way: a run stopped by --on-error fail would stop at the same record again.
    await clearRun(nats, run, link);
    await writeState(
      nats,
      run,
      {
        state: summary.completed ? "completed" : "failed",
        batches: started.stats.batches,
        ...(fatal ? { reason: fatal.message } : {}),
      },
      link,
    );
    say(formatNatsLine(started.stats));
    const result: NatsMapOutcome = { summary: Object.assign(summary, { nats: started.stats }) };
    if (fatal) result.fatal = fatal;
    return result;
  } finally {
    for (const off of stopSignals) off();
    link.close();
    await closeNats(nats);
  }
}

/** For a new run, stores it; for --resume, checks it is the same run and finds what is already mapped. */
async function prepare(
  nats: Nats,
  descriptor: RunDescriptor,
  resume: boolean,
): Promise<{ stored: Stored; followFrom: number; direct: boolean }> {
  const run = descriptor.run;
  if (!resume) {
    await publishRun(nats, descriptor);
    const info = await nats.jsm.streams.info(RESULT_STREAM);
    return { stored: new Map(), followFrom: info.state.last_seq + 1, direct: false };
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
  const { stored, nextSeq, direct } = await scanStoredResults(nats, run);
  return { stored, followFrom: nextSeq, direct };
}

async function clearRun(nats: Nats, run: string, link: Link): Promise<void> {
  await link.retry(`cannot clear run ${run}`, () =>
    nats.jsm.streams.purge(WORK_STREAM, { filter: workSubject(run) }),
  );
  await link.retry(`cannot clear run ${run}`, () =>
    nats.jsm.streams.purge(RESULT_STREAM, { filter: resultSubject(run) }),
  );
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
  natsWait?: string;
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
  const natsWait = flags.natsWait === undefined ? DEFAULT_NATS_WAIT_S : Number(flags.natsWait);
  if (!Number.isInteger(natsWait) || natsWait < 1 || natsWait > 86_400) {
    throw new AppError(
      400,
      "usage",
      `--nats-wait must be a whole number of seconds from 1 to 86400, got "${flags.natsWait}"`,
    );
  }
  return (options) =>
    runMapOverNats({
      ...options,
      nats: flags.nats ?? "",
      inFlight,
      natsWait,
      ...(flags.resume !== undefined ? { resume: flags.resume } : {}),
      ...(flags.quiet ? { quiet: true } : {}),
    });
}
