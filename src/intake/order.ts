// Per-key order: messages are queued on each of their keys in arrival order and handed out only when
// they head every one of their queues (and the journal has kept them). Keys are independent, so one slow
// patient stalls only its own messages; a merge naming two patients waits for both, and since every
// message is queued on all its keys at once, in one global order, two such messages cannot wait on
// each other. A message whose sender waits for its conversion (no answer until then) goes first among
// the ready ones, and so do the messages ahead of it on its keys, which it cannot pass.
// A message of one key may also go while the messages ahead of it are still being converted: it is handed
// out `after` the one right ahead. It is converted side by side with those (a conversion depends on its
// message alone: on that one's thread while it has room, as a batch, else on another) and its outcome goes
// to the output only after theirs (intake.ts), so a busy patient's messages use every thread and still
// come out in arrival order.

export interface Queued<T> {
  readonly keys: readonly string[];
  readonly value: T;
  /** Keys whose queue this item does not head yet. */
  waiting: number;
  kept: boolean;
  state: "queued" | "ready" | "out" | "gone";
  /** Handed out before the others: its sender waits for it, or a message that does waits behind it. */
  urgent: boolean;
  /**
   * Set when it became ready while the message right ahead of it on its key was out (being converted):
   * that message, whose outcome must go to the output first.
   */
  after?: Queued<T>;
}

/** Items in the order they became ready; taking skips those no longer ready (handed out or cancelled). */
class ReadyList<T> {
  private items: Queued<T>[] = [];
  private head = 0;

  push(item: Queued<T>): void {
    this.items.push(item);
  }

  take(): Queued<T> | undefined {
    while (this.head < this.items.length) {
      const item = this.items[this.head++] as Queued<T>;
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      if (item.state === "ready") return item;
    }
    return undefined;
  }
}

/**
 * Messages of one key out at once at most, by default (the listener gives half of what its conversion
 * threads hold: intake.ts). More lets a busy key's messages be converted side by side on more threads, and
 * makes a message whose sender waits for its conversion wait behind fuller batches. `npm run bench --
 * mllp`, 8 connections, the samples as they are (14 of 22 about one patient), 2 threads, each against the
 * build that kept a key's messages on one thread with 8 out at once (in the same runs): 16 out, 888 ->
 * 1,156 converted/s, ACK p99 29.5 -> 39.4 ms; 32 out, 805 -> 1,027, 35.7 -> 54.0 ms.
 */
export const MAX_CHAIN = 8;

export class KeyedOrder<T> {
  private readonly queues = new Map<string, Queued<T>[]>();
  private readonly ready = new ReadyList<T>();
  private readonly urgentReady = new ReadyList<T>();
  private count = 0;

  constructor(private readonly maxChain = MAX_CHAIN) {}

  /** Messages queued, ready or out (not yet done or cancelled). */
  get size(): number {
    return this.count;
  }

  /**
   * Queues a message on its keys, in arrival order; it is not handed out before `kept`. An urgent one (its
   * sender waits for its conversion) goes before the others once ready, and so do those ahead of it.
   */
  add(keys: readonly string[], value: T, urgent = false): Queued<T> {
    const item: Queued<T> = { keys, value, waiting: 0, kept: false, state: "queued", urgent };
    for (const k of keys) {
      const q = this.queues.get(k);
      if (q === undefined) this.queues.set(k, [item]);
      else {
        q.push(item);
        item.waiting++;
      }
    }
    this.count++;
    if (urgent) this.hurry(item, undefined);
    return item;
  }

  /**
   * Makes urgent every message ahead of `item` on its keys (but `skip`, whose queue the caller walks), and
   * those ahead of them on their other keys in turn. Everything ahead of an urgent message is urgent
   * already, so each queue is walked back only to the first urgent one.
   */
  private hurry(item: Queued<T>, skip: string | undefined): void {
    for (const k of item.keys) {
      if (k === skip) continue;
      const q = this.queues.get(k) as Queued<T>[];
      for (let i = q.lastIndexOf(item) - 1; i >= 0; i--) {
        const ahead = q[i] as Queued<T>;
        if (ahead.urgent) break;
        ahead.urgent = true;
        if (ahead.state === "ready") this.urgentReady.push(ahead);
        if (ahead.keys.length > 1) this.hurry(ahead, k);
      }
    }
  }

  /** The journal kept it: it may be handed out once it heads all its queues. */
  kept(item: Queued<T>): void {
    item.kept = true;
    this.promote(item);
  }

  /**
   * The next message to convert, or undefined. When it has `after`, its outcome goes to the output after
   * that message's; a message of one key that waits right behind it may then go too (behind it in turn).
   */
  take(): Queued<T> | undefined {
    const item = this.urgentReady.take() ?? this.ready.take();
    if (item === undefined) return undefined;
    item.state = "out";
    for (const k of item.keys) {
      const q = this.queues.get(k) as Queued<T>[];
      const at = q.indexOf(item) + 1;
      const next = q[at];
      if (next !== undefined) this.chain(next, item, at);
    }
    return item;
  }

  /** Its conversion is written: the next message of each of its keys may go. */
  done(item: Queued<T>): void {
    this.remove(item);
  }

  /** It will not be converted here (a resend of a message already kept, or a failed keep). */
  cancel(item: Queued<T>): void {
    this.remove(item);
  }

  private remove(item: Queued<T>): void {
    if (item.state === "gone") return;
    item.state = "gone";
    item.after = undefined;
    this.count--;
    for (const k of item.keys) {
      const q = this.queues.get(k) as Queued<T>[];
      const at = q.indexOf(item);
      q.splice(at, 1);
      if (q.length === 0) {
        this.queues.delete(k);
        continue;
      }
      if (at === 0) {
        const next = q[0] as Queued<T>;
        next.waiting--;
        this.promote(next);
      }
      // One fewer of the key out, or the one behind it now right behind another: the first one waiting
      // behind those out may go.
      for (let i = 1; i < q.length && i <= this.maxChain; i++) {
        const behind = q[i] as Queued<T>;
        if (behind.state === "queued") this.chain(behind, q[i - 1] as Queued<T>, i);
        if (behind.state !== "out") break;
      }
    }
  }

  private promote(item: Queued<T>): void {
    if (item.state !== "queued" || !item.kept) return;
    if (item.waiting === 0) this.makeReady(item);
    else if (item.keys.length === 1) {
      // Not at the head: it may go behind the one right ahead if that one is out.
      const q = this.queues.get(item.keys[0] as string) as Queued<T>[];
      const at = q.lastIndexOf(item);
      const ahead = q[at - 1];
      if (ahead !== undefined) this.chain(item, ahead, at);
    }
  }

  /**
   * `item` is right behind `ahead` on a key; when `item` has only that key, is kept and `ahead` is out, it
   * may go behind `ahead`, unless `maxChain` of the key are out (`at`: its place in the queue). Everything
   * ahead of an out message on its keys is out too (or done), so the messages of one key that are out are
   * the head of its queue, in their order.
   */
  private chain(item: Queued<T>, ahead: Queued<T>, at: number): void {
    if (item.keys.length !== 1 || !item.kept || item.state !== "queued" || ahead.state !== "out") return;
    if (at >= this.maxChain) return;
    item.after = ahead;
    this.makeReady(item);
  }

  private makeReady(item: Queued<T>): void {
    item.state = "ready";
    (item.urgent ? this.urgentReady : this.ready).push(item);
  }
}
