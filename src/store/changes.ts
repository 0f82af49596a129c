// Saving a changed item together with its audit event: one function, so that no change is stored
// without its event and every event is linked from its item.
import type { AuditStore } from "./audit.js";
import type { ItemStore } from "./items.js";
import type { AuditEvent, ConceptItem, SchemaItem } from "./types.js";

export type ChangeFacts = Pick<AuditEvent, "item_kind" | "action" | "key_id" | "at"> &
  Pick<AuditEvent, "reviewer" | "reverted_to" | "candidate">;

/** An item as recorded inside an event: without its own audit log (which would nest ever deeper). */
function snapshot<T extends SchemaItem | ConceptItem>(item: T): T {
  if (item.audit_log === undefined) return item;
  const { audit_log: _log, ...rest } = item;
  return rest as T;
}

/** Call inside a write transaction. Returns the item as stored (with its audit log extended). */
export function saveChange<T extends SchemaItem | ConceptItem>(
  store: ItemStore<T>,
  audit: AuditStore,
  projectId: string,
  before: T | null,
  after: T,
  facts: ChangeFacts,
): T {
  const seq = audit.append({
    project_id: projectId,
    item_id: after.id,
    version: after.version,
    ...facts,
    before: before && snapshot(before),
    after: snapshot(after),
  });
  const stored = { ...after, audit_log: [...(before?.audit_log ?? []), seq] };
  store.put(projectId, stored, before ?? undefined);
  return stored;
}
