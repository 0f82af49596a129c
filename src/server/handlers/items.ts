// Reading items: one, a filtered page, an item's history; with the spec's 404 wording.
import { AppError } from "../../errors.js";
import { type ItemFilter, itemStats, queryItems, type SortKey } from "../../review/listing.js";
import { KIND_LABEL } from "../../review/rules.js";
import type { Stores } from "../../store/env.js";
import type { ItemStore } from "../../store/items.js";
import type { ItemMirror } from "../../store/mirror.js";
import type { AuditEvent, ItemKind, ItemMeta, ItemOf } from "../../store/types.js";

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

/** The mirror of a project's items of one kind, brought up to date: what listing and stats read. */
export function mirrorOf<K extends ItemKind>(
  stores: Stores,
  kind: K,
  projectId: string,
): Promise<ItemMirror<ItemOf<K>>> {
  const cache = kind === "schema" ? stores.mirrors.schema : stores.mirrors.concept;
  return cache.of(projectId) as unknown as Promise<ItemMirror<ItemOf<K>>>;
}

export interface ListRequest extends ItemFilter {
  sort: SortKey;
  limit: number;
  offset: number;
}

/** A sorted, filtered page of items and the number that match. */
export async function listItems<K extends ItemKind>(
  stores: Stores,
  kind: K,
  projectId: string,
  req: ListRequest,
) {
  const items = (await mirrorOf(stores, kind, projectId)).items();
  return queryItems(items, kind, req, req.sort, { limit: req.limit, offset: req.offset });
}

export async function statsOf(stores: Stores, kind: ItemKind, projectId: string) {
  const { total, by_state, ...rest } = itemStats((await mirrorOf(stores, kind, projectId)).items(), kind);
  return { total, [kind === "schema" ? "by_status" : "by_method"]: by_state, ...rest };
}

export function itemHistory(stores: Stores, kind: ItemKind, projectId: string, id: string): AuditEvent[] {
  const item =
    kind === "schema" ? stores.schemaItems.get(projectId, id) : stores.conceptItems.get(projectId, id);
  if (!item) throw itemNotFound(kind, id, projectId);
  return stores.audit.history(projectId, kind, id, item.audit_log ?? []);
}
