// What approve, reject, override and choosing a ranked candidate do to a schema or concept mapping item:
// the spec's state table, plus the one rule it leaves open that we close (approving needs a suggestion).
import { AppError } from "../errors.js";
import type { ConceptItem, Equivalence, ItemKind, ItemOf, SchemaItem } from "../store/types.js";

export type ReviewAction = "approve" | "reject" | "override";

export interface SchemaOverride {
  target_table: string;
  target_column: string;
  /** Left out: the item's comment stays as it is. */
  comment?: string | null | undefined;
}

export interface ConceptOverride {
  target_concept_id: number;
  target_concept_name?: string | null | undefined;
  target_vocabulary_id?: string | null | undefined;
  /** Left out: null, like the name and vocabulary (they describe the old concept). */
  equivalence?: Equivalence | null | undefined;
  /** Left out: the item's comment stays as it is. */
  comment?: string | null | undefined;
}

/** How error messages name an item kind, e.g. "Schema mapping sm_1 not found in project p". */
export const KIND_LABEL: Record<ItemKind, string> = { schema: "Schema mapping", concept: "Concept mapping" };

// Any prior state may be reviewed again: a reviewer who approved by mistake must be able to reject,
// and the audit log keeps every decision. Confidence is never touched by a review.

export function reviewSchemaItem(
  item: SchemaItem,
  projectId: string,
  action: ReviewAction,
  body?: SchemaOverride,
): SchemaItem {
  switch (action) {
    case "approve":
      if (item.target_table === null || item.target_column === null) {
        throw noSuggestion("schema", item.id, projectId);
      }
      return { ...item, status: "approved" };
    case "reject":
      return { ...item, status: "rejected", target_table: null, target_column: null };
    case "override":
      if (!body) throw new Error("override needs a body");
      return {
        ...item,
        status: "overridden",
        target_table: body.target_table,
        target_column: body.target_column,
        ...(body.comment === undefined ? {} : { comment: body.comment }),
      };
  }
}

// A decision answers a revalidation note (why the item was reopened), so every decision clears it; the
// audit log keeps it.
export function reviewConceptItem(
  item: ConceptItem,
  projectId: string,
  action: ReviewAction,
  body?: ConceptOverride,
): ConceptItem {
  const settled = item.revalidation ? { revalidation: null } : {};
  switch (action) {
    case "approve":
      if (item.target_concept_id === null) throw noSuggestion("concept", item.id, projectId);
      return { ...item, method: "auto", ...settled };
    case "reject":
      // "unmatched" is FHIR's equivalence for "no match": what a rejected code is.
      return {
        ...item,
        method: "unmapped",
        target_concept_id: null,
        target_concept_name: null,
        target_vocabulary_id: null,
        equivalence: "unmatched",
        ...settled,
      };
    case "override":
      if (!body) throw new Error("override needs a body");
      // A name, vocabulary or equivalence left out is cleared rather than kept: the old ones describe the
      // old concept.
      return {
        ...item,
        method: "override",
        target_concept_id: body.target_concept_id,
        target_concept_name: body.target_concept_name ?? null,
        target_vocabulary_id: body.target_vocabulary_id ?? null,
        equivalence: body.equivalence ?? null,
        ...(body.comment === undefined ? {} : { comment: body.comment }),
        ...settled,
      };
  }
}

/** What a chosen candidate does to an item of that kind: its target fields and its decision. */
const CHOSEN: {
  schema: (item: SchemaItem, k: number) => SchemaItem;
  concept: (item: ConceptItem, k: number) => ConceptItem;
} = {
  schema: (item, k) => {
    const c = item.candidates![k - 1]!;
    return {
      ...item,
      status: k === 1 ? "approved" : "overridden",
      target_table: c.target_table,
      target_column: c.target_column,
    };
  },
  // Equivalence described the old concept, and a decision answers a revalidation note: both are cleared.
  concept: (item, k) => {
    const c = item.candidates![k - 1]!;
    return {
      ...item,
      method: k === 1 ? "auto" : "override",
      target_concept_id: c.concept_id,
      target_concept_name: c.concept_name,
      target_vocabulary_id: c.vocabulary_id,
      equivalence: null,
      ...(item.revalidation ? { revalidation: null } : {}),
    };
  },
};

/**
 * Choosing candidate k (1-based) of an item's ranked candidates: its target (a concept, or a table and
 * column) becomes the item's. The first is the suggestion, so choosing it is approving (concept: method
 * auto; schema: status approved); any other is a reviewer's choice (method override; status overridden).
 * 409 when the item has no candidates, 422 when it has fewer than k.
 */
export function chooseCandidate<K extends ItemKind>(
  kind: K,
  item: ItemOf<K>,
  projectId: string,
  k: number,
  comment?: string | null,
): ItemOf<K> {
  const count = item.candidates?.length ?? 0;
  if (count === 0) {
    throw new AppError(
      409,
      "no_candidates",
      `${KIND_LABEL[kind]} ${item.id} in project ${projectId} has no candidates to choose from; override it instead`,
    );
  }
  if (k < 1 || k > count) {
    throw new AppError(422, "validation_error", "Invalid request", [
      {
        path: ["body", "candidate"],
        message: `${KIND_LABEL[kind]} ${item.id} has ${count} candidate${count === 1 ? "" : "s"}`,
        code: "value_error.number.not_le",
      },
    ]);
  }
  const chosen = (CHOSEN[kind] as unknown as (i: ItemOf<K>, k: number) => ItemOf<K>)(item, k);
  return comment === undefined ? chosen : { ...chosen, comment };
}

/**
 * Revert: the decision fields of `past` (an earlier version of the item) on the current item. Source
 * fields, confidence and comment stay as they are now: undo takes back a decision, not an edit.
 */
export function restoreDecision<T extends SchemaItem | ConceptItem>(current: T, past: T): T {
  if ("status" in past && "status" in current) {
    return {
      ...current,
      status: past.status,
      target_table: past.target_table,
      target_column: past.target_column,
      reviewed_at: past.reviewed_at,
    };
  }
  const p = past as ConceptItem;
  return {
    ...current,
    method: p.method,
    target_concept_id: p.target_concept_id,
    target_concept_name: p.target_concept_name,
    target_vocabulary_id: p.target_vocabulary_id,
    equivalence: p.equivalence ?? null,
    revalidation: p.revalidation ?? null,
    reviewed_at: p.reviewed_at,
  };
}

function noSuggestion(kind: ItemKind, id: string, projectId: string): AppError {
  const what = kind === "schema" ? "target table and column" : "target concept";
  return new AppError(
    409,
    "no_suggested_target",
    `${KIND_LABEL[kind]} ${id} in project ${projectId} has no suggested ${what} to approve; override it instead`,
  );
}
