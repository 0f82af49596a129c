// Reading items: one, a filtered page, an item's history; with the spec's 404 wording.
import { AppError } from "../../errors.js";
import { KIND_LABEL } from "../../review/rules.js";
import type { Stores } from "../../store/env.js";
import type { ItemStore, Page } from "../../store/items.js";
import type { AuditEvent, ConceptItem, ItemKind, ItemMeta, SchemaItem } from "../../store/types.js";

export const itemNotFound = (kind: ItemKind, id: string, projectId: string): AppError =>
  new AppError(404, "not_found", `${KIND_LABEL[kind]} ${id} not found in project ${projectId}`);

export const projectNotFound = (projectId: string): AppError =>
  new AppError(404, "not_found", `Project ${projectId} not found`);

export function getItem<T extends ItemMeta>(
  store: ItemStore<T>,
  kind: ItemKind,
  projectId: string,
  id: string,
): T {
  const item = store.get(projectId, id);
  if (!item) throw itemNotFound(kind, id, projectId);
  return item;
}

export interface ListFilter {
  status?: string | undefined;
  method?: string | undefined;
  min_confidence?: number | undefined;
  max_confidence?: number | undefined;
}

/** A page of items; confidence bounds are inclusive and exclude items without a confidence. */
export function listItems<T extends SchemaItem | ConceptItem>(
  store: ItemStore<T>,
  projectId: string,
  filter: ListFilter,
  page: Page,
) {
  const { status, method, min_confidence: lo, max_confidence: hi } = filter;
  const wanted = (item: T): boolean => {
    if (status !== undefined && "status" in item && item.status !== status) return false;
    if (method !== undefined && "method" in item && item.method !== method) return false;
    if (lo !== undefined || hi !== undefined) {
      if (item.confidence === null) return false;
      if (lo !== undefined && item.confidence < lo) return false;
      if (hi !== undefined && item.confidence > hi) return false;
    }
    return true;
  };
  return store.list(projectId, page, wanted);
}

export function itemHistory(stores: Stores, kind: ItemKind, projectId: string, id: string): AuditEvent[] {
  const item =
    kind === "schema" ? stores.schemaItems.get(projectId, id) : stores.conceptItems.get(projectId, id);
  if (!item) throw itemNotFound(kind, id, projectId);
  return stores.audit.history(projectId, kind, id, item.audit_log ?? []);
}
