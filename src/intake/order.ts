// Per-key order: messages are queued on each of their keys in arrival order and handed out only when
// they head every one of their queues (and the journal has kept them). Keys are independent, so one slow
// patient stalls only its own messages; a merge naming two patients waits for both, and since every
// message is queued on all its keys at once, in one global order, two such messages cannot wait on
// each other.

export interface Queued<T> {
  readonly keys: readonly string[];
  readonly value: T;
  /** Keys whose queue this item does not head yet. */
  waiting: number;
  kept: boolean;
  state: "queued" | "ready" | "out" | "gone";
}

export class KeyedOrder<T> {
  private readonly queues = new Map<string, Queued<T>[]>();
  private ready: Queued<T>[] = [];
  private readyHead = 0;
  private count = 0;

  /** Messages queued, ready or out (not yet done or cancelled). */
  get size(): number {
    return this.count;
  }

  /** Queues a message on its keys, in arrival order; it is not handed out before `kept`. */
  add(keys: readonly string[], value: T): Queued<T> {
    const item: Queued<T> = { keys, value, waiting: 0, kept: false, state: "queued" };
    for (const k of keys) {
      const q = this.queues.get(k);
      if (q === undefined) this.queues.set(k, [item]);
      else {
        q.push(item);
        item.waiting++;
      }
    }
    this.count++;
    return item;
  }

  /** The journal kept it: it may be handed out once it heads all its queues. */
  kept(item: Queued<T>): void {
    item.kept = true;
    this.promote(item);
  }

  /** The next message to convert, or undefined. */
  take(): Queued<T> | undefined {
    while (this.readyHead < this.ready.length) {
      const item = this.ready[this.readyHead++] as Queued<T>;
      if (this.readyHead > 1024 && this.readyHead * 2 > this.ready.length) {
        this.ready = this.ready.slice(this.readyHead);
        this.readyHead = 0;
      }
      if (item.state === "ready") {
        item.state = "out";
        return item;
      }
    }
    return undefined;
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
      this.ready.push(item);
    }
  }
}
