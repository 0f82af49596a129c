// The zod schemas of every request and response: they validate requests and generate /openapi.json,
// so the document cannot drift from what the server accepts.
import { z } from "zod";
import {
  commentText,
  conceptId,
  confidence,
  equivalence,
  frequency,
  idString,
  integer,
  name,
  surrogateError,
  text,
  wellFormed,
} from "../review/item-fields.js";
import { AUDIT_ACTIONS, CONCEPT_METHODS, SCHEMA_STATUSES } from "../store/types.js";
import { INTEGER_MESSAGE } from "./validate.js";

export { commentText, idString };

const intError = { error: INTEGER_MESSAGE };
/** ISO 8601 without zone suffix, as the spec's run history shows it. */
const runTime = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?$/, {
  error: "must be an ISO 8601 timestamp without zone suffix, e.g. 2026-03-02T10:30:00",
});
const timestamp = z.string().meta({ description: "ISO 8601 UTC timestamp with milliseconds" });
/** As stored: items pushed before pushes checked the range [0, 1] may hold other numbers. */
const storedConfidence = z.number().nullable();

// ---- review bodies (the spec's tables) ----

export const schemaOverrideBody = z.object({
  target_table: name,
  target_column: name,
  comment: commentText.optional().meta({ description: "Left out: the item's comment is kept" }),
});
export const conceptOverrideBody = z.object({
  target_concept_id: conceptId,
  target_concept_name: text.nullable().optional(),
  target_vocabulary_id: name.nullable().optional(),
  equivalence: equivalence.optional().meta({ description: "Left out: null (it described the old target)" }),
  comment: commentText.optional().meta({ description: "Left out: the item's comment is kept" }),
});

/** Most candidates an item carries. */
export const MAX_ITEM_CANDIDATES = 50;

const candidateFields = {
  concept_id: conceptId,
  concept_name: text.nullable().optional(),
  vocabulary_id: name.nullable().optional(),
  domain_id: name.nullable().optional(),
  score: z.number().min(0).max(1).nullable().optional().meta({ description: "The ranking's score, 0 .. 1" }),
  match: z
    .string()
    .max(32)
    .nullable()
    .optional()
    .meta({ description: "How it was found: code, maps_to, name, mapped_name" }),
};

/** A candidate as a push gives it; missing fields are null. */
export const candidateIn = z.object(candidateFields).transform((c) => ({
  concept_id: c.concept_id,
  concept_name: c.concept_name ?? null,
  vocabulary_id: c.vocabulary_id ?? null,
  domain_id: c.domain_id ?? null,
  score: c.score ?? null,
  match: c.match ?? null,
}));

export const candidateOut = z.object({
  concept_id: z.number().int(),
  concept_name: z.string().nullable(),
  vocabulary_id: z.string().nullable(),
  domain_id: z.string().nullable(),
  score: z.number().nullable(),
  match: z.string().nullable(),
});

/** A candidate target column as a push gives it (crossmap suggest --schema). */
export const schemaCandidateIn = z
  .object({
    target_table: name,
    target_column: name,
    score: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .optional()
      .meta({ description: "The ranking's score, 0 .. 1" }),
  })
  .transform((c) => ({
    target_table: c.target_table,
    target_column: c.target_column,
    score: c.score ?? null,
  }));

export const schemaCandidateOut = z.object({
  target_table: z.string(),
  target_column: z.string(),
  score: z.number().nullable(),
});

export const chooseBody = z.object({
  candidate: integer()
    .min(1)
    .meta({ description: "1-based position in the item's candidates: 1 approves the suggestion" }),
  comment: commentText.optional().meta({ description: "Left out: the item's comment is kept" }),
});

// ---- items as returned ----

const meta = {
  version: z.number().int().meta({ description: "Grows by one with every change; also sent as the ETag" }),
  created_at: timestamp,
  updated_at: timestamp,
  reviewed_at: timestamp.nullable().meta({ description: "Time of the last review decision, if any" }),
};

export const schemaItemOut = z.object({
  id: z.string(),
  source_table: z.string().nullable(),
  source_column: z.string(),
  target_table: z.string().nullable(),
  target_column: z.string().nullable(),
  confidence: storedConfidence,
  status: z.enum(SCHEMA_STATUSES),
  ...meta,
  comment: z.string().nullable(),
  candidates: z.array(schemaCandidateOut).nullable().meta({
    description:
      "Ranked candidate target columns, best first (crossmap suggest --schema); the suggestion is the first",
  }),
});

export const conceptItemOut = z.object({
  id: z.string(),
  source_column: z.string().nullable(),
  source_code: z.string(),
  source_description: z.string().nullable(),
  target_concept_id: z.number().int().nullable(),
  target_concept_name: z.string().nullable(),
  target_vocabulary_id: z.string().nullable(),
  confidence: storedConfidence,
  method: z.enum(CONCEPT_METHODS),
  ...meta,
  source_vocabulary_id: z.string().nullable().meta({ description: "Code system of source_code" }),
  source_frequency: z.number().int().nullable(),
  equivalence,
  comment: z.string().nullable(),
  revalidation: z
    .object({
      reason: z.enum(["missing", "invalid", "non_standard"]),
      previous_concept_id: z.number().int(),
      previous_concept_name: z.string().nullable(),
      suggested_via: z.enum(["Maps to", "Concept replaced by"]).nullable(),
      release: z.string().nullable(),
      at: timestamp,
    })
    .nullable()
    .meta({ description: "Why a vocabulary release reopened the item; cleared by the next decision" }),
  candidates: z.array(candidateOut).nullable().meta({
    description:
      "Ranked candidate concepts, best first (crossmap suggest, or POST .../concept-mapping/suggest); the suggestion is the first",
  }),
});

export const runOut = z.object({
  id: z.string(),
  source_standard: z.string(),
  target_standard: z.string(),
  source_entity: z.string(),
  target_entity: z.string(),
  record_count: z.number().int(),
  status: z.string(),
  crossmap_file: z.string().nullable(),
  created_at: z.string().nullable(),
  issue_count: z.number().int().optional(),
  error: z.string().optional(),
  decision_snapshot: z
    .object({
      items: z.number().int(),
      sha256: z.string(),
      unreviewed: z.enum(["use", "ignore"]),
    })
    .optional()
    .meta({ description: "Project-scoped runs: the concept decisions applied" }),
  vocabulary_release: z.string().nullable().optional(),
});

// ---- push items: upserted by id, else by natural key; server fields a client echoes back are ignored ----

export const schemaPushItem = z.object({
  id: idString.optional(),
  source_table: name.nullable().optional(),
  source_column: name,
  target_table: name.nullable().optional(),
  target_column: name.nullable().optional(),
  confidence: confidence.optional(),
  status: z.enum(SCHEMA_STATUSES).optional(),
  comment: commentText.optional(),
  candidates: z.array(schemaCandidateIn).max(MAX_ITEM_CANDIDATES).nullable().optional().meta({
    description: "Ranked candidate target columns, best first; left out: an update keeps the stored ones",
  }),
});

export const conceptPushItem = z.object({
  id: idString.optional(),
  source_column: name.nullable().optional(),
  source_code: name,
  source_description: text.nullable().optional(),
  target_concept_id: conceptId.nullable().optional(),
  target_concept_name: text.nullable().optional(),
  target_vocabulary_id: name.nullable().optional(),
  confidence: confidence.optional(),
  method: z.enum(CONCEPT_METHODS).optional(),
  source_vocabulary_id: name.nullable().optional(),
  source_frequency: frequency.optional(),
  equivalence: equivalence.optional(),
  comment: commentText.optional(),
  candidates: z.array(candidateIn).max(MAX_ITEM_CANDIDATES).nullable().optional().meta({
    description: "Ranked candidate concepts, best first; left out: an update keeps the stored ones",
  }),
});

export const runPushItem = z.object({
  id: idString,
  source_standard: name,
  target_standard: name,
  source_entity: name,
  target_entity: name,
  record_count: integer().min(0),
  status: z.string().min(1).max(64).regex(wellFormed, surrogateError),
  crossmap_file: text.nullable().optional(),
  created_at: runTime.nullable().optional(),
  issue_count: integer().min(0).optional(),
  error: text.optional(),
  decision_snapshot: z
    .object({
      items: integer().min(0),
      sha256: z.string().regex(/^[0-9a-f]{64}$/, { error: "must be 64 lowercase hex digits" }),
      unreviewed: z.enum(["use", "ignore"]),
    })
    .optional(),
  vocabulary_release: text.nullable().optional(),
});

export const MAX_PUSH_ITEMS = 10_000;
export const pushBody = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item).max(MAX_PUSH_ITEMS) });

export const pushResult = z.object({
  index: z.number().int().meta({ description: "Position in the pushed items array" }),
  id: z.string().nullable(),
  result: z.enum(["created", "updated", "unchanged", "skipped"]),
  reason: z.string().optional(),
});

export const pushSummary = z.object({
  created: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  skipped: z.number().int(),
  items: z.array(pushResult),
});

export const pullResponse = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), total: z.number().int() });

// ---- queries ----

export const queryInt = () => z.coerce.number(intError).int(intError);
export const limit = (max: number) => queryInt().min(1).max(max);
export const offset = queryInt().min(0).default(0);

export const pullQuery = z.object({ limit: limit(100_000).optional(), offset });
export const pushQuery = z.object({ force: z.enum(["true", "false"]).default("false") });

export const itemList = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  });

export const auditEventOut = <T extends z.ZodType>(item: T) =>
  z.object({
    item_id: z.string(),
    version: z.number().int(),
    action: z.enum(AUDIT_ACTIONS),
    key_id: z.string().nullable(),
    reviewer: z.string().nullable().meta({ description: "Name of the key's reviewer, if it has one" }),
    at: timestamp,
    reverted_to: z.number().int().optional().meta({ description: "revert events: the version restored" }),
    candidate: z
      .number()
      .int()
      .optional()
      .meta({ description: "choose events: the 1-based position of the candidate chosen" }),
    before: item.nullable(),
    after: item,
  });

export const historyResponse = <T extends z.ZodType>(item: T) =>
  z.object({ events: z.array(auditEventOut(item)) });

// ---- projects ----

export const projectCreateBody = z.object({
  name,
  target_model: name.nullable().optional(),
  vocabularies: z.array(name).max(100).optional(),
  description: text.nullable().optional(),
});

export const projectOut = z.object({
  id: z.string(),
  name: z.string(),
  target_model: z.string().nullable(),
  vocabularies: z.array(z.string()),
  description: z.string().nullable(),
  created_at: timestamp,
});

export const projectList = z.object({ projects: z.array(projectOut) });

// ---- errors ----

export const errorDetail = z.object({ detail: z.string() });
export const validationError = z.object({
  detail: z.array(
    z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() }),
  ),
});

export const health = z.object({ status: z.literal("ok") });

// ---- cross-mapping ----

export const MAX_CROSSMAP_TEXT = 1_000_000;

export const crossMapBody = z.object({
  source_standard: name.meta({
    description: "e.g. omop_cdm_v5.4, or a short name: omop, fhir, hl7v2, openehr",
  }),
  target_standard: name.meta({ description: "e.g. fhir_r4, or a short name: omop, fhir, hl7v2, openehr" }),
  source_entity: name.meta({ description: "A source entity of the crossmap's entity_map, e.g. person" }),
  records: z
    .array(z.record(z.string(), z.unknown()))
    .meta({ description: "Source records; integers beyond 2^53 are kept exact" }),
  crossmap: z.string().min(1).max(MAX_CROSSMAP_TEXT).optional().meta({
    description: "A crossmap as YAML text, used instead of the built-in one for the pair",
  }),
  parameters: z
    .record(z.string().max(64), z.string().max(1000))
    .optional()
    .meta({ description: "Values for the parameters the crossmap declares (as `crossmap map --param`)" }),
});

export const projectCrossMapBody = crossMapBody.extend({
  unreviewed: z.enum(["use", "ignore"]).optional().meta({
    description:
      "Concept items still awaiting review: use their suggestion, or ignore it and ask the vocabulary (default); a warning unreviewed_mapping either way",
  }),
});

export const mappingIssueOut = z.object({
  record: z.number().int().meta({ description: "Index of the record in `records`" }),
  field: z.string(),
  target: z.string(),
  code: z.string(),
  severity: z.enum(["error", "warning"]),
  message: z.string(),
  value: z.unknown().optional(),
});

const targetRecord = z.record(z.string(), z.unknown());

export const crossMapResponse = z.object({
  results: z.array(z.union([targetRecord, z.array(targetRecord), z.null()])).meta({
    description:
      "One entry per input record, in input order: its target record when it produced exactly one (always, for the spec's one-to-one crossmaps), a list when it produced several, null when it produced none (records gathered into another record's result are inside that result)",
  }),
  source_standard: z.string(),
  target_standard: z.string(),
  source_entity: z.string(),
  target_entity: z.string(),
  total: z.number().int().meta({ description: "Entries in results: the number of input records" }),
  result_entities: z
    .array(z.union([z.string(), z.array(z.string()), z.null()]))
    .optional()
    .meta({
      description:
        "Only for source entities that may produce several records or none: the target entity of each entry of results (a list for a list)",
    }),
  produced: z
    .number()
    .int()
    .optional()
    .meta({ description: "Only with result_entities: target records produced in all" }),
  issues: z.array(mappingIssueOut),
  run_id: z.string().optional().meta({ description: "Project-scoped calls: the recorded run" }),
  decision_snapshot: z
    .object({ items: z.number().int(), sha256: z.string(), unreviewed: z.enum(["use", "ignore"]) })
    .optional()
    .meta({ description: "Project-scoped calls: the project's concept decisions applied" }),
});

export const historyQuery = z.object({ limit: limit(1000).default(100), offset });
export const runHistoryResponse = z.object({ runs: z.array(runOut), total: z.number().int() });

export const crossmapListResponse = z.object({
  crossmaps: z.array(
    z.object({
      source: z.string(),
      target: z.string(),
      file: z.string(),
      entity_map: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
      field_count: z.number().int(),
    }),
  ),
  total: z.number().int(),
});
