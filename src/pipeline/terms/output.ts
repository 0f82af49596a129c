// What `crossmap suggest` writes for ranked source terms: NDJSON (one term a line), a CSV in the columns
// OHDSI Usagi writes and reads back (review/import-mappings.ts), and concept items to push to a project.

import type { Candidate } from "../../vocab/suggest.js";
import { toCsv } from "../csv-cells.js";
import type { SourceTerm } from "./collect.js";

export interface RankedTerm {
  term: SourceTerm;
  candidates: Candidate[];
}

/** One NDJSON line: the term and its candidates, best first. */
export const ndjsonLine = ({ term, candidates }: RankedTerm): string =>
  `${JSON.stringify({
    source_code: term.source_code,
    source_description: term.source_description,
    source_vocabulary: term.source_vocabulary,
    frequency: term.frequency,
    fields: term.fields,
    candidates: candidates.map((c) => ({
      concept_id: c.concept_id,
      concept_name: c.concept_name,
      vocabulary_id: c.vocabulary_id,
      domain_id: c.domain_id,
      score: c.score,
      match: c.match,
    })),
  })}\n`;

/** The columns of Usagi's saved mapping file (WriteCodeMappingsToFile). */
export const USAGI_COLUMNS = [
  "sourceCode",
  "sourceName",
  "sourceFrequency",
  "sourceAutoAssignedConceptIds",
  "matchScore",
  "mappingStatus",
  "equivalence",
  "statusSetBy",
  "statusSetOn",
  "conceptId",
  "conceptName",
  "domainId",
  "mappingType",
  "comment",
  "createdBy",
  "createdOn",
  "assignedReviewer",
] as const;

/**
 * Usagi rows: one per term, its best candidate as Usagi's automatic suggestion (UNCHECKED, createdBy
 * `<auto>`), or concept 0 when there is none. A leading =, +, - or @ of a source text is prefixed with a
 * quote, so a spreadsheet never runs it as a formula.
 */
export function usagiCsv(ranked: readonly RankedTerm[], now = Date.now()): string {
  const safe = (s: string | null) => (s !== null && /^[=+\-@\t\r]/.test(s) ? `'${s}` : s);
  const rows = ranked.map(({ term, candidates }) => {
    const best = candidates[0];
    return {
      sourceCode: safe(term.source_code ?? term.source_description),
      sourceName: safe(term.source_description ?? term.source_code),
      sourceFrequency: term.frequency,
      sourceAutoAssignedConceptIds: "",
      matchScore: best ? best.score : 0,
      mappingStatus: "UNCHECKED",
      equivalence: "UNREVIEWED",
      statusSetBy: "",
      statusSetOn: 0,
      conceptId: best ? best.concept_id : 0,
      conceptName: best ? best.concept_name : "Unmapped",
      domainId: best ? best.domain_id : "",
      mappingType: "MAPS_TO",
      comment: "",
      createdBy: "<auto>",
      createdOn: now,
      assignedReviewer: "",
    };
  });
  return toCsv(USAGI_COLUMNS, rows);
}

/** Longest source code an item holds (the push schema's limit). */
const MAX_CODE = 200;

/**
 * A concept item for the sync push: its natural key is the term's first field and its code (its
 * description when it has none); the best candidate is the suggestion, awaiting review.
 */
export function pushItem({ term, candidates }: RankedTerm) {
  const best = candidates[0];
  return {
    source_column: term.fields[0] ?? null,
    source_code: (term.source_code ?? term.source_description ?? "").slice(0, MAX_CODE),
    source_description: term.source_description?.slice(0, 2000) ?? null,
    source_vocabulary_id: term.source_vocabulary,
    source_frequency: term.frequency,
    target_concept_id: best?.concept_id ?? null,
    target_concept_name: best?.concept_name ?? null,
    target_vocabulary_id: best?.vocabulary_id ?? null,
    confidence: best?.score ?? null,
    method: "review" as const,
    candidates: candidates.map((c) => ({
      concept_id: c.concept_id,
      concept_name: c.concept_name,
      vocabulary_id: c.vocabulary_id,
      domain_id: c.domain_id,
      score: c.score,
      match: c.match,
    })),
  };
}
