// Approve, reject, override: one transaction that checks the version, applies the rule, stores the
// item and appends its audit event; resolves only after the commit.
import {
  type ConceptOverride,
  KIND_LABEL,
  type ReviewAction,
  reviewConceptItem,
  reviewSchemaItem,
  type SchemaOverride,
} from "../../review/rules.js";
import { saveChange } from "../../store/changes.js";
import type { Stores } from "../../store/env.js";
import type { ItemStore } from "../../store/items.js";
import { nowIso } from "../../store/keys-util.js";
import type { ConceptItem, ItemKind, SchemaItem } from "../../store/types.js";
import { checkIfMatch, type IfMatch } from "../if-match.js";
import { getItem } from "./items.js";

export interface ReviewRequest<B> {
  projectId: string;
  itemId: string;
  action: ReviewAction;
  body?: B;
  keyId: string | null;
  ifMatch: IfMatch;
}

export const reviewSchema = (stores: Stores, req: ReviewRequest<SchemaOverride>): Promise<SchemaItem> =>
  review(stores, stores.schemaItems, "schema", req, (item) =>
    reviewSchemaItem(item, req.projectId, req.action, req.body),
  );

export const reviewConcept = (stores: Stores, req: ReviewRequest<ConceptOverride>): Promise<ConceptItem> =>
  review(stores, stores.conceptItems, "concept", req, (item) =>
    reviewConceptItem(item, req.projectId, req.action, req.body),
  );

function review<T extends SchemaItem | ConceptItem, B>(
  stores: Stores,
  store: ItemStore<T>,
  kind: ItemKind,
  req: ReviewRequest<B>,
  rule: (item: T) => T,
): Promise<T> {
  // Everything, including the version check, runs inside the write transaction: two concurrent
  // reviews with the same If-Match are serialised there, so exactly one of them wins.
  return stores.write(() => {
    const before = getItem(store, kind, req.projectId, req.itemId);
    checkIfMatch(req.ifMatch, before.version, `${KIND_LABEL[kind]} ${before.id} in project ${req.projectId}`);
    const now = nowIso();
    const after: T = { ...rule(before), version: before.version + 1, updated_at: now, reviewed_at: now };
    saveChange(store, stores.audit, req.projectId, before, after, {
      item_kind: kind,
      action: req.action,
      key_id: req.keyId,
      at: now,
    });
    return after;
  });
}
