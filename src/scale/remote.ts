// The coordinator's side of a bulk run: a BatchProcessor that publishes each batch to the work stream and
// resolves with the result a worker stores for it. The pipeline's run loop awaits results in submission
// order and bounds how many are out, so ordering and backpressure stay where they are for local runs.
import { randomBytes } from "node:crypto";
import { DeliverPolicy } from "@nats-io/jetstream";
import { headers, type Subscription } from "@nats-io/transport-node";
import { AppError } from "../errors.js";
import type { BatchProcessor } from "../pipeline/pool.js";
import type { BatchMapper } from "../pipeline/stage.js";
import type { Batch, BatchResult } from "../pipeline/types.js";
import { decodeResult, joinPayload } from "./codec.js";
import { fitBatch, joinResults, type Piece } from "./fit.js";
import { type Nats, natsFailure, PULL_EXPIRES_MS } from "./jetstream.js";
import type { Link } from "./link.js";
import {
  HEADER,
  maxDeliveriesAdvisory,
  noticeSubject,
  RESULT_STREAM,
  resultSubject,
  WORK_STREAM,
  WORKERS_CONSUMER,
  workSubject,
} from "./names.js";
import { getStored, PartCollector, readPartHeaders, type Stored, StoredResults } from "./results.js";

export interface RemoteStats {
  run: string;
  /** Batches of the run: the input's batches, those too large for one message cut until they fit. */
  batches: number;
  /** Batches published to workers. */
  published: number;
  /** Batches whose result an earlier attempt of the run had stored (--resume). */
  from_earlier_attempt: number;
  /** Single records too large for one NATS message, mapped by the coordinator itself. */
  mapped_here: number;
  /** Results that came again for a batch already done (a redelivered batch mapped twice), dropped. */
  duplicates_dropped: number;
  /** Results of batches the server had delivered more than once (a worker died or was too slow). */
  redelivered: number;
  /** Batches mapped, by worker. */
  workers: Record<string, number>;
}

export interface RemoteProcessor extends BatchProcessor {
  readonly stats: RemoteStats;
  /** Fails every batch out and every later submit with `err` (a signal, a lost server). */
  stop(err: Error): void;
  /** For the progress line: batches done and workers seen. */
  note(): string;
}

interface Waiting {
  resolve: (r: BatchResult) => void;
  reject: (e: Error) => void;
  batch: Batch;
  streamSeq?: number;
}

export interface RemoteOptions {
  nats: Nats;
  run: string;
  /** Maps a batch too large to publish. */
  mapBatch: BatchMapper;
  inFlight: number;
  /** Results an earlier attempt stored: batch -> its parts in the results stream. */
  stored: Stored;
  /** The results stream allows direct gets. */
  direct: boolean;
  /** Stream sequence of the results stream to follow from. */
  followFrom: number;
  warn: (message: string) => void;
  /** Repeats publishes and gets while the server is away. */
  link: Link;
}

/**
 * What the coordinator asks the server for at once, in messages of the server's largest size: new results
 * (the consumer's pull) and stored ones (gets). Both are answered as fast as the server can, and what this
 * process has not read yet waits in the server's buffer for it (max_pending, 64 MB by default), which must
 * never fill: 16 + 4 messages of 1 MB by default (the pull was 16 MB before this bound and stays so).
 */
export const FOLLOW_MESSAGES = 16;
export const STORED_MESSAGES = 4;
const FOLLOW_MAX_BYTES = 16 << 20;

export async function startRemote(options: RemoteOptions): Promise<RemoteProcessor> {
  const { nats, run, stored, link } = options;
  const messageBytes = nats.maxBody + 4096;
  const storedResults = new StoredResults(
    (seq) => link.retry(`cannot fetch stored result ${seq}`, () => getStored(nats, seq, options.direct)),
    STORED_MESSAGES * messageBytes,
    !options.direct,
  );
  const pending = new Map<number, Waiting>();
  const byStreamSeq = new Map<number, number>();
  /** Results of batches not submitted yet: an earlier attempt's batches that finished after the scan. */
  const early = new Map<number, BatchResult | Error>();
  const collector = new PartCollector<Uint8Array>();
  const stats: RemoteStats = {
    run,
    batches: 0,
    published: 0,
    from_earlier_attempt: 0,
    mapped_here: 0,
    duplicates_dropped: 0,
    redelivered: 0,
    workers: {},
  };
  let done = 0;
  let stopped: Error | undefined;
  /**
   * In the work message ids: a retried publish is stored once, but a resumed run's batches are always
   * stored anew, even within the duplicate window, where an earlier attempt's copy may have been given up
   * (max deliveries) or purged.
   */
  const attempt = randomBytes(3).toString("hex");

  const settle = (batch: number, outcome: BatchResult | Error) => {
    const w = pending.get(batch);
    if (!w) {
      if (batch >= stats.batches) early.set(batch, outcome);
      else if (!stored.has(batch)) stats.duplicates_dropped++;
      return;
    }
    pending.delete(batch);
    if (w.streamSeq !== undefined) byStreamSeq.delete(w.streamSeq);
    done++;
    if (outcome instanceof Error) w.reject(outcome);
    else w.resolve(outcome);
  };

  const consumer = await nats.js.consumers.get(RESULT_STREAM, {
    filter_subjects: resultSubject(run),
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: options.followFrom,
  });
  // Bytes, not messages: a result may be close to the server's max_payload.
  const messages = await consumer.consume({
    max_bytes: Math.min(FOLLOW_MAX_BYTES, FOLLOW_MESSAGES * messageBytes),
    expires: PULL_EXPIRES_MS,
  });
  const following = (async () => {
    for await (const m of messages) {
      const p = readPartHeaders(m.headers);
      if (!p || stored.has(p.batch)) continue;
      const parts = collector.add(p, m.data);
      if (!parts) continue;
      if (pending.has(p.batch) || p.batch >= stats.batches) {
        stats.workers[p.worker] = (stats.workers[p.worker] ?? 0) + 1;
        if (p.deliveries > 1) stats.redelivered++;
      }
      if (p.error !== undefined) {
        settle(
          p.batch,
          new AppError(500, "worker_error", `worker ${p.worker} failed on batch ${p.batch}: ${p.error}`),
        );
        continue;
      }
      let result: BatchResult | Error;
      try {
        result = decodeResult(joinPayload(parts));
      } catch (err) {
        result = new AppError(
          500,
          "nats_error",
          `unreadable result of batch ${p.batch}: ${(err as Error).message}`,
        );
      }
      settle(p.batch, result);
    }
  })().catch((err: unknown) => stop(natsFailure("lost the results stream", err)));

  const subs: Subscription[] = [];
  // A batch no worker could finish in max_deliver tries would otherwise hold the run up for ever.
  subs.push(
    nats.nc.subscribe(maxDeliveriesAdvisory(WORK_STREAM, WORKERS_CONSUMER), {
      callback: (_err, msg) => {
        const a = msg.json<{ stream_seq: number; deliveries: number }>();
        const batch = byStreamSeq.get(a.stream_seq);
        if (batch === undefined) return;
        const where = describeBatch(pending.get(batch)?.batch);
        settle(
          batch,
          new AppError(
            500,
            "batch_undeliverable",
            `batch ${batch}${where} was delivered ${a.deliveries} times and no worker finished it; see the workers' logs`,
          ),
        );
      },
    }),
  );
  const told = new Set<string>();
  subs.push(
    nats.nc.subscribe(noticeSubject(run), {
      callback: (_err, msg) => {
        const n = msg.json<{ worker: string; message: string }>();
        const line = `worker ${n.worker}: ${n.message}`;
        if (!told.has(line)) {
          told.add(line);
          options.warn(line);
        }
      },
    }),
  );

  const stop = (err: Error) => {
    stopped ??= err;
    for (const batch of [...pending.keys()]) settle(batch, err);
  };

  /** One message's worth of a batch, numbered in input order: the number is the batch's key in the run. */
  const submitPiece = async (piece: Piece): Promise<BatchResult> => {
    const seq = stats.batches++;
    if (stopped) throw stopped;
    const seqs = stored.get(seq);
    if (seqs) {
      stats.from_earlier_attempt++;
      done++;
      return decodeResult(joinPayload(await storedResults.fetch(seqs)));
    }
    const ready = early.get(seq);
    if (ready) {
      early.delete(seq);
      done++;
      if (ready instanceof Error) throw ready;
      return ready;
    }
    if (piece.payload === undefined) {
      stats.mapped_here++;
      done++;
      return options.mapBatch(piece.batch);
    }
    const result = new Promise<BatchResult>((resolve, reject) => {
      pending.set(seq, { resolve, reject, batch: piece.batch });
    });
    const h = headers();
    h.set(HEADER.run, run);
    h.set(HEADER.batch, String(seq));
    stats.published++;
    const msgID = `${run}.${attempt}.${seq}`;
    link
      .retry(`cannot publish batch ${seq}`, () =>
        nats.js.publish(workSubject(run), piece.payload!, { msgID, headers: h }),
      )
      .then(
        (ack) => {
          const w = pending.get(seq);
          if (!w) return;
          w.streamSeq = ack.seq;
          byStreamSeq.set(ack.seq, seq);
        },
        (err: unknown) => settle(seq, err as Error),
      );
    return result;
  };

  const submit = async (batch: Batch): Promise<BatchResult> => {
    const pieces = fitBatch(batch, nats.maxBody);
    if (pieces.length === 1) return submitPiece(pieces[0]!);
    return joinResults(await Promise.all(pieces.map(submitPiece)));
  };

  return {
    capacity: options.inFlight,
    submit,
    stats,
    stop,
    note: () => {
      const workers = Object.keys(stats.workers).length;
      return `${done} of ${stats.batches} batches done, ${workers} worker${workers === 1 ? "" : "s"}`;
    },
    close: async () => {
      for (const s of subs) s.unsubscribe();
      await messages.close().catch(() => {});
      await following;
    },
  };
}

function describeBatch(batch: Batch | undefined): string {
  if (!batch) return "";
  if (batch.kind === "lines") return ` (${batch.file} from line ${batch.firstLine})`;
  const line = batch.records[0]?.line;
  return ` (${batch.file}${line !== undefined ? ` from line ${line}` : ""})`;
}
