// Several HL7 v2 messages' transactions sent as one (`--fhir-transaction-messages`): one HTTP exchange per
// ~18-resource message cost too much against the server's work on it. Messages merge only with messages
// they have nothing in common with, so the merged Bundle is a valid transaction and writes each resource
// in the order the messages sent one by one do. `crossmap listen` merges what a commit holds here, in the
// order it came; `crossmap map` merges at send time what is ready (dispatcher.ts), with `merged` and
// `searches` from here.
import type { Outgoing } from "./bundles.js";

export interface MergeBounds {
  /** Messages per transaction at most (1: one transaction per message, as they came). */
  messages: number;
  /** Entries per merged transaction at most; a message larger than this goes alone. */
  entries: number;
  /**
   * Transactions being made at once (default 8): how far back a message may join one. Consecutive
   * messages only (1) merged little: 15 of the 22 samples are about one patient, so each of them started a
   * new transaction (bench: 440 messages made 301 transactions; 179 with 8, 175 with 16).
   */
  open?: number;
}

/** A message's transaction, with what it names besides what it writes. */
export interface MessageTransaction<O> {
  outgoing: Outgoing<O>;
  /** Its entries' fullUrls. */
  fullUrls: string[];
  /** Never merged: it writes or refers to resources by a search (see `searches`). */
  alone?: boolean;
}

interface Group<O> {
  parts: Outgoing<O>[];
  entries: number;
  /** The keys and fullUrls of its messages. */
  named: Set<string>;
}

/**
 * Merges messages' transactions in input order. A message may not share a key (`Type/id`, a conditional
 * URL, an ifNoneExist query) or a fullUrl with another in its transaction: FHIR R4 http.html#trules (a
 * transaction whose resource identities overlap SHALL fail) and bdl-7 (fullUrls unique within a Bundle).
 * It joins the first transaction being made that comes after every one it shares something with, and
 * has room; or starts a new one after them. The transactions go out in the order they were started, and the
 * dispatcher sends one that shares a key with an earlier one only once that one has its answer, so each
 * resource is written in input order, as when each message went alone: a message only ever goes before
 * earlier messages it has nothing in common with (as the dispatcher already lets their Bundles do). Each
 * message's `urn:uuid:` references still resolve to its own entries (no other message has those fullUrls).
 */
export class TransactionMerger<O> {
  private readonly open: Group<O>[] = [];
  private readonly most: number;

  constructor(private readonly bounds: MergeBounds) {
    this.most = Math.max(1, bounds.open ?? 8);
  }

  /** Takes one message's transaction; returns the transactions ready to send, in order. */
  add(m: MessageTransaction<O>): Outgoing<O>[] {
    const out = m.outgoing;
    if (m.alone === true || this.bounds.messages <= 1) return [...this.drain(), out];
    const ready: Outgoing<O>[] = [];
    const n = out.entries.length;
    const open = this.open;
    let at = 0;
    for (let i = open.length - 1; i >= 0; i--) {
      const named = (open[i] as Group<O>).named;
      if (out.keys.some((k) => named.has(k)) || m.fullUrls.some((u) => named.has(u))) {
        at = i + 1;
        break;
      }
    }
    while (at < open.length && !this.fits(open[at] as Group<O>, n)) at++;
    if (at === open.length) {
      if (open.length >= this.most) {
        ready.push(merged((open.shift() as Group<O>).parts));
        at--;
      }
      open.push({ parts: [], entries: 0, named: new Set() });
    }
    const g = open[at] as Group<O>;
    g.parts.push(out);
    g.entries += n;
    for (const k of out.keys) g.named.add(k);
    for (const u of m.fullUrls) g.named.add(u);
    // The oldest ones that are full go now; a full one behind an open one waits its turn.
    while (open.length > 0 && this.full(open[0] as Group<O>))
      ready.push(merged((open.shift() as Group<O>).parts));
    return ready;
  }

  /** Every transaction being made, in order, to send now (the end of the input). */
  drain(): Outgoing<O>[] {
    return this.open.splice(0).map((g) => merged(g.parts));
  }

  /** Entries not sent yet. */
  get pending(): number {
    return this.open.reduce((sum, g) => sum + g.entries, 0);
  }

  private fits(g: Group<O>, n: number): boolean {
    return g.parts.length < this.bounds.messages && g.entries + n <= this.bounds.entries;
  }

  private full(g: Group<O>): boolean {
    return g.parts.length >= this.bounds.messages || g.entries >= this.bounds.entries;
  }
}

/** One transaction of the parts' entries, in their order; a lone part is sent as it is (its Bundle id kept). */
export function merged<O>(parts: Outgoing<O>[]): Outgoing<O> {
  if (parts.length === 1) return parts[0] as Outgoing<O>;
  const out: Outgoing<O> = { type: "transaction", entries: [], requests: [], origins: [], keys: [], parts };
  for (const p of parts) {
    for (const e of p.entries) out.entries.push(e);
    for (const r of p.requests) out.requests.push(r);
    for (const o of p.origins) out.origins.push(o);
    for (const k of p.keys) out.keys.push(k);
  }
  return out;
}

/**
 * Whether a message's transaction finds resources by a search: a conditional write (`PUT Type?query`, a
 * POST with ifNoneExist: its key has the query) or a conditional reference (`"reference":"Type?query"`).
 * Such a message goes alone. The server resolves searches before it applies the transaction (FHIR R4
 * http.html#trules), so in a merged one they would not see what an earlier message of the group writes, as
 * they do when the messages go in turn; and a server may run such a transaction under stricter isolation
 * with a low entry limit (Medplum 4: 8 entries, fhir-router's Bundle processing).
 */
export function searches(out: Outgoing<unknown>): boolean {
  for (const k of out.keys) if (k.includes("?")) return true;
  for (const e of out.entries) if (CONDITIONAL_REFERENCE.test(e)) return true;
  return false;
}

const CONDITIONAL_REFERENCE = /"reference":"[A-Za-z]+\?/;
