// Per-key order: messages are queued on each of their keys in arrival order and handed out only when
// they head every one of their queues (and the journal has kept them). Keys are independent, so one slow
// patient stalls only its own messages; a merge naming two patients waits for both, and since every
// message is queued on all its keys at once, in one global order, two such messages cannot wait on
// each other. A message whose sender waits for its conversion (no answer until then) goes first among
// the ready ones, and so do the messages ahead of it on its keys, which it cannot pass.

export interface Queued<T> {
  readonly keys: readonly string[];
  readonly value: T;
  /** Keys whose queue this item does not head yet. */
  waiting: number;
  kept: boolean;
  state: "queued" | "ready" | "out" | "gone";
  /** Handed out before the others: its sender waits for it, or a message that does waits behind it. */
  urgent: boolean;
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

export class KeyedOrder<T> {
  private readonly queues = new Map<string, Queued<T>[]>();
  private readonly ready = new ReadyList<T>();
  private readonly urgentReady = new ReadyList<T>();
  private count = 0;

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

  /** The next message to convert, or undefined. */
  take(): Queued<T> | undefined {
    const item = this.urgentReady.take() ?? this.ready.take();
    if (item !== undefined) item.state = "out";
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
    }
  }

  private promote(item: Queued<T>): void {
    if (item.kept && item.waiting === 0 && item.state === "queued") {
      item.state = "ready";
      (item.urgent ? this.urgentReady : this.ready).push(item);
    }
  }
}
