// Approve, reject, override, comment and revert of one item: each one transaction that checks the
// version, applies the rule, stores the item and appends its audit event; resolves only after the commit.
// `decideInTransaction` is the part bulk decisions (bulk.ts) repeat per item inside their one transaction.
import { AppError } from "../../errors.js";
import {
  type ConceptOverride,
  chooseCandidate,
  KIND_LABEL,
  type ReviewAction,
  restoreDecision,
  reviewConceptItem,
  reviewSchemaItem,
  type SchemaOverride,
} from "../../review/rules.js";
import { type ChangeFacts, saveChange } from "../../store/changes.js";
import type { Stores } from "../../store/env.js";
import type { ItemStore } from "../../store/items.js";
import { nowIso } from "../../store/keys-util.js";
import type { AuditAction, ConceptItem, ItemKind, ItemOf, SchemaItem } from "../../store/types.js";
import { checkIfMatch, type IfMatch } from "../if-match.js";
import { getItem } from "./items.js";

/** Who makes a change: recorded in its audit event. */
export interface Actor {
  keyId: string | null;
  reviewer: string | null;
}

export interface ReviewRequest<B> extends Actor {
  projectId: string;
  itemId: string;
  action: ReviewAction;
  body?: B;
  ifMatch: IfMatch;
}

export const storeOf = <K extends ItemKind>(stores: Stores, kind: K): ItemStore<ItemOf<K>> =>
  (kind === "schema" ? stores.schemaItems : stores.conceptItems) as unknown as ItemStore<ItemOf<K>>;

const what = (kind: ItemKind, id: string, projectId: string) =>
  `${KIND_LABEL[kind]} ${id} in project ${projectId}`;

/**
 * Call inside a write transaction. Applies one decision and returns the item as stored; throws the
 * AppError the single-item endpoint would answer (404, 409, 412) and writes nothing then.
 */
export function decideInTransaction<K extends ItemKind>(
  stores: Stores,
  kind: K,
  req: ReviewRequest<K extends "schema" ? SchemaOverride : ConceptOverride>,
): ItemOf<K> {
  const store = storeOf(stores, kind);
  const before = getItem(store, kind, req.projectId, req.itemId);
  checkIfMatch(req.ifMatch, before.version, what(kind, before.id, req.projectId));
  const ruled =
    kind === "schema"
      ? reviewSchemaItem(before as SchemaItem, req.projectId, req.action, req.body as SchemaOverride)
      : reviewConceptItem(before as ConceptItem, req.projectId, req.action, req.body as ConceptOverride);
  const now = nowIso();
  const after = { ...ruled, version: before.version + 1, updated_at: now, reviewed_at: now } as ItemOf<K>;
  return saveChange(store, stores.audit, req.projectId, before, after, facts(kind, req.action, req, now));
}

// Everything, including the version check, runs inside the write transaction: two concurrent reviews
// with the same If-Match are serialised there, so exactly one of them wins.

export const reviewSchema = (stores: Stores, req: ReviewRequest<SchemaOverride>): Promise<SchemaItem> =>
  stores.write(() => decideInTransaction(stores, "schema", req));

export const reviewConcept = (stores: Stores, req: ReviewRequest<ConceptOverride>): Promise<ConceptItem> =>
  stores.write(() => decideInTransaction(stores, "concept", req));

/**
 * Chooses candidate k of an item's ranked candidates as its target (rules.ts chooseCandidate): a review
 * decision, audited as `choose` with the candidate's position, in one transaction with its version check.
 */
export function choose<K extends ItemKind>(
  stores: Stores,
  kind: K,
  req: ItemRequest & { candidate: number; comment?: string | null | undefined },
): Promise<ItemOf<K>> {
  return change(
    stores,
    kind,
    req,
    "choose",
    (item) => chooseCandidate(kind, item, req.projectId, req.candidate, req.comment),
    { candidate: req.candidate },
    true,
  );
}

export interface ItemRequest extends Actor {
  projectId: string;
  itemId: string;
  ifMatch: IfMatch;
}

/** Sets (or, with null, clears) the item's comment: a new version, audited; not a review decision. */
export function commentOn<K extends ItemKind>(
  stores: Stores,
  kind: K,
  req: ItemRequest & { comment: string | null },
): Promise<ItemOf<K>> {
  return change(stores, kind, req, "comment", (item) => ({ ...item, comment: req.comment }));
}

/**
 * Restores the decision the item had at `toVersion` (status or method, targets, reviewed_at) as a new
 * version: undo that keeps the history. 422 when the item never had that version.
 */
export function revertTo<K extends ItemKind>(
  stores: Stores,
  kind: K,
  req: ItemRequest & { toVersion: number },
): Promise<ItemOf<K>> {
  return change(
    stores,
    kind,
    req,
    "revert",
    (item) => {
      const past = stores.audit
        .history(req.projectId, kind, item.id, item.audit_log ?? [])
        .find((e) => e.version === req.toVersion)?.after as ItemOf<K> | undefined;
      if (!past) {
        throw new AppError(422, "validation_error", "Invalid request", [
          {
            path: ["body", "to_version"],
            message: `${what(kind, item.id, req.projectId)} has no version ${req.toVersion}`,
            code: "value_error.version",
          },
        ]);
      }
      return restoreDecision(item, past);
    },
    { reverted_to: req.toVersion },
  );
}

function change<K extends ItemKind>(
  stores: Stores,
  kind: K,
  req: ItemRequest,
  action: AuditAction,
  edit: (item: ItemOf<K>) => ItemOf<K>,
  extra: Pick<ChangeFacts, "reverted_to" | "candidate"> = {},
  /** A review decision: sets reviewed_at, so a push no longer overwrites the item. */
  decision = false,
): Promise<ItemOf<K>> {
  return stores.write(() => {
    const store = storeOf(stores, kind);
    const before = getItem(store, kind, req.projectId, req.itemId);
    checkIfMatch(req.ifMatch, before.version, what(kind, before.id, req.projectId));
    const now = nowIso();
    const after = {
      ...edit(before),
      version: before.version + 1,
      updated_at: now,
      ...(decision ? { reviewed_at: now } : {}),
    };
    return saveChange(store, stores.audit, req.projectId, before, after, {
      ...facts(kind, action, req, now),
      ...extra,
    });
  });
}

export const facts = (kind: ItemKind, action: AuditAction, actor: Actor, at: string): ChangeFacts => ({
  item_kind: kind,
  action,
  key_id: actor.keyId,
  reviewer: actor.reviewer,
  at,
});
