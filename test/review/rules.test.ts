// The state table as pure functions: what each decision does to an item, and what it leaves alone.
import { describe, expect, it } from "vitest";
import { AppError } from "../../src/errors.js";
import { reviewConceptItem, reviewSchemaItem } from "../../src/review/rules.js";
import type { ConceptItem, SchemaItem } from "../../src/store/types.js";

const meta = { version: 3, created_at: "c", updated_at: "u", reviewed_at: null };
const schema: SchemaItem = {
  id: "sm_1",
  source_table: "patients",
  source_column: "sex",
  target_table: "person",
  target_column: "gender_concept_id",
  confidence: 0.5,
  status: "needs_review",
  ...meta,
};
const concept: ConceptItem = {
  id: "cm_1",
  source_column: "sex",
  source_code: "M",
  source_description: "Male",
  target_concept_id: 8507,
  target_concept_name: "MALE",
  target_vocabulary_id: "Gender",
  confidence: 0.5,
  method: "review",
  ...meta,
};

describe("schema items", () => {
  it("approve keeps the targets; reject clears them; override sets them; nothing else moves", () => {
    expect(reviewSchemaItem(schema, "p", "approve")).toEqual({ ...schema, status: "approved" });
    expect(reviewSchemaItem(schema, "p", "reject")).toEqual({
      ...schema,
      status: "rejected",
      target_table: null,
      target_column: null,
    });
    expect(reviewSchemaItem(schema, "p", "override", { target_table: "obs", target_column: "v" })).toEqual({
      ...schema,
      status: "overridden",
      target_table: "obs",
      target_column: "v",
    });
  });

  it("any prior state may be reviewed again", () => {
    const rejected = reviewSchemaItem(schema, "p", "reject");
    expect(
      reviewSchemaItem(rejected, "p", "override", { target_table: "a", target_column: "b" }).status,
    ).toBe("overridden");
  });

  it("approving without a suggested target is a 409 naming the item and project", () => {
    const bare = { ...schema, target_column: null };
    expect(() => reviewSchemaItem(bare, "proj_1", "approve")).toThrow(
      new AppError(
        409,
        "no_suggested_target",
        "Schema mapping sm_1 in project proj_1 has no suggested target table and column to approve; override it instead",
      ),
    );
    try {
      reviewSchemaItem(bare, "proj_1", "approve");
    } catch (e) {
      expect((e as AppError).status).toBe(409);
    }
  });
});

describe("concept items", () => {
  it("approve -> auto; reject -> unmapped with null targets; override -> override with the given values", () => {
    expect(reviewConceptItem(concept, "p", "approve")).toEqual({ ...concept, method: "auto" });
    expect(reviewConceptItem(concept, "p", "reject")).toEqual({
      ...concept,
      method: "unmapped",
      target_concept_id: null,
      target_concept_name: null,
      target_vocabulary_id: null,
      equivalence: "unmatched",
    });
    expect(
      reviewConceptItem(concept, "p", "override", {
        target_concept_id: 1,
        target_concept_name: "n",
        target_vocabulary_id: "SNOMED",
      }),
    ).toEqual({
      ...concept,
      method: "override",
      target_concept_id: 1,
      target_concept_name: "n",
      target_vocabulary_id: "SNOMED",
      equivalence: null,
    });
  });

  it("approving an item without a target concept is a 409", () => {
    const rejected = reviewConceptItem(concept, "p", "reject");
    expect(() => reviewConceptItem(rejected, "p", "approve")).toThrow(/has no suggested target concept/);
  });
});
