// The contract between the per-record transforms and a vocabulary index (built from OHDSI Athena files).
// Every method is synchronous and answers `undefined` / `[]` for unknown input: it never throws per record.
import type { SearchOptions, SearchResult } from "./search.js";
import type { Candidate, SuggestOptions, TermQuery } from "./suggest.js";
import type { Abbreviations } from "./suggest-text.js";

export interface Concept {
  concept_id: number;
  concept_name: string;
  domain_id: string;
  vocabulary_id: string;
  concept_class_id: string;
  /** "S" standard, "C" classification, null otherwise. */
  standard_concept: string | null;
  concept_code: string;
  valid_start_date: string;
  valid_end_date: string;
  invalid_reason: string | null;
}

export interface Coding {
  system?: string;
  code: string;
  display?: string;
}

export interface CodeableConcept {
  coding: Coding[];
  text?: string;
}

export interface DvCodedText {
  _type: "DV_CODED_TEXT";
  value: string;
  defining_code: {
    _type: "CODE_PHRASE";
    terminology_id: { _type: "TERMINOLOGY_ID"; value: string };
    code_string: string;
  };
}

export interface MapConceptOptions {
  /** Only concepts of this vocabulary (e.g. "SNOMED"). */
  targetVocabulary?: string;
  /** Relationship ids to follow; default ["Maps to", "Mapped from"]. */
  relationships?: string[];
}

export interface VocabularyBridge {
  /** The index directory, when the bridge reads one: worker threads open it themselves. */
  readonly dir?: string;
  /** The vocabulary release the index was built from (Athena's version of "None"), when known. */
  readonly release?: string | null;
  getConcept(conceptId: number): Concept | undefined;
  mapConcept(conceptId: number, options?: MapConceptOptions): Concept[];
  lookupCode(vocabularyId: string, code: string): Concept | undefined;
  /** Source code -> its standard concept through "Maps to" (or itself when already standard). */
  standardConcept(vocabularyId: string, code: string): Concept | undefined;
  toCodeableConcept(conceptId: number): CodeableConcept | undefined;
  toDvCodedText(conceptId: number): DvCodedText | undefined;
  /** Concepts for a text, ranked (search.ts); absent on a bridge without a search index. */
  search?(text: string, options?: SearchOptions): SearchResult;
  /** Ranked candidate concepts for a source term (suggest.ts); absent on a bridge without a search index. */
  suggest?(term: TermQuery, options?: SuggestOptions, abbreviations?: Abbreviations): Candidate[];
}
