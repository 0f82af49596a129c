// The default journal: an LMDB environment in --journal DIR. A message, its resend key and its answer are
// put in one transaction, and the answer leaves only once that transaction is committed (and, with
// `--durability flush`, flushed to disk). Group commit: the messages kept in one poll phase of the event
// loop, the conversion marks and the forgotten resend keys that came with them go in one transaction at
// its end (see write()).
// Named databases: `messages` (id -> entry, removed once converted), `seen` (resend key -> id, time, answer),
// `expiry` (id -> resend key, to forget keys past the window in id order), `state` (output state, last id).
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { type Database, open, type RootDatabase, TransactionFlags } from "lmdb";
import { AppError } from "../errors.js";
import type { Journal, JournalEntry, KeepResult, OutputState } from "./journal.js";

export type Durability = "flush" | "commit";

export interface LmdbJournalOptions {
  /** How long a resend key is remembered (ms); 0 remembers none. */
  windowMs: number;
  /** `flush`: durable once fsynced (survives power loss); `commit`: once committed (survives a crash). */
  durability: Durability;
}

interface Seen {
  id: number;
  at: number;
  answer: Buffer;
}

type Stored = Omit<JournalEntry, "id">;

/**
 * What waits for the next write: a message to keep, messages to mark converted with the output state, or
 * resend keys past the window to forget (id and key).
 */
type Write =
  | { kind: "keep"; id: number; entry: Stored; resendKey: string; answer: Buffer }
  | { kind: "converted"; ids: readonly number[]; state: OutputState }
  | { kind: "forget"; keys: readonly [number, string][] };
type Queued = Write & { resolve: () => void; reject: (err: Error) => void };

/** Resend keys forgotten per transaction, so that pruning a large backlog never holds the writer long. */
const PRUNE_BATCH = 5000;

export class LmdbJournal implements Journal {
  readonly kind = "lmdb";
  readonly identity: string;
  private readonly root: RootDatabase;
  private readonly messages: Database<Stored, number>;
  private readonly seen: Database<Seen, string>;
  private readonly expiry: Database<string, number>;
  private readonly state: Database<unknown, string>;
  private last: number;
  private pending: number;
  /** Resend keys whose first message is being written: a second copy waits for it. */
  private readonly inflight = new Map<string, { done: Promise<KeepResult>; answer: Buffer }>();
  /** Messages and conversion marks for the next write, in the order they came. */
  private queued: Queued[] = [];
  /** A write is scheduled for the end of this poll phase. */
  private scheduled = false;

  constructor(
    dir: string,
    private readonly options: LmdbJournalOptions,
  ) {
    try {
      mkdirSync(dir, { recursive: true });
      this.root = open({ path: dir, maxDbs: 8 });
    } catch (err) {
      throw new AppError(400, "usage", `--journal ${dir}: cannot open it: ${(err as Error).message}`);
    }
    this.messages = this.root.openDB<Stored, number>({ name: "messages" });
    this.seen = this.root.openDB<Seen, string>({ name: "seen" });
    this.expiry = this.root.openDB<string, number>({ name: "expiry" });
    this.state = this.root.openDB<unknown, string>({ name: "state" });
    this.last = (this.state.get("last") as number | undefined) ?? 0;
    this.pending = this.messages.getCount();
    let identity = this.state.get("identity") as string | undefined;
    if (identity === undefined) {
      identity = randomUUID();
      this.state.putSync("identity", identity);
    }
    this.identity = identity;
  }

  keep(entry: Stored, resendKey: string, answer: Buffer): Promise<KeepResult> {
    const prior = this.inflight.get(resendKey);
    if (prior) {
      return prior.done.then((r) => ({
        kind: "duplicate",
        id: r.id,
        answer: r.kind === "duplicate" ? r.answer : prior.answer,
      }));
    }
    const window = this.options.windowMs;
    if (window > 0) {
      const seen = this.seen.get(resendKey);
      if (seen && seen.at >= entry.at - window) {
        return Promise.resolve({ kind: "duplicate", id: seen.id, answer: Buffer.from(seen.answer) });
      }
    }
    const id = ++this.last;
    const done = this.enqueue({ kind: "keep", id, entry, resendKey, answer }).then((): KeepResult => {
      this.pending++;
      return { kind: "kept", id };
    });
    this.inflight.set(resendKey, { done, answer });
    const forget = () => this.inflight.delete(resendKey);
    done.then(forget, forget);
    return done;
  }

  async *unconverted(): AsyncIterable<JournalEntry> {
    for (const { key, value } of this.messages.getRange()) {
      yield { ...value, id: key, bytes: Buffer.from(value.bytes) };
    }
  }

  async converted(ids: readonly number[], state: OutputState): Promise<void> {
    await this.enqueue({ kind: "converted", ids, state });
    this.pending -= ids.length;
  }

  outputState(): OutputState | undefined {
    return this.state.get("output") as OutputState | undefined;
  }

  pendingCount(): number {
    return this.pending;
  }

  async prune(now: number): Promise<number> {
    const cutoff = now - this.options.windowMs;
    let total = 0;
    for (;;) {
      const batch: [number, string][] = [];
      for (const { key, value } of this.expiry.getRange({ limit: PRUNE_BATCH })) {
        const seen = this.seen.get(value);
        // Ids grow with time: the first key still inside the window ends the sweep.
        if (seen && seen.id === key && seen.at >= cutoff) break;
        batch.push([key, value]);
      }
      if (batch.length === 0) return total;
      await this.enqueue({ kind: "forget", keys: batch });
      total += batch.length;
      if (batch.length < PRUNE_BATCH) return total;
    }
  }

  async close(): Promise<void> {
    // What is queued goes first (a settled caller may still be waiting for it).
    this.write();
    await this.root.close();
  }

  private enqueue(item: Write): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queued.push({ ...item, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      // At the end of the poll phase, so that the frames of every connection read in it go together.
      setImmediate(() => this.write());
    });
  }

  /**
   * Writes everything queued in one transaction and settles it. `flush`: a synchronous transaction on this
   * thread, committed and synced to disk before it returns (fdatasync, then the meta page through LMDB's
   * O_DSYNC descriptor, as lmdb-js's own flush does), so the answers leave right after it. The event loop
   * waits for the sync meanwhile, which costs nothing: frames that arrive wait in the socket buffers and
   * make the next group, as they would wait for the next flush anyway. lmdb-js's asynchronous writes instead
   * hand every group to its write thread on libuv's pool and back, twice (commit, then flush): on a loaded
   * 2-core machine each of those hand-offs waits for a core, which made most of the ACK latency (the same
   * `npm run bench -- mllp` run, MSH-only crossmap, load 19: ACK p50 50 -> 21 ms, listener CPU 3.6 -> 2.8 ms
   * and system calls 24 -> 18 per message). `commit`: asynchronous puts, which lmdb-js commits in one
   * transaction for the event turn, resolving at the commit; it syncs in the background.
   */
  private write(): void {
    this.scheduled = false;
    const batch = this.queued;
    this.queued = [];
    if (batch.length === 0) return;
    if (this.options.durability === "flush") {
      try {
        this.root.transactionSync(() => this.apply(batch), TransactionFlags.SYNCHRONOUS_COMMIT);
      } catch (err) {
        settle(batch, err as Error);
        return;
      }
      settle(batch);
      return;
    }
    let writes: Promise<unknown>[];
    try {
      writes = this.apply(batch);
    } catch (err) {
      settle(batch, err as Error);
      return;
    }
    Promise.all(writes).then(
      () => settle(batch),
      (err: Error) => settle(batch, err),
    );
  }

  /** The writes of a group (inside a synchronous transaction, or as one event turn's asynchronous writes). */
  private apply(batch: readonly Queued[]): Promise<unknown>[] {
    const window = this.options.windowMs;
    const writes = new Set<Promise<unknown>>();
    /** Resend keys written in this group: forgetting an older message's key must not remove them. */
    const written = new Set<string>();
    let last = 0;
    for (const q of batch) {
      if (q.kind === "keep") {
        writes.add(this.messages.put(q.id, q.entry));
        if (window > 0) {
          writes.add(this.seen.put(q.resendKey, { id: q.id, at: q.entry.at, answer: q.answer }));
          writes.add(this.expiry.put(q.id, q.resendKey));
          written.add(q.resendKey);
        }
        last = q.id;
      } else if (q.kind === "converted") {
        for (const id of q.ids) writes.add(this.messages.remove(id));
        writes.add(this.state.put("output", q.state));
      } else {
        for (const [id, key] of q.keys) {
          writes.add(this.expiry.remove(id));
          if (!written.has(key) && this.seen.get(key)?.id === id) writes.add(this.seen.remove(key));
        }
      }
    }
    if (last > 0) writes.add(this.state.put("last", last));
    return [...writes];
  }
}

function settle(batch: readonly Queued[], err?: Error): void {
  for (const q of batch) {
    if (err) q.reject(err);
    else q.resolve();
  }
}
