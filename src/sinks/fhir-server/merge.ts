// Several HL7 v2 messages' transactions sent as one (`--fhir-transaction-messages`): one HTTP exchange per
// ~18-resource message cost more than the server's work on it. Consecutive messages merge while they have
// nothing in common, so the merged Bundle is a valid transaction and means what the messages sent in turn do.
import type { Outgoing } from "./bundles.js";

export interface MergeBounds {
  /** Messages per transaction at most (1: one transaction per message, as they came). */
  messages: number;
  /** Entries per merged transaction at most; a message larger than this goes alone. */
  entries: number;
}

/** A message's transaction, with what it names besides what it writes. */
export interface MessageTransaction<O> {
  outgoing: Outgoing<O>;
  /** Its entries' fullUrls. */
  fullUrls: string[];
  /** Never merged: it writes or refers to resources by a search (see `searches`). */
  alone?: boolean;
}

/**
 * Groups consecutive messages' transactions. A message joins the group unless it writes a key (`Type/id`,
 * a conditional URL, an ifNoneExist query) or names a fullUrl that a message of the group does (FHIR R4
 * http.html#trules: a transaction whose resource identities overlap SHALL fail, and bdl-7: fullUrls are
 * unique within a Bundle); then it starts the next group, which the dispatcher sends only once the earlier
 * answered (they share a key), so each resource is written in input order as before. Within a group no two
 * messages touch one resource, so their order there does not matter, and each message's `urn:uuid:`
 * references still resolve to its own entries (no other message has those fullUrls).
 */
export class TransactionMerger<O> {
  private group: Outgoing<O>[] = [];
  private entries = 0;
  private readonly named = new Set<string>();

  constructor(private readonly bounds: MergeBounds) {}

  /** Takes one message's transaction; returns the transactions ready to send (none, one or two). */
  add(m: MessageTransaction<O>): Outgoing<O>[] {
    const ready: Outgoing<O>[] = [];
    const out = m.outgoing;
    const n = out.entries.length;
    if (this.group.length > 0) {
      const clash =
        m.alone === true ||
        this.entries + n > this.bounds.entries ||
        out.keys.some((k) => this.named.has(k)) ||
        m.fullUrls.some((u) => this.named.has(u));
      if (clash) ready.push(this.take() as Outgoing<O>);
    }
    this.group.push(out);
    this.entries += n;
    for (const k of out.keys) this.named.add(k);
    for (const u of m.fullUrls) this.named.add(u);
    if (m.alone === true || this.group.length >= this.bounds.messages || this.entries >= this.bounds.entries)
      ready.push(this.take() as Outgoing<O>);
    return ready;
  }

  /** The group being made, to send now (the end of the input); undefined when empty. */
  take(): Outgoing<O> | undefined {
    const parts = this.group;
    if (parts.length === 0) return undefined;
    this.group = [];
    this.entries = 0;
    this.named.clear();
    return merged(parts);
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
