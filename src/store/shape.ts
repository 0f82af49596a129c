// Items as the in-memory mirror keeps them: every field present, in one fixed order, without the audit
// log. Items decoded from LMDB or taken from audit events come in many shapes (older records lack the
// added fields; spread copies differ), and reading a field across 100,000 objects of mixed shapes was
// the largest cost of a list request (~4x slower than one shape, measured on the development VM).
import type { ConceptItem, SchemaItem } from "./types.js";

export const schemaShape = (i: SchemaItem): SchemaItem => ({
  id: i.id,
  version: i.version,
  created_at: i.created_at,
  updated_at: i.updated_at,
  reviewed_at: i.reviewed_at,
  source_table: i.source_table,
  source_column: i.source_column,
  target_table: i.target_table,
  target_column: i.target_column,
  confidence: i.confidence,
  status: i.status,
  comment: i.comment ?? null,
  candidates: i.candidates ?? null,
});

export const conceptShape = (i: ConceptItem): ConceptItem => ({
  id: i.id,
  version: i.version,
  created_at: i.created_at,
  updated_at: i.updated_at,
  reviewed_at: i.reviewed_at,
  source_column: i.source_column,
  source_code: i.source_code,
  source_description: i.source_description,
  target_concept_id: i.target_concept_id,
  target_concept_name: i.target_concept_name,
  target_vocabulary_id: i.target_vocabulary_id,
  confidence: i.confidence,
  method: i.method,
  source_vocabulary_id: i.source_vocabulary_id ?? null,
  source_frequency: i.source_frequency ?? null,
  equivalence: i.equivalence ?? null,
  comment: i.comment ?? null,
  revalidation: i.revalidation ?? null,
  candidates: i.candidates ?? null,
});
