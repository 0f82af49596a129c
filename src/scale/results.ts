// A run's results as the coordinator receives them: parts gathered per batch (a result larger than one NATS
// message comes in several), duplicates from redeliveries dropped, and on resume the results an earlier
// attempt already has stored, found by their headers alone so that none is held in memory before its turn.
import { DeliverPolicy } from "@nats-io/jetstream";
import type { MsgHdrs } from "@nats-io/transport-node";
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

/**
 * The stream sequences of every whole result of `run` stored so far, by batch, and the stream sequence to
 * follow new results from. Reads headers only.
 */
export async function scanStoredResults(
  nats: Nats,
  run: string,
): Promise<{ stored: Map<number, number[]>; nextSeq: number }> {
  const subject = resultSubject(run);
  const info = await nats.jsm.streams.info(RESULT_STREAM, { subjects_filter: subject });
  const stored = new Map<number, number[]>();
  const count = info.state.subjects?.[subject] ?? 0;
  if (count === 0) return { stored, nextSeq: info.state.last_seq + 1 };
  const consumer = await nats.js.consumers.get(RESULT_STREAM, {
    filter_subjects: subject,
    deliver_policy: DeliverPolicy.All,
    headers_only: true,
  });
  const collector = new PartCollector<number>();
  /** Where each batch with parts still missing began: following must start there to see it whole. */
  const partial = new Map<number, number>();
  let last = 0;
  const messages = await consumer.consume({ max_messages: 1000 });
  for await (const m of messages) {
    last = m.seq;
    const p = readPartHeaders(m.headers);
    if (p && p.error === undefined && !stored.has(p.batch)) {
      const whole = collector.add(p, m.seq);
      if (whole) {
        stored.set(p.batch, whole);
        partial.delete(p.batch);
      } else if (!partial.has(p.batch)) partial.set(p.batch, m.seq);
    }
    if (m.info.pending === 0) break;
  }
  await messages.close();
  return { stored, nextSeq: Math.min(last + 1, ...partial.values()) };
}

/** Fetches a stored result's parts by their stream sequences. */
export async function fetchStored(nats: Nats, seqs: readonly number[]): Promise<Uint8Array[]> {
  const parts: Uint8Array[] = [];
  for (const seq of seqs) {
    const m = await nats.jsm.streams.getMessage(RESULT_STREAM, { seq });
    if (!m) throw new Error(`stored result ${seq} is gone from ${RESULT_STREAM}`);
    parts.push(m.data);
  }
  return parts;
}
