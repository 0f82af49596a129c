// Where kept messages are converted: a few worker threads (or the main thread with --workers 0), each
// loading the plan once. A thread that dies takes no message with it: what it held comes back as a dead
// letter naming the failure, and a new thread takes its place.
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import { AppError } from "../errors.js";
import { type ConvertSettings, createConverter, failedIssue, type Outcome, whereOf } from "./convert.js";
import type { ConverterInit, FromConverter, ToConverter } from "./convert-worker.js";
import type { Source } from "./sink.js";

export interface Converter {
  /** Messages it can hold at once before the caller should wait (the scheduler's bound). */
  readonly capacity: number;
  /**
   * Converts a message; with `after` (the conversion of the message right ahead of it on its key, still
   * under way), preferably on that one's thread, so that a key's messages reach a thread together; on
   * another when that one holds enough (the caller keeps the key's output in order). An `urgent` one (its
   * sender waits for it) goes to the least loaded thread, which converts it as soon as the message it is
   * converting is done, ahead of the rest of its batch, and sends its result at once.
   */
  convert(text: string, source: Source, after?: Promise<Outcome>, urgent?: boolean): Promise<Outcome>;
  close(): Promise<void>;
}

/**
 * Messages handed out per thread. Each thread has at most one batch being converted; what is handed
 * out meanwhile waits on the main thread and goes as the next batch the moment the thread answers. So
 * under load a thread wakes once per batch, not once per message (a wake-up costs more than a small
 * message's conversion), and when idle a message goes at once. 16, not 64: a batch's results come back
 * together, and under backpressure the senders waiting for room wait for a whole batch (64 sample
 * messages are ~60 ms of conversion); in the same `npm run bench -- mllp` runs (8 connections, two
 * runs) 16 converted 8% more messages a second at ~10% less CPU each, ACK p99 58-64 ms against 77-80;
 * 4 measured the same as 16.
 */
const PER_THREAD = 16;

/**
 * Messages a thread holds before the next thread gets one. Spread by least load, one connection's messages
 * alternate between two threads (each arrives, acknowledged once kept, while the one before it is still
 * being converted), so each thread wakes for every other message, and a thread that sleeps between messages
 * spends more CPU on each; filled first, a light load stays on one warm thread. Measured with it, one
 * connection against the build with a single thread: 463 -> 511 converted/s (docs/mllp.md).
 */
const SPILL = 8;

export async function startConverter(settings: ConvertSettings, threads: number): Promise<Converter> {
  if (threads === 0) {
    const convert = await createConverter(settings);
    return { capacity: 1, convert: async (text, source) => convert(text, source), close: async () => {} };
  }
  return ThreadConverter.start(settings, threads);
}

interface Slot {
  worker: Worker;
  /** Urgent requests: the thread takes them between two messages of its batch (convert-worker.ts). */
  urgent: MessagePort;
  pending: Map<number, { resolve: (o: Outcome) => void; where: string }>;
  /** Requests not posted yet: they go together, at the end of this turn or when the batch out returns. */
  outbox: ToConverter;
  /** A batch is being converted (its answer not back yet). */
  busy: boolean;
  /** A post is scheduled for the end of this turn. */
  scheduled: boolean;
}

class ThreadConverter implements Converter {
  readonly capacity: number;
  private readonly slots: Slot[] = [];
  /** Which thread each conversion went to (for `after`), while it is under way. */
  private readonly lanes = new WeakMap<Promise<Outcome>, { slot: Slot; id: number }>();
  private nextId = 0;
  private closing = false;

  private constructor(
    private readonly settings: ConvertSettings,
    threads: number,
  ) {
    this.capacity = threads * PER_THREAD;
  }

  static async start(settings: ConvertSettings, threads: number): Promise<ThreadConverter> {
    const c = new ThreadConverter(settings, threads);
    // Every thread must load the plan before the listener opens: a bad crossmap fails the start.
    await Promise.all(Array.from({ length: threads }, () => c.spawn()));
    return c;
  }

  private spawn(): Promise<void> {
    const worker = new Worker(new URL("./convert-worker.js", import.meta.url));
    const { port1, port2 } = new MessageChannel();
    port1.unref();
    const slot: Slot = {
      worker,
      urgent: port1,
      pending: new Map(),
      outbox: [],
      busy: false,
      scheduled: false,
    };
    return new Promise<void>((resolve, reject) => {
      worker.on("message", (m: FromConverter) => {
        if (m.kind === "ready") {
          this.slots.push(slot);
          resolve();
        } else if (m.kind === "init_error") {
          reject(new AppError(400, "crossmap_error", `a conversion thread could not start: ${m.message}`));
        } else {
          if (m.more !== true) {
            slot.busy = false;
            // The next batch first, so that the thread converts while the main thread handles these results.
            this.post(slot);
          }
          for (const r of m.results) {
            const p = slot.pending.get(r.id);
            slot.pending.delete(r.id);
            p?.resolve(r.outcome);
          }
        }
      });
      worker.on("error", (err) => this.lost(slot, `the conversion thread failed: ${err.message}`));
      worker.on("exit", (code) => {
        reject(new AppError(500, "worker_error", `a conversion thread exited with code ${code}`));
        this.lost(slot, `the conversion thread exited with code ${code}`);
      });
      worker.postMessage({ settings: this.settings, urgent: port2 } satisfies ConverterInit, [port2]);
    });
  }

  /** A thread is gone: its messages become dead letters, and another thread starts. */
  private lost(slot: Slot, why: string): void {
    const at = this.slots.indexOf(slot);
    if (at < 0) return;
    this.slots.splice(at, 1);
    slot.urgent.close();
    for (const p of slot.pending.values()) p.resolve({ kind: "dead", issues: [failedIssue(p.where, why)] });
    slot.pending.clear();
    if (!this.closing) this.spawn().catch(() => {});
  }

  convert(text: string, source: Source, after?: Promise<Outcome>, urgent = false): Promise<Outcome> {
    const where = whereOf(source);
    // Behind `after` on its thread while it is under way there and that thread holds fewer than SPILL: a
    // key's messages in one batch, one wake-up. Past that, a busy key spreads over the threads like any
    // other load (the intake writes each key's outcomes in order, whichever thread ends first).
    const lane = after === undefined ? undefined : this.lanes.get(after);
    let slot: Slot | undefined =
      lane?.slot.pending.has(lane.id) && lane.slot.pending.size < SPILL ? lane.slot : undefined;
    // The first thread with fewer than SPILL messages, else the least loaded: a light load stays on one
    // thread (warm, its messages back to back), and the next takes what one cannot.
    if (slot === undefined && !urgent) slot = this.slots.find((s) => s.pending.size < SPILL);
    if (slot === undefined)
      for (const s of this.slots) if (slot === undefined || s.pending.size < slot.pending.size) slot = s;
    if (slot === undefined) {
      return Promise.resolve({
        kind: "dead",
        issues: [failedIssue(where, "no conversion thread is running")],
      });
    }
    const id = this.nextId++;
    const chosen = slot;
    const outcome = new Promise<Outcome>((resolve) => {
      chosen.pending.set(id, { resolve, where });
    });
    this.lanes.set(outcome, { slot: chosen, id });
    // A sender waits for it: past the batch the thread is converting, not behind it (unless it must wait
    // for the message ahead of it on that thread anyway).
    if (urgent && chosen !== lane?.slot) {
      chosen.urgent.postMessage({ id, text, source });
      return outcome;
    }
    if (!chosen.busy && !chosen.scheduled) {
      chosen.scheduled = true;
      queueMicrotask(() => {
        chosen.scheduled = false;
        this.post(chosen);
      });
    }
    chosen.outbox.push({ id, text, source });
    return outcome;
  }

  /** One message to an idle thread for everything waiting for it. */
  private post(slot: Slot): void {
    if (slot.busy || slot.outbox.length === 0) return;
    const batch = slot.outbox;
    slot.outbox = [];
    slot.busy = true;
    slot.worker.postMessage(batch);
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(
      this.slots.map((s) => {
        s.urgent.close();
        return s.worker.terminate();
      }),
    );
  }
}
