// Audit events: an append-only log of every change to an item, read back as the item's history.
//
// Events are keyed by a sequence number, so each write transaction appends to the rightmost page of
// the log instead of touching a page per item, and each item records the sequence numbers of its own
// events (ItemMeta.audit_log) on the page it is rewritten to anyway. Keying events by item, as the first
// layout did (still read, as `legacy`), cost every review a second random page to write and fsync: with
// it, review requests were bounded at ~0.27x the /healthz rate by commit latency; without, ~0.45x.
import type { Database } from "lmdb";
import { prefixRange } from "./keys-util.js";
import type { AuditEvent, ItemKind } from "./types.js";

export class AuditStore {
  /** The last sequence number this process appended: the next one is checked, not searched for. */
  private last = -1;
  /**
   * While set (during one write callback, see env.ts), appended events are also collected here, so
   * that they can be handed to the in-memory mirrors once the transaction has committed.
   */
  capture: [number, AuditEvent][] | undefined;

  constructor(
    /** sequence number -> event (MDB_INTEGERKEY). */
    private readonly log: Database<AuditEvent, number>,
    /** project + kind + item + version -> event: events written before the log existed. */
    private readonly legacy: Database<AuditEvent, string>,
  ) {}

  /**
   * Call inside a write transaction, in the same one as the change it records; returns the event's
   * sequence number, for the item's audit_log.
   */
  append(event: AuditEvent): number {
    // Another process (or a rolled-back transaction) may have moved the end of the log: then look it up.
    let seq = this.last + 1;
    if (this.last < 0 || this.log.doesExist(seq) || !this.log.doesExist(this.last)) {
      seq = this.lastSeq() + 1;
    }
    this.log.put(seq, event);
    this.last = seq;
    this.capture?.push([seq, event]);
    return seq;
  }

  /** The sequence number of the newest event, 0 when the log is empty: one B-tree descent. */
  lastSeq(): number {
    for (const key of this.log.getKeys({ reverse: true, limit: 1 })) return key;
    return 0;
  }

  get(seq: number): AuditEvent | undefined {
    return this.log.get(seq);
  }

  /** Oldest first: the legacy events of the item, then those of its audit log. */
  history(projectId: string, kind: ItemKind, itemId: string, auditLog: readonly number[]): AuditEvent[] {
    const events = [...this.legacy.getRange(prefixRange(projectId, kind, itemId)).map(({ value }) => value)];
    for (const seq of auditLog) {
      const event = this.log.get(seq);
      if (event) events.push(event);
    }
    return events;
  }
}
