// The state table as pure functions: what each decision does to an item, and what it leaves alone.
import { describe, expect, it } from "vitest";
import { AppError } from "../../src/errors.js";
import { chooseCandidate, reviewConceptItem, reviewSchemaItem } from "../../src/review/rules.js";
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

describe("choosing candidate k", () => {
  const ranked: SchemaItem = {
    ...schema,
    candidates: [
      { target_table: "person", target_column: "gender_concept_id", score: 0.5 },
      { target_table: "person", target_column: "gender_source_value", score: 0.4 },
    ],
  };
  const conceptRanked: ConceptItem = {
    ...concept,
    equivalence: "equivalent",
    revalidation: {
      reason: "missing",
      previous_concept_id: 1,
      previous_concept_name: null,
      suggested_via: null,
      release: null,
      at: "t",
    },
    candidates: [
      { concept_id: 8507, concept_name: "MALE", vocabulary_id: "Gender", domain_id: "Gender", score: 0.5 },
      { concept_id: 8532, concept_name: "FEMALE", vocabulary_id: "Gender", domain_id: "Gender", score: 0.1 },
    ],
  };

  it("schema: 1 approves, another overrides with its table and column; the comment only when given", () => {
    expect(chooseCandidate("schema", ranked, "p", 1)).toEqual({ ...ranked, status: "approved" });
    expect(chooseCandidate("schema", ranked, "p", 2, "as written")).toEqual({
      ...ranked,
      status: "overridden",
      target_column: "gender_source_value",
      comment: "as written",
    });
  });

  it("concept: 1 is method auto, another override; equivalence and revalidation are cleared", () => {
    expect(chooseCandidate("concept", conceptRanked, "p", 2)).toEqual({
      ...conceptRanked,
      method: "override",
      target_concept_id: 8532,
      target_concept_name: "FEMALE",
      equivalence: null,
      revalidation: null,
    });
    expect(chooseCandidate("concept", conceptRanked, "p", 1)).toMatchObject({ method: "auto" });
  });

  it("no candidates is a 409, fewer than k a 422, for either kind", () => {
    const fail = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e instanceof AppError ? [e.status, e.message] : e;
      }
      return "no error";
    };
    expect(fail(() => chooseCandidate("schema", schema, "p", 1))).toEqual([
      409,
      "Schema mapping sm_1 in project p has no candidates to choose from; override it instead",
    ]);
    expect(fail(() => chooseCandidate("concept", conceptRanked, "p", 3))).toEqual([422, "Invalid request"]);
    expect(
      (() => {
        try {
          chooseCandidate("schema", ranked, "p", 3);
        } catch (e) {
          return (e as AppError).problems;
        }
      })(),
    ).toEqual([
      {
        path: ["body", "candidate"],
        message: "Schema mapping sm_1 has 2 candidates",
        code: "value_error.number.not_le",
      },
    ]);
  });
});
