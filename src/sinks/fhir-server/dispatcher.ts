// Sends Bundles several at a time, in order where order matters: a Bundle that writes a resource an earlier
// Bundle writes (the same Patient in two messages) waits until that one has its answer, so the server
// applies them in input order; Bundles with nothing in common with the ones before them go past a waiting
// one (one patient's messages do not hold up another's). The queue is bounded: `submit` waits while it is
// full, which holds the pipeline back instead of holding its output in memory.
import type { Outgoing } from "./bundles.js";
import { type Delivering, SendQueue } from "./send-queue.js";

export interface DispatcherOptions<O> extends Delivering<O> {
  /** Bundles in flight at once. */
  concurrency: number;
  /**
   * Bundles queued at most (default 4 x concurrency): how far past a waiting Bundle the dispatcher looks
   * for one it may send. A run of one patient's messages waits in it while other patients' go by. Not
   * more: each answer rescans the queue's keys, and with 16 x a run of one patient's 18-resource messages
   * filling the queue made that scan 2.5% of the in-process bench's CPU (profiled).
   */
  window?: number;
}

export class Dispatcher<O> extends SendQueue {
  private readonly queue: Outgoing<O>[] = [];
  private readonly busy = new Map<string, number>();
  private readonly window: number;

  constructor(private readonly options: DispatcherOptions<O>) {
    super();
    this.window = Math.max(options.window ?? options.concurrency * 4, options.concurrency, 1);
  }

  /** Queues a Bundle; resolves once there is room for the next. Throws the failure that stopped sending. */
  async submit(out: Outgoing<O>): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    this.queue.push(out);
    this.pump();
    await this.room(this.window);
  }

  protected queued(): number {
    return this.queue.length;
  }

  /** Forgets the Bundles not yet sent (a stopped run) and returns their entries; those in flight finish. */
  discard(): number {
    const n = this.queue.reduce((sum, o) => sum + o.entries.length, 0);
    this.queue.length = 0;
    this.wake();
    return n;
  }

  /**
   * Starts queued Bundles in input order while there is room, skipping one that writes a key a Bundle in
   * flight or an earlier queued one writes: the skipped one's keys then block later Bundles too, so two
   * Bundles with a key in common always start in input order, and the later only once the earlier answered.
   */
  protected pump(): void {
    if (this.failure !== undefined || this.inFlight >= this.options.concurrency) return;
    const q = this.queue;
    let blocked: Set<string> | undefined;
    for (let i = 0; i < q.length && this.inFlight < this.options.concurrency; ) {
      const out = q[i] as Outgoing<O>;
      const waits = out.keys.some((k) => this.busy.has(k) || blocked?.has(k) === true);
      if (waits) {
        blocked ??= new Set();
        for (const k of out.keys) blocked.add(k);
        i++;
        continue;
      }
      q.splice(i, 1);
      this.start(out);
    }
  }

  private start(out: Outgoing<O>): void {
    for (const k of out.keys) this.busy.set(k, (this.busy.get(k) ?? 0) + 1);
    this.send(out, this.options, () => {
      for (const k of out.keys) {
        const n = (this.busy.get(k) ?? 1) - 1;
        if (n === 0) this.busy.delete(k);
        else this.busy.set(k, n);
      }
    });
  }
}
