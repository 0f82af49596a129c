// The limits every item field has, however it arrives: a sync push, a review decision or an imported
// file. The server's request schemas (server/schemas.ts) are built from these, and imports check each
// row against them, so a file cannot store what a push would refuse.
import { z } from "zod";
import { CONCEPT_METHODS, EQUIVALENCES } from "../store/types.js";

/**
 * zod reports a string given for an integer as "expected number"; integer schemas carry this message so
 * the 422 can still say "integer", as pydantic does.
 */
export const INTEGER_MESSAGE = "value is not a valid integer";

const intError = { error: INTEGER_MESSAGE };
/** An integer whose type errors say "integer" (see INTEGER_MESSAGE). */
export const integer = () => z.number(intError).int(intError);

// Ids and natural-key parts come from clients (push) and end up in store keys, where a control
// character separates the parts; so none may contain one.
const noControl = /^\P{Cc}*$/u;
// A lone UTF-16 surrogate ("\ud800" in JSON) has no UTF-8 form: stored, it would come back as U+FFFD,
// a different string (an id that then answers 404, a push that never compares unchanged).
export const wellFormed = /^\P{Cs}*$/u;
export const surrogateError = { error: "string must not contain unpaired UTF-16 surrogates" };

/** Longest id or natural-key part, in UTF-16 code units. */
export const MAX_KEY_LENGTH = 200;
/** Longest free text of an item (descriptions, names). */
export const MAX_TEXT_LENGTH = 2000;
/** Longest reviewer's comment. */
export const MAX_COMMENT_LENGTH = 10_000;

const keyPart = () =>
  z
    .string()
    .min(1)
    .max(MAX_KEY_LENGTH)
    .regex(noControl, { error: "string must not contain control characters" })
    .regex(wellFormed, surrogateError);
export const idString = keyPart();
export const name = keyPart();
export const text = z.string().max(MAX_TEXT_LENGTH).regex(wellFormed, surrogateError);
/** A reviewer's note on an item: kept through exports (ConceptMap comments, Usagi comments). */
export const commentText = z.string().max(MAX_COMMENT_LENGTH).regex(wellFormed, surrogateError).nullable();
/**
 * How sure a suggestion is, from 0 to 1 (the spec does not say; Usagi's matchScore and every matcher we
 * know use that range, and a 7 is a mistake, not a very sure match).
 */
export const confidence = z.number().min(0).max(1).nullable();
export const conceptId = integer();
export const equivalence = z
  .enum(EQUIVALENCES)
  .nullable()
  .meta({ description: "FHIR R4 ConceptMap equivalence" });
export const frequency = integer().min(0).nullable();

/** A concept item's own fields as an import makes them (every one present, null when the file has none). */
export const conceptItemFields = z.object({
  source_column: name.nullable(),
  source_code: name,
  source_description: text.nullable(),
  target_concept_id: conceptId.nullable(),
  target_concept_name: text.nullable(),
  target_vocabulary_id: name.nullable(),
  confidence,
  method: z.enum(CONCEPT_METHODS),
  source_vocabulary_id: name.nullable(),
  source_frequency: frequency,
  equivalence,
  comment: commentText,
});
