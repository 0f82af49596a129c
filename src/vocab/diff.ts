// `vocab diff OLD NEW`: what a new vocabulary release changes for mappings that target concepts of the
// old one: concepts that are gone, became invalid (deprecated or upgraded), are no longer standard, or
// whose "Maps to" changed. One scan of the old index's concepts, each looked up in the new one.
import type { Concept } from "./bridge.js";
import type { LmdbVocabularyBridge } from "./lmdb-bridge.js";

export type ConceptChange = "removed" | "invalid" | "non_standard" | "maps_to_changed";

export interface DiffRow {
  concept_id: number;
  vocabulary_id: string;
  concept_code: string;
  concept_name: string;
  changes: ConceptChange[];
  old_standard_concept: string | null;
  new_standard_concept: string | null;
  new_invalid_reason: string | null;
  old_maps_to: number[];
  new_maps_to: number[];
  /** "Concept replaced by" in the new release. */
  replaced_by: number[];
}

const MAPS_TO = { relationships: ["Maps to"] };
const REPLACED_BY = { relationships: ["Concept replaced by"] };
const ids = (cs: Concept[]) => [...new Set(cs.map((c) => c.concept_id))].sort((a, b) => a - b);

/** Changed concepts of `old` in concept_id order, lazily. */
export function* diffVocabularies(old: LmdbVocabularyBridge, next: LmdbVocabularyBridge): Generator<DiffRow> {
  for (const before of old.allConcepts()) {
    // Concepts that were already invalid in the old release are no news.
    if (before.invalid_reason) continue;
    const after = next.getConcept(before.concept_id);
    const changes: ConceptChange[] = [];
    if (!after) changes.push("removed");
    else {
      if (after.invalid_reason) changes.push("invalid");
      if (before.standard_concept === "S" && after.standard_concept !== "S") changes.push("non_standard");
    }
    const oldMapsTo = ids(old.mapConcept(before.concept_id, MAPS_TO));
    const newMapsTo = after ? ids(next.mapConcept(after.concept_id, MAPS_TO)) : [];
    if (after && oldMapsTo.join() !== newMapsTo.join()) changes.push("maps_to_changed");
    if (changes.length === 0) continue;
    yield {
      concept_id: before.concept_id,
      vocabulary_id: before.vocabulary_id,
      concept_code: before.concept_code,
      concept_name: before.concept_name,
      changes,
      old_standard_concept: before.standard_concept,
      new_standard_concept: after?.standard_concept ?? null,
      new_invalid_reason: after?.invalid_reason ?? null,
      old_maps_to: oldMapsTo,
      new_maps_to: newMapsTo,
      replaced_by: after ? ids(next.mapConcept(after.concept_id, REPLACED_BY)) : [],
    };
  }
}

export const DIFF_COLUMNS = [
  "concept_id",
  "vocabulary_id",
  "concept_code",
  "concept_name",
  "changes",
  "old_standard_concept",
  "new_standard_concept",
  "new_invalid_reason",
  "old_maps_to",
  "new_maps_to",
  "replaced_by",
] as const;

/** A row as CSV fields: lists joined with ";", nulls empty. */
export const diffCsvFields = (r: DiffRow): (string | number)[] =>
  DIFF_COLUMNS.map((c) => {
    const v = r[c];
    return Array.isArray(v) ? v.join(";") : (v ?? "");
  });
