// The dispatcher of HL7 v2 messages' transactions when they are merged (`--fhir-transaction-messages` > 1):
// as dispatcher.ts, a message that writes a resource an earlier one writes waits for that one's answer, and
// the others go past it; and when a request can start, the messages ready to go (waiting for none) are sent
// as one transaction within the bounds. Each message's dependencies are counted once, when it is queued,
// instead of rescanning the queue's keys at every answer: its window holds messages, not Bundles, and
// rescanning 160 of them cost more than the merging saved. Without merging dispatcher.ts is used: for
// 100-resource batches its scan is cheap, and keeping every queued key in a map here cost the OMOP writer
// process a fifth more CPU (measured).
import type { Outgoing } from "./bundles.js";
import { type MergeBounds, merged } from "./merge.js";
import { type Delivering, SendQueue } from "./send-queue.js";

export interface MergingDispatcherOptions<O> extends Delivering<O> {
  /** Bundles in flight at once. */
  concurrency: number;
  /**
   * Messages queued at most (default 4 x concurrency x `merge.messages`): how far past a waiting message
   * the dispatcher looks for ones it may send. A run of one patient's messages waits in it while other
   * patients' go by; the more independent messages it holds, the more each transaction can take while
   * several are in flight.
   */
  window?: number;
  /**
   * When a request can start, the ready messages (those that wait for no earlier one) that were submitted
   * as mergeable go as one transaction, in input order, within these bounds. Ready messages never share a
   * key (a later one waits for an earlier one it shares a key with), so only fullUrls are checked.
   */
  merge: MergeBounds;
}

/** A submitted Bundle until its answer: what it waits for and what waits for it. */
interface Item<O> {
  out: Outgoing<O>;
  seq: number;
  /** Earlier Bundles, not yet answered, it shares a key with. */
  waits: number;
  /** Later Bundles that share a key with it (each once). */
  dependents: Item<O>[];
  /** The last Bundle added to `dependents` (so that one sharing two keys with it is added once). */
  lastDependent: Item<O> | undefined;
  /** Its fullUrls when it may be merged with others; undefined: it goes alone. */
  fullUrls: string[] | undefined;
  /** Forgotten by `discard`: never started. */
  dropped: boolean;
}

export class MergingDispatcher<O> extends SendQueue {
  /** Per key, the last submitted Bundle writing it that has no answer yet. */
  private readonly lastWriter = new Map<string, Item<O>>();
  /** Bundles not started yet (waiting or ready). */
  private readonly pending = new Set<Item<O>>();
  /** Bundles that wait for nothing, in input order. */
  private ready: Item<O>[] = [];
  private seq = 0;
  private pumpSoon = false;
  private readonly window: number;

  constructor(private readonly options: MergingDispatcherOptions<O>) {
    super();
    const per = Math.max(1, options.merge.messages);
    this.window = Math.max(options.window ?? options.concurrency * 4 * per, options.concurrency, 1);
  }

  /**
   * Queues a Bundle; resolves once there is room for the next. `mergeable`: its fullUrls, when it may go in
   * one transaction with other messages'. Throws the failure that stopped sending.
   */
  async submit(out: Outgoing<O>, mergeable?: { fullUrls: string[] }): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    const item: Item<O> = {
      out,
      seq: this.seq++,
      waits: 0,
      dependents: [],
      lastDependent: undefined,
      fullUrls: mergeable?.fullUrls,
      dropped: false,
    };
    for (const k of out.keys) {
      const before = this.lastWriter.get(k);
      if (before !== undefined && before !== item && before.lastDependent !== item) {
        before.dependents.push(item);
        before.lastDependent = item;
        item.waits++;
      }
      this.lastWriter.set(k, item);
    }
    this.pending.add(item);
    if (item.waits === 0) this.ready.push(item);
    if (!this.pumpSoon) {
      // The messages the pipeline hands over in one go (a chunk of its output) are let gather first, so
      // that a free request takes them together instead of the first alone.
      this.pumpSoon = true;
      setImmediate(() => {
        this.pumpSoon = false;
        this.pump();
      });
    }
    await this.room(this.window);
  }

  protected queued(): number {
    return this.pending.size;
  }

  /** Forgets the Bundles not yet sent (a stopped run) and returns their entries; those in flight finish. */
  discard(): number {
    let n = 0;
    for (const item of this.pending) {
      n += item.out.entries.length;
      item.dropped = true;
    }
    this.pending.clear();
    this.ready = [];
    for (const [k, item] of this.lastWriter) if (item.dropped) this.lastWriter.delete(k);
    this.wake();
    return n;
  }

  /** Starts ready Bundles in input order while there is room, the mergeable ones merged. */
  protected pump(): void {
    const bounds = this.options.merge;
    let started = false;
    while (this.failure === undefined && this.inFlight < this.options.concurrency && this.ready.length > 0) {
      started = true;
      const first = this.ready[0] as Item<O>;
      if (first.fullUrls === undefined || this.ready.length === 1) {
        this.ready.shift();
        this.start([first]);
        continue;
      }
      this.start(this.take(bounds));
    }
    // What started left the queue: a pipeline held back by a full queue may go on.
    if (started && this.pending.size < this.window) this.wakeSubmitter();
  }

  /**
   * The ready messages that go in one transaction: the first, then each later mergeable one that fits the
   * bounds and names no fullUrl already taken, in input order; the rest stay ready.
   */
  private take(bounds: MergeBounds): Item<O>[] {
    const first = this.ready[0] as Item<O>;
    const taken: Item<O>[] = [first];
    let entries = first.out.entries.length;
    if (entries >= bounds.entries) {
      this.ready.shift();
      return taken;
    }
    const named = new Set(first.fullUrls);
    const rest: Item<O>[] = [];
    const ready = this.ready;
    let i = 1;
    for (; i < ready.length && taken.length < bounds.messages && entries < bounds.entries; i++) {
      const item = ready[i] as Item<O>;
      const n = item.out.entries.length;
      const urls = item.fullUrls;
      if (urls === undefined || entries + n > bounds.entries || urls.some((u) => named.has(u))) {
        rest.push(item);
        continue;
      }
      for (const u of urls) named.add(u);
      taken.push(item);
      entries += n;
    }
    for (; i < ready.length; i++) rest.push(ready[i] as Item<O>);
    this.ready = rest;
    return taken;
  }

  private start(items: Item<O>[]): void {
    for (const item of items) this.pending.delete(item);
    const out = items.length === 1 ? (items[0] as Item<O>).out : merged(items.map((i) => i.out));
    this.send(out, this.options, () => {
      for (const item of items) this.answered(item);
    });
  }

  /** Frees the keys of a Bundle that has its answer; the Bundles that waited only for it become ready. */
  private answered(item: Item<O>): void {
    for (const k of item.out.keys) if (this.lastWriter.get(k) === item) this.lastWriter.delete(k);
    let freed = false;
    for (const d of item.dependents) {
      if (--d.waits === 0 && !d.dropped) {
        this.ready.push(d);
        freed = true;
      }
    }
    // Ready Bundles start in input order.
    if (freed) this.ready.sort((a, b) => a.seq - b.seq);
  }
}
