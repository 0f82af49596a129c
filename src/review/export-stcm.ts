// The OMOP CDM v5.4 SOURCE_TO_CONCEPT_MAP rows of a project's mapped concept items: what an OMOP ETL
// loads to apply the reviewed decisions (Usagi exports the same table). Every row must fit the CDM's
// field list; an item that cannot becomes a problem naming the item and the field, never a bad row.
import type { Problem } from "../errors.js";
import type { ConceptItem } from "../store/types.js";
import type { VocabularyBridge } from "../vocab/bridge.js";
import { MAPPED_METHODS } from "./listing.js";

// CSV text lives with the pipeline (the terms export writes it too, and review sits beside pipeline).
export { neutralise, toCsv, unneutralise } from "../pipeline/csv-text.js";

export const STCM_COLUMNS = [
  "source_code",
  "source_concept_id",
  "source_vocabulary_id",
  "source_code_description",
  "target_concept_id",
  "target_vocabulary_id",
  "valid_start_date",
  "valid_end_date",
  "invalid_reason",
] as const;

export type StcmRow = Record<(typeof STCM_COLUMNS)[number], string | number | null>;

export interface StcmOptions {
  /** For items without a source_vocabulary_id (the CDM requires one). */
  sourceVocabularyId?: string | undefined;
  /** Finds source_concept_id (the source code's own concept, 0 when the vocabulary lacks it) and target vocabularies. */
  vocabulary?: VocabularyBridge | undefined;
}

/** The CDM's widths of the table's varchar columns. */
const WIDTH = {
  source_code: 50,
  source_vocabulary_id: 20,
  source_code_description: 255,
  target_vocabulary_id: 20,
};

/** A mapping is valid until the end of time, in OMOP's spelling of it. */
const END_OF_TIME = "2099-12-31";

/**
 * Rows for the items that map their code (methods auto, manual, override), in id order; `problems`
 * names each item that cannot make a valid row, by item id and column.
 */
export function sourceToConceptMap(
  items: readonly ConceptItem[],
  options: StcmOptions = {},
): { rows: StcmRow[]; problems: Problem[] } {
  const rows: StcmRow[] = [];
  const problems: Problem[] = [];
  for (const item of items) {
    if (!MAPPED_METHODS.has(item.method) || item.target_concept_id === null) continue;
    const wrong = (field: string, message: string) =>
      // The item's code beside its id: the id alone is a UUID a terminologist cannot place.
      problems.push({
        path: ["items", item.id, field],
        message: `code ${JSON.stringify(item.source_code)}: ${message}`,
        code: "value_error.stcm",
      });
    const vocab = options.vocabulary;
    const sourceVocabulary = item.source_vocabulary_id ?? options.sourceVocabularyId ?? null;
    const target = vocab?.getConcept(item.target_concept_id);
    const targetVocabulary = item.target_vocabulary_id ?? target?.vocabulary_id ?? null;
    const before = problems.length;
    if (sourceVocabulary === null) {
      wrong(
        "source_vocabulary_id",
        "no source_vocabulary_id: set it on the item, or give one for the export",
      );
    } else if (sourceVocabulary.length > WIDTH.source_vocabulary_id) {
      wrong("source_vocabulary_id", `"${sourceVocabulary}" is longer than the CDM's 20 characters`);
    }
    if (item.source_code.length > WIDTH.source_code) {
      wrong("source_code", "longer than the CDM's 50 characters");
    }
    if ((item.source_description ?? "").length > WIDTH.source_code_description) {
      wrong("source_description", "longer than the CDM's 255 characters (source_code_description)");
    }
    if (targetVocabulary === null) {
      wrong("target_vocabulary_id", "no target_vocabulary_id, and no vocabulary to find it in");
    } else if (targetVocabulary.length > WIDTH.target_vocabulary_id) {
      wrong("target_vocabulary_id", `"${targetVocabulary}" is longer than the CDM's 20 characters`);
    }
    if (problems.length > before) continue;
    const sourceConcept =
      vocab && sourceVocabulary !== null ? vocab.lookupCode(sourceVocabulary, item.source_code) : undefined;
    rows.push({
      source_code: item.source_code,
      source_concept_id: sourceConcept?.concept_id ?? 0,
      source_vocabulary_id: sourceVocabulary,
      source_code_description: item.source_description === "" ? null : item.source_description,
      target_concept_id: item.target_concept_id,
      target_vocabulary_id: targetVocabulary,
      // The day the decision was made: the mapping holds from then on.
      valid_start_date: (item.reviewed_at ?? item.updated_at).slice(0, 10),
      valid_end_date: END_OF_TIME,
      invalid_reason: null,
    });
  }
  return { rows, problems };
}
