// What approve, reject and override do to a schema or concept mapping item: the spec's state table,
// plus the one rule it leaves open that we close (approving needs a suggestion to approve).
import { AppError } from "../errors.js";
import type { ConceptItem, ItemKind, SchemaItem } from "../store/types.js";

export type ReviewAction = "approve" | "reject" | "override";

export interface SchemaOverride {
  target_table: string;
  target_column: string;
}

export interface ConceptOverride {
  target_concept_id: number;
  target_concept_name?: string | null | undefined;
  target_vocabulary_id?: string | null | undefined;
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
      };
  }
}

export function reviewConceptItem(
  item: ConceptItem,
  projectId: string,
  action: ReviewAction,
  body?: ConceptOverride,
): ConceptItem {
  switch (action) {
    case "approve":
      if (item.target_concept_id === null) throw noSuggestion("concept", item.id, projectId);
      return { ...item, method: "auto" };
    case "reject":
      return {
        ...item,
        method: "unmapped",
        target_concept_id: null,
        target_concept_name: null,
        target_vocabulary_id: null,
      };
    case "override":
      if (!body) throw new Error("override needs a body");
      // A name or vocabulary left out is cleared rather than kept: the old ones describe the old concept.
      return {
        ...item,
        method: "override",
        target_concept_id: body.target_concept_id,
        target_concept_name: body.target_concept_name ?? null,
        target_vocabulary_id: body.target_vocabulary_id ?? null,
      };
  }
}

function noSuggestion(kind: ItemKind, id: string, projectId: string): AppError {
  const what = kind === "schema" ? "target table and column" : "target concept";
  return new AppError(
    409,
    "no_suggested_target",
    `${KIND_LABEL[kind]} ${id} in project ${projectId} has no suggested ${what} to approve; override it instead`,
  );
}
