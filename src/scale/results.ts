// A run's results as the coordinator receives them: parts gathered per batch (a result larger than one NATS
// message comes in several), duplicates from redeliveries dropped, and on resume the results an earlier
// attempt already has stored, found by their headers alone so that none is held in memory before its turn,
// then fetched in input order a few at a time (StoredResults).
import { DeliverPolicy } from "@nats-io/jetstream";
import type { MsgHdrs } from "@nats-io/transport-node";
import { AppError } from "../errors.js";
import type { Nats } from "./jetstream.js";
import { HEADER, RESULT_STREAM, resultSubject } from "./names.js";

export interface ResultPart {
  batch: number;
  part: number;
  parts: number;
  worker: string;
  deliveries: number;
  error: string | undefined;
}

export function readPartHeaders(h: MsgHdrs | undefined): ResultPart | undefined {
  const batch = Number(h?.get(HEADER.batch));
  if (!h || !Number.isInteger(batch) || batch < 0) return undefined;
  return {
    batch,
    part: Number(h.get(HEADER.part) || 0),
    parts: Number(h.get(HEADER.parts) || 1),
    worker: h.get(HEADER.worker) || "?",
    deliveries: Number(h.get(HEADER.deliveries) || 1),
    error: h.get(HEADER.error) || undefined,
  };
}

/** Collects the parts of each batch until it is whole. */
export class PartCollector<T> {
  private readonly open = new Map<number, (T | undefined)[]>();

  /** The parts of the batch in order once the last one came, else undefined. */
  add(p: ResultPart, value: T): T[] | undefined {
    let parts = this.open.get(p.batch);
    if (!parts) {
      parts = new Array<T | undefined>(p.parts).fill(undefined);
      this.open.set(p.batch, parts);
    }
    parts[p.part] = value;
    if (parts.some((x) => x === undefined)) return undefined;
    this.open.delete(p.batch);
    return parts as T[];
  }

  forget(batch: number): void {
    this.open.delete(batch);
  }
}

/** A stored message of a result: its stream sequence and payload size. */
export interface StoredPart {
  seq: number;
  size: number;
}

/** Batch -> its stored parts in order. */
export type Stored = Map<number, StoredPart[]>;

/**
 * The stream sequences of every whole result of `run` stored so far, by batch, and the stream sequence to
 * follow new results from. Reads headers only (the server adds each payload's size as `Nats-Msg-Size`).
 */
export async function scanStoredResults(
  nats: Nats,
  run: string,
): Promise<{ stored: Stored; nextSeq: number; direct: boolean }> {
  const subject = resultSubject(run);
  const info = await nats.jsm.streams.info(RESULT_STREAM, { subjects_filter: subject });
  const direct = info.config.allow_direct === true;
  const stored: Stored = new Map();
  const count = info.state.subjects?.[subject] ?? 0;
  if (count === 0) return { stored, nextSeq: info.state.last_seq + 1, direct };
  const consumer = await nats.js.consumers.get(RESULT_STREAM, {
    filter_subjects: subject,
    deliver_policy: DeliverPolicy.All,
    headers_only: true,
  });
  const collector = new PartCollector<StoredPart>();
  /** Where each batch with parts still missing began: following must start there to see it whole. */
  const partial = new Map<number, number>();
  let last = 0;
  const messages = await consumer.consume({ max_messages: 1000 });
  for await (const m of messages) {
    last = m.seq;
    const p = readPartHeaders(m.headers);
    if (p && p.error === undefined && !stored.has(p.batch)) {
      const size = Number(m.headers?.get("Nats-Msg-Size"));
      const whole = collector.add(p, { seq: m.seq, size: Number.isInteger(size) ? size : nats.maxBody });
      if (whole) {
        stored.set(p.batch, whole);
        partial.delete(p.batch);
      } else if (!partial.has(p.batch)) partial.set(p.batch, m.seq);
    }
    if (m.info.pending === 0) break;
  }
  await messages.close();
  return { stored, nextSeq: Math.min(last + 1, ...partial.values()), direct };
}

/**
 * Fetches stored results for the coordinator, which asks for them in input order, up to `--in-flight` at
 * once. Each get is answered in one message the server queues for this connection at once, so asking for
 * all of them together overflowed the server's buffer for a client (max_pending, 64 MB by default: 64
 * results of ~1 MB; the server then cuts the connection as a slow consumer and every get times out). At
 * most `windowBytes` of answers are asked for at a time; the rest wait their turn, in order.
 */
export class StoredResults {
  private used = 0;
  private readonly queue: { cost: number; go: () => void }[] = [];

  constructor(
    private readonly get: (seq: number) => Promise<Uint8Array>,
    private readonly windowBytes: number,
    /** The answers carry the payload in base64 (the stream API's get). */
    private readonly base64: boolean,
  ) {}

  async fetch(parts: readonly StoredPart[]): Promise<Uint8Array[]> {
    const bytes = (p: StoredPart) => (this.base64 ? Math.ceil((p.size * 4) / 3) : p.size) + 512;
    const cost = Math.min(
      this.windowBytes,
      parts.reduce((n, p) => n + bytes(p), 0),
    );
    await this.acquire(cost);
    try {
      // One part after the other: a batch larger than the window is alone in it.
      const out: Uint8Array[] = [];
      for (const p of parts) out.push(await this.get(p.seq));
      return out;
    } finally {
      this.release(cost);
    }
  }

  private acquire(cost: number): Promise<void> {
    if (this.queue.length === 0 && this.used + cost <= this.windowBytes) {
      this.used += cost;
      return Promise.resolve();
    }
    return new Promise((go) => this.queue.push({ cost, go }));
  }

  private release(cost: number): void {
    this.used -= cost;
    while (this.queue.length > 0 && this.used + this.queue[0]!.cost <= this.windowBytes) {
      const next = this.queue.shift()!;
      this.used += next.cost;
      next.go();
    }
  }
}

/**
 * Gets one stored result part by its stream sequence: with a direct get when the stream allows it (the
 * payload as it is: a resume of 190 MB of results took 2.8 s of CPU instead of 7.2 s through the stream
 * API, whose answer is JSON with the payload in base64), else through the stream API.
 */
export async function getStored(nats: Nats, seq: number, direct: boolean): Promise<Uint8Array> {
  // A direct get may be answered by a replica that has not stored the message yet: the leader has it.
  const m =
    (direct ? await nats.jsm.direct.getMessage(RESULT_STREAM, { seq }) : null) ??
    (await nats.jsm.streams.getMessage(RESULT_STREAM, { seq }));
  if (!m) throw new AppError(503, "nats_error", `stored result ${seq} is gone from ${RESULT_STREAM}`);
  return m.data;
}
