// The default journal: an LMDB environment in --journal DIR. A message, its resend key and its answer are
// put in one transaction, and the answer leaves only once that transaction is committed and flushed to disk.
// Named databases: `messages` (id -> entry, removed once converted), `seen` (resend key -> id, time, answer),
// `expiry` (id -> resend key, to forget keys past the window in id order), `state` (output state, last id).
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { type Database, open, type RootDatabase } from "lmdb";
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

  keep(entry: Stored, resendKey: string, answer: Buffer, formerKey?: string): Promise<KeepResult> {
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
      // Under the key an earlier listener made of it, when it differs (kept before an upgrade).
      const seen =
        this.seen.get(resendKey) ?? (formerKey !== undefined ? this.seen.get(formerKey) : undefined);
      if (seen && seen.at >= entry.at - window) {
        return Promise.resolve({ kind: "duplicate", id: seen.id, answer: Buffer.from(seen.answer) });
      }
    }
    const id = ++this.last;
    const committed = this.root.transaction(() => {
      this.messages.putSync(id, entry);
      if (window > 0) {
        this.seen.putSync(resendKey, { id, at: entry.at, answer });
        this.expiry.putSync(id, resendKey);
      }
      this.state.putSync("last", id);
    });
    const done = this.durable(committed).then((): KeepResult => {
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
    await this.durable(
      this.root.transaction(() => {
        for (const id of ids) this.messages.removeSync(id);
        this.state.putSync("output", state);
      }),
    );
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
      await this.root.transaction(() => {
        for (const [id, key] of batch) {
          this.expiry.removeSync(id);
          if (this.seen.get(key)?.id === id) this.seen.removeSync(key);
        }
      });
      total += batch.length;
      if (batch.length < PRUNE_BATCH) return total;
    }
  }

  async close(): Promise<void> {
    await this.root.close();
  }

  private async durable<T>(committed: Promise<T>): Promise<T> {
    const r = await committed;
    // lmdb's overlapping sync resolves a commit before its fsync; flushes cover whole batches.
    if (this.options.durability === "flush") await this.root.flushed;
    return r;
  }
}
