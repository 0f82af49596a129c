// Audit events: an append-only log of every change to an item, read back as the item's history.
import type { Database } from "lmdb";
import { compositeKey, prefixRange } from "./keys-util.js";
import type { AuditEvent, ItemKind } from "./types.js";

// Zero-padded so that string order is version order.
const pad = (n: number): string => String(n).padStart(10, "0");

export class AuditStore {
  constructor(private readonly db: Database<AuditEvent, string>) {}

  /** Call inside a write transaction, in the same one as the change it records. */
  append(event: AuditEvent): void {
    this.db.put(compositeKey(event.project_id, event.item_kind, event.item_id, pad(event.version)), event);
  }

  /** Oldest first. */
  history(projectId: string, kind: ItemKind, itemId: string): AuditEvent[] {
    return [...this.db.getRange(prefixRange(projectId, kind, itemId)).map(({ value }) => value)];
  }
}
