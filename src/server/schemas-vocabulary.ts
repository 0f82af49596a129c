// Schemas of the reference data the review workbench reads: concept search in the vocabulary index and
// the target models' tables and columns (crossmaps/standards/).
import { z } from "zod";
import { DEFAULT_LIMIT, MAX_LIMIT } from "../vocab/search.js";
import { limit } from "./schemas.js";

const idList = z
  .preprocess((v) => (Array.isArray(v) ? v.join(",") : v), z.string().max(1000))
  .transform((s) =>
    s
      .split(",")
      .map((p) => p.trim())
      .filter((p) => p !== ""),
  );

export const conceptSearchQuery = z
  .object({
    q: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .meta({ description: "Text: an id, a code, or words of a name or synonym" }),
    vocabulary_id: idList.optional().meta({ description: "One vocabulary_id or a comma list" }),
    domain_id: idList.optional().meta({ description: "One domain_id or a comma list" }),
    standard: z
      .enum(["true", "false"])
      .transform((v) => v === "true")
      .optional()
      .meta({ description: "true: only standard, valid concepts" }),
    limit: limit(MAX_LIMIT).default(DEFAULT_LIMIT),
  })
  .strict();

export const foundConcept = z.object({
  concept_id: z.number().int(),
  concept_name: z.string(),
  domain_id: z.string(),
  vocabulary_id: z.string(),
  concept_class_id: z.string(),
  standard_concept: z.string().nullable(),
  concept_code: z.string(),
  invalid_reason: z.string().nullable(),
  match: z.enum(["id", "code", "name", "words"]).meta({
    description:
      "id or code: the text is the concept's; name: its name starts with the text; words: its name or a synonym holds every word",
  }),
});

export const conceptSearchResponse = z.object({
  concepts: z.array(foundConcept),
  total: z.number().int(),
  total_relation: z.enum(["eq", "gte"]).meta({
    description:
      "eq: total is exact; gte: a lower bound (counting stops at 10,000 matches or 40,000 index entries read)",
  }),
});

export const standardList = z.object({
  standards: z.array(z.object({ standard: z.string(), entities: z.number().int() })),
});

export const standardEntities = z.object({
  standard: z.string(),
  entities: z.array(
    z.object({
      name: z.string(),
      fields: z.array(z.object({ name: z.string(), type: z.string().nullable(), required: z.boolean() })),
    }),
  ),
});
