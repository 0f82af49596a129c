// Schemas of what the review workbench needs around the spec's endpoints: list queries, stats, comment,
// revert, bulk decisions and "who am I". Shared with schemas.ts's item shapes; the same objects validate
// requests and generate /openapi.json.
import { z } from "zod";
import { SORT_KEYS } from "../review/listing.js";
import { CONCEPT_METHODS, SCHEMA_STATUSES } from "../store/types.js";
import { commentText, idString, limit, offset } from "./schemas.js";

/** Most decisions (or items matched by a filter) one bulk call may apply. */
export const MAX_BULK_ITEMS = 10_000;

const joinRepeated = (v: unknown) => (Array.isArray(v) ? v.join(",") : v);

/** One value or a comma list (or the parameter repeated), each one of `values`. */
const stateList = (values: readonly string[]) =>
  z.preprocess(
    joinRepeated,
    z.string().transform((s, ctx) => {
      const parts = s
        .split(",")
        .map((p) => p.trim())
        .filter((p) => p !== "");
      for (const input of parts) {
        if (!values.includes(input)) ctx.addIssue({ code: "invalid_value", values: [...values], input });
      }
      return parts;
    }),
  );

const bounds = {
  min_confidence: z.coerce.number().optional().meta({ description: "Inclusive lower bound" }),
  max_confidence: z.coerce.number().optional().meta({ description: "Inclusive upper bound" }),
};
const minTopScore = z.coerce.number().optional().meta({
  description:
    "Confidence tier: only items whose first candidate is their suggestion and scores at least this (items without candidates never match)",
});
const q = z
  .string()
  .max(200)
  .optional()
  .meta({ description: "Case- and accent-insensitive text in the source fields and target names" });
const needsReviewParam = z
  .enum(["true", "false"])
  .transform((v) => v === "true")
  .optional()
  .meta({ description: "true: only items awaiting review (schema needs_review, concept method review)" });

const sortOf = (keys: readonly string[]) =>
  z
    .enum(keys as [string, ...string[]])
    .default("id")
    .meta({ description: "id (default), or a field; a leading - sorts descending; items without it last" });

const SCHEMA_SORTS = SORT_KEYS.filter((k) => !k.endsWith("source_frequency"));

// Unknown parameters are refused (422), so a misspelt filter never silently lists everything.
export const schemaListQuery = z
  .object({
    status: stateList(SCHEMA_STATUSES).optional().meta({ description: "One status or a comma list" }),
    needs_review: needsReviewParam,
    ...bounds,
    min_top_score: minTopScore,
    q,
    sort: sortOf(SCHEMA_SORTS),
    limit: limit(1000).default(100),
    offset,
  })
  .strict();

export const conceptListQuery = z
  .object({
    method: stateList(CONCEPT_METHODS).optional().meta({ description: "One method or a comma list" }),
    needs_review: needsReviewParam,
    ...bounds,
    min_top_score: minTopScore,
    q,
    sort: sortOf(SORT_KEYS),
    limit: limit(1000).default(100),
    offset,
  })
  .strict();

/** The list query's filters, as a bulk body carries them: states as a string, comma list or array. */
const bodyFilter = {
  needs_review: z.boolean().optional(),
  min_confidence: z.number().optional(),
  max_confidence: z.number().optional(),
  min_top_score: z.number().optional(),
  q: z.string().max(200).optional(),
};
export const schemaBulkFilter = z
  .object({ status: stateList(SCHEMA_STATUSES).optional(), ...bodyFilter })
  .strict();
export const conceptBulkFilter = z
  .object({ method: stateList(CONCEPT_METHODS).optional(), ...bodyFilter })
  .strict();

const ifMatch = z
  .union([z.string(), z.number().int()])
  .meta({ description: 'The version the decision was made against, e.g. "3" or 3; stale gives 412' });

/**
 * One decision. Override fields sit beside id and action, as the override endpoint takes them; they are
 * checked per decision (a bad one is a 422 result for that decision, not a failed call).
 */
const decision = z
  .object({
    id: idString,
    action: z.enum(["approve", "reject", "override"]),
    if_match: ifMatch.optional(),
  })
  .loose()
  .meta({ description: "With action override, the override endpoint's body fields too" });

const bulkBody = (filter: z.ZodType) =>
  z
    .object({
      decisions: z.array(decision).min(1).max(MAX_BULK_ITEMS).optional(),
      filter: filter.optional(),
      action: z.enum(["approve", "reject"]).optional().meta({ description: "With filter: what to do" }),
    })
    .superRefine((b, ctx) => {
      if ((b.decisions === undefined) === (b.filter === undefined)) {
        ctx.addIssue({ code: "custom", path: [], message: "give either decisions, or filter with action" });
      } else if (b.filter !== undefined && b.action === undefined) {
        ctx.addIssue({ code: "invalid_type", expected: "string", path: ["action"], input: undefined });
      }
    });

export const schemaBulkBody = bulkBody(schemaBulkFilter);
export const conceptBulkBody = bulkBody(conceptBulkFilter);

const problemList = z.array(
  z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() }),
);

export const bulkResponse = (item: z.ZodType) =>
  z.object({
    applied: z.number().int(),
    failed: z.number().int(),
    results: z.array(
      z.object({
        id: z.string(),
        status: z.union([z.literal(200), z.literal(404), z.literal(409), z.literal(412), z.literal(422)]),
        item: item.optional(),
        detail: z
          .union([z.string(), problemList])
          .optional()
          .meta({ description: "As the single-item endpoint's error body says it" }),
      }),
    ),
  });

const share = z.number().min(0).max(1);
const total = z.number().int();
const statsFields = {
  reviewed: z.number().int().meta({ description: "Items with a review decision (reviewed_at set)" }),
  reviewed_share: share,
  source_frequency_total: z.number().int().nullable(),
  covered_frequency: z
    .number()
    .int()
    .nullable()
    .meta({ description: "source_frequency held by items that map their code (auto, manual, override)" }),
  coverage_share: share.nullable(),
};
export const schemaStats = z.object({
  total,
  by_status: z.record(z.string(), z.number().int()),
  ...statsFields,
});
export const conceptStats = z.object({
  total,
  by_method: z.record(z.string(), z.number().int()),
  ...statsFields,
});

export const commentBody = z.object({ comment: commentText });
export const revertBody = z.object({
  to_version: z.number().int().min(1).meta({ description: "An earlier version of the item" }),
});

export const meResponse = z.object({
  key_id: z.string(),
  name: z.string().nullable(),
  admin: z.boolean(),
  projects: z.array(
    z.object({ id: z.string(), name: z.string(), scope: z.enum(["admin", "read", "write"]) }),
  ),
});
