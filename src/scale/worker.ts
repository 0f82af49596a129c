// `crossmap worker`: pulls batches from the shared work-queue consumer, maps them with the run's compiled
// plan, stores the result and only then acknowledges the batch. A worker that dies holding a batch has it
// redelivered to another after the consumer's ack_wait; on SIGTERM it finishes what it holds and gives
// back what it has not started.
import { AckPolicy, type JsMsg } from "@nats-io/jetstream";
import { headers } from "@nats-io/transport-node";
import { AppError } from "../errors.js";
import type { BatchResult } from "../pipeline/types.js";
import { decodeBatch, encodeResult, splitPayload } from "./codec.js";
import { type HealthServer, startHealth } from "./health.js";
import { holdInHand, progressEvery } from "./in-hand.js";
import {
  BULK_STREAMS,
  closeNats,
  connectNats,
  ensureStreams,
  isNotFound,
  type Nats,
  natsFailure,
  PULL_EXPIRES_MS,
  publishStored,
} from "./jetstream.js";
import { Metrics } from "./metrics.js";
import { HEADER, noticeSubject, resultSubject, WORK_STREAM, WORKERS_CONSUMER } from "./names.js";
import { PlanCache } from "./plans.js";
import { type RunDescriptor, readRun } from "./run-record.js";
import { onStopSignal } from "./signals.js";

export interface WorkerOptions {
  url: string;
  name: string;
  vocab?: string;
  transforms?: string;
  concurrency: number;
  /** Seconds the server waits for an ack before redelivering; applied to the shared consumer when given. */
  ackWait?: number;
  healthPort?: string;
  /** A log line as each batch is taken and as it is stored. */
  verbose?: boolean;
  stderr: NodeJS.WritableStream;
  /** Told once the worker takes work (tests and the CLI's start-up line). */
  onReady?: (info: { health?: string }) => void;
}

/** Deliveries of one batch before the server gives up on it (the coordinator then fails the run). */
export const MAX_DELIVER = 5;
const DEFAULT_ACK_WAIT_S = 30;
/** How long a stopping worker waits for the batches in hand before giving up on them. */
const STOP_GRACE_MS = 20_000;
/** Batches whose results a worker remembers storing, to acknowledge a redelivery without mapping it. */
const STORED_KEPT = 4096;
/** A worker that cannot map a run tells its coordinator at most this often. */
const NOTICE_EVERY_MS = 30_000;

export async function runWorker(options: WorkerOptions): Promise<number> {
  const nats = await connectNats(options.url, `crossmap worker ${options.name}`);
  const metrics = new Metrics("crossmap_worker");
  const count = {
    batches: metrics.counter("batches_total", "Batches mapped and stored."),
    records: metrics.counter("records_total", "Input records in the batches mapped."),
    redeliveries: metrics.counter("redeliveries_total", "Batches received that had been delivered before."),
    refused: metrics.counter(
      "refused_total",
      "Batches handed back because this worker cannot map their run.",
    ),
    failures: metrics.counter("failures_total", "Batches that failed to map or to store (handed back)."),
    alreadyStored: metrics.counter(
      "already_stored_total",
      "Batches delivered again after this worker had stored their result: acknowledged again, not mapped.",
    ),
    mapSeconds: metrics.counter("map_seconds_total", "Time spent decoding, mapping and encoding batches."),
    storeSeconds: metrics.counter("store_seconds_total", "Time spent waiting for results to be stored."),
  };
  const gauge = {
    inFlight: metrics.gauge("in_flight", "Batches in hand."),
    lag: metrics.gauge(
      "lag",
      "Batches waiting in the work stream for any worker (the consumer's num_pending).",
    ),
    unacked: metrics.gauge(
      "unacked",
      "Batches out with some worker, not yet acknowledged (num_ack_pending).",
    ),
    plans: metrics.gauge("plans", "Sets of crossmaps compiled (by content hash) and kept."),
  };
  const plans = new PlanCache({
    concurrency: options.concurrency,
    ...(options.vocab ? { vocab: options.vocab } : {}),
    ...(options.transforms ? { transforms: options.transforms } : {}),
  });
  const runs = new Map<string, Promise<RunDescriptor | undefined>>();
  /** `run.batch` of the results this worker stored lately, oldest first. */
  const storedHere = new Set<string>();
  /** `run.batch` of the batches being mapped or stored here. */
  const handling = new Map<string, Promise<void>>();
  const noticed = new Map<string, number>();
  let state: "ok" | "stopping" | "disconnected" = "ok";
  const stopping = (): boolean => state === "stopping";
  let inFlight = 0;
  let health: HealthServer | undefined;
  const log = (line: string) => options.stderr.write(`crossmap worker: ${line}\n`);

  const descriptor = (run: string): Promise<RunDescriptor | undefined> => {
    let d = runs.get(run);
    if (!d) {
      d = readRun(nats, run);
      // Runs are few; a worker that lives for months forgets the oldest.
      if (runs.size >= 64) runs.delete(runs.keys().next().value!);
      runs.set(run, d);
      d.catch(() => runs.delete(run));
    }
    return d;
  };

  const notice = (run: string, message: string) => {
    const now = Date.now();
    if ((noticed.get(run) ?? 0) > now - NOTICE_EVERY_MS) return;
    noticed.set(run, now);
    log(`cannot map run ${run}: ${message}`);
    nats.nc.publish(noticeSubject(run), JSON.stringify({ worker: options.name, message }));
  };

  /** How often a batch in hand is said to be in progress (set from the consumer's ack wait at start). */
  let progressMs = progressEvery(DEFAULT_ACK_WAIT_S * 1000);

  const handle = async (m: JsMsg): Promise<void> => {
    const hand = holdInHand(m, progressMs);
    try {
      await deliver(m, hand.working);
    } finally {
      hand.release();
    }
  };

  const deliver = async (m: JsMsg, working: () => void): Promise<void> => {
    const run = m.headers?.get(HEADER.run) ?? "";
    const batch = m.headers?.get(HEADER.batch) ?? "";
    const key = `${run}.${batch}`;
    if (m.info.deliveryCount > 1) {
      count.redeliveries();
      // Delivered again while we map it, or after we stored it: our progress signals or acknowledgement
      // were lost or ignored (seen with nats-server 2.9 after purges of the work stream: batches in hand
      // or acknowledged delivered again 3 s after their first delivery). Wait for our own copy, then
      // acknowledge this one if its result is stored, or else map it.
      await handling.get(key)?.catch(() => {});
      if (storedHere.has(key)) {
        count.alreadyStored();
        if (options.verbose) log(`run ${run} batch ${batch}: already stored here; acknowledged again`);
        m.ack();
        return;
      }
    }
    const done = mapAndStore(m, working, run, batch);
    handling.set(key, done);
    try {
      await done;
    } finally {
      handling.delete(key);
    }
  };

  const mapAndStore = async (m: JsMsg, working: () => void, run: string, batch: string): Promise<void> => {
    const d = run ? await descriptor(run) : undefined;
    if (!d) {
      // A batch of a run whose record expired: nobody waits for it any more.
      log(`dropping batch ${batch} of unknown run "${run}"`);
      m.term("unknown run");
      return;
    }
    const processor = await plans.processorFor(d);
    gauge.plans(plans.size);
    if (typeof processor === "string") {
      count.refused();
      notice(run, processor);
      // Back to the stream, after a pause, for a worker that can map it.
      m.nak(5000);
      return;
    }
    if (options.verbose) log(`run ${run} batch ${batch}: mapping (delivery ${m.info.deliveryCount})`);
    const started = performance.now();
    // The wait for a mapping thread is over: the ack wait now covers this batch's mapping only.
    working();
    let payload: Uint8Array;
    let error: string | undefined;
    let result: BatchResult | undefined;
    try {
      result = await processor.submit(decodeBatch(m.data));
      payload = encodeResult(result);
    } catch (err) {
      // The stage never throws for bad input: this is a defect, reported to the coordinator as such.
      error = ((err as Error).message ?? String(err)).replace(/[\r\n]+/g, " ");
      payload = new Uint8Array(0);
      count.failures();
    }
    const mapped = performance.now();
    count.mapSeconds((mapped - started) / 1000);
    const parts = splitPayload(payload, nats.maxBody);
    working();
    try {
      for (let i = 0; i < parts.length; i++) {
        const h = headers();
        h.set(HEADER.run, run);
        h.set(HEADER.batch, batch);
        h.set(HEADER.worker, options.name);
        h.set(HEADER.deliveries, String(m.info.deliveryCount));
        if (parts.length > 1) {
          h.set(HEADER.part, String(i));
          h.set(HEADER.parts, String(parts.length));
        }
        if (error !== undefined) h.set(HEADER.error, error);
        await publishStored(nats, resultSubject(run), parts[i]!, {
          msgID: `${run}.${batch}.${i}`,
          headers: h,
        });
      }
    } catch (err) {
      count.failures();
      log(`cannot store the result of batch ${batch} of run ${run}: ${(err as Error).message}`);
      m.nak(1000);
      return;
    }
    count.storeSeconds((performance.now() - mapped) / 1000);
    storedHere.add(`${run}.${batch}`);
    if (storedHere.size > STORED_KEPT) storedHere.delete(storedHere.values().next().value!);
    m.ack();
    count.batches();
    if (result) count.records(result.recordsIn);
    if (options.verbose) {
      log(
        `run ${run} batch ${batch}: stored in ${parts.length} message(s), ${Math.round(performance.now() - started)} ms`,
      );
    }
  };

  let stopRequested: (() => void) | undefined;
  const stopped = new Promise<void>((resolve) => {
    stopRequested = resolve;
  });
  const offSignals = onStopSignal((name) => {
    if (state === "stopping") return false;
    log(`${name}: finishing ${inFlight} batch(es) in hand, then stopping`);
    state = "stopping";
    stopRequested?.();
    return true;
  });

  try {
    await ensureStreams(nats, BULK_STREAMS);
    progressMs = progressEvery(await ensureConsumer(nats, options.ackWait));
    void (async () => {
      for await (const s of nats.nc.status()) {
        if (s.type === "disconnect" && state === "ok") state = "disconnected";
        if (s.type === "reconnect" && state === "disconnected") state = "ok";
      }
    })();
    if (options.healthPort !== undefined) {
      health = await startHealth(options.healthPort, {
        status: () => state,
        details: () => ({ name: options.name, in_flight: inFlight, ...metrics.toJSON() }),
        metrics,
        refresh: async () => {
          const ci = await nats.jsm.consumers.info(WORK_STREAM, WORKERS_CONSUMER);
          gauge.lag(ci.num_pending);
          gauge.unacked(ci.num_ack_pending);
        },
      });
    }
    const consumer = await nats.js.consumers.get(WORK_STREAM, WORKERS_CONSUMER);
    // Two batches in hand per mapping thread: one maps while the other's result is being stored.
    const depth = options.concurrency * 2;
    const messages = await consumer.consume({ max_messages: depth, expires: PULL_EXPIRES_MS });
    void stopped.then(() => messages.stop());
    log(`${options.name} taking batches from ${options.url}${health ? `; health on ${health.url}` : ""}`);
    options.onReady?.(health ? { health: health.url } : {});
    const running = new Set<Promise<void>>();
    for await (const m of messages) {
      if (stopping()) {
        m.nak();
        continue;
      }
      inFlight++;
      gauge.inFlight(inFlight);
      const p = handle(m)
        .catch((err: unknown) => {
          count.failures();
          log(`batch failed: ${(err as Error).message}`);
          m.nak(1000);
        })
        .finally(() => {
          inFlight--;
          gauge.inFlight(inFlight);
          running.delete(p);
        });
      running.add(p);
      if (running.size >= depth) await Promise.race(running);
    }
    const finished = await Promise.race([
      Promise.all(running).then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), STOP_GRACE_MS).unref()),
    ]);
    if (!finished)
      log(`gave up on ${inFlight} batch(es) after ${STOP_GRACE_MS / 1000} s; they will be redelivered`);
    log("stopped");
    return finished ? 0 : 1;
  } finally {
    offSignals();
    await health?.close();
    await plans.close();
    await closeNats(nats);
  }
}

/**
 * The shared consumer: created with our defaults when missing; --ack-wait updates an existing one.
 * Returns its ack wait in milliseconds.
 */
async function ensureConsumer(nats: Nats, ackWaitS: number | undefined): Promise<number> {
  const ackWait = Math.round((ackWaitS ?? DEFAULT_ACK_WAIT_S) * 1e9);
  try {
    const ci = await nats.jsm.consumers.info(WORK_STREAM, WORKERS_CONSUMER);
    if (ackWaitS !== undefined && ci.config.ack_wait !== ackWait) {
      await nats.jsm.consumers.update(WORK_STREAM, WORKERS_CONSUMER, { ack_wait: ackWait });
      return ackWait / 1e6;
    }
    return (ci.config.ack_wait ?? ackWait) / 1e6;
  } catch (err) {
    if (!isNotFound(err)) throw natsFailure(`cannot read consumer ${WORKERS_CONSUMER}`, err);
  }
  await nats.jsm.consumers
    .add(WORK_STREAM, {
      durable_name: WORKERS_CONSUMER,
      ack_policy: AckPolicy.Explicit,
      ack_wait: ackWait,
      max_deliver: MAX_DELIVER,
      max_ack_pending: 10_000,
    })
    .catch((err: unknown) => {
      throw new AppError(
        503,
        "nats_error",
        `cannot create consumer ${WORKERS_CONSUMER}: ${(err as Error).message}`,
      );
    });
  return ackWait / 1e6;
}
