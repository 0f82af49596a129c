// Response shapes with a fixed field order: what a client sees never depends on how a record was stored.
import type { AuditEvent, ConceptItem, CrossMappingRun, Project, SchemaItem } from "../store/types.js";

export const presentSchemaItem = (i: SchemaItem) => ({
  id: i.id,
  source_table: i.source_table,
  source_column: i.source_column,
  target_table: i.target_table,
  target_column: i.target_column,
  confidence: i.confidence,
  status: i.status,
  version: i.version,
  created_at: i.created_at,
  updated_at: i.updated_at,
  reviewed_at: i.reviewed_at,
  comment: i.comment ?? null,
  candidates: i.candidates ?? null,
});

export const presentConceptItem = (i: ConceptItem) => ({
  id: i.id,
  source_column: i.source_column,
  source_code: i.source_code,
  source_description: i.source_description,
  target_concept_id: i.target_concept_id,
  target_concept_name: i.target_concept_name,
  target_vocabulary_id: i.target_vocabulary_id,
  confidence: i.confidence,
  method: i.method,
  version: i.version,
  created_at: i.created_at,
  updated_at: i.updated_at,
  reviewed_at: i.reviewed_at,
  source_vocabulary_id: i.source_vocabulary_id ?? null,
  source_frequency: i.source_frequency ?? null,
  equivalence: i.equivalence ?? null,
  comment: i.comment ?? null,
  revalidation: i.revalidation ?? null,
  candidates: i.candidates ?? null,
});

export const presentRun = (r: CrossMappingRun) => ({
  id: r.id,
  source_standard: r.source_standard,
  target_standard: r.target_standard,
  source_entity: r.source_entity,
  target_entity: r.target_entity,
  record_count: r.record_count,
  status: r.status,
  crossmap_file: r.crossmap_file,
  created_at: r.created_at,
  ...(r.issue_count === undefined ? {} : { issue_count: r.issue_count }),
  ...(r.error === undefined ? {} : { error: r.error }),
  ...(r.decision_snapshot === undefined ? {} : { decision_snapshot: r.decision_snapshot }),
  ...(r.vocabulary_release === undefined ? {} : { vocabulary_release: r.vocabulary_release }),
});

export const presentProject = (p: Project) => ({
  id: p.id,
  name: p.name,
  target_model: p.target_model,
  vocabularies: p.vocabularies,
  description: p.description,
  created_at: p.created_at,
});

export function presentEvent<T>(e: AuditEvent, item: (x: never) => T) {
  const show = item as (x: AuditEvent["after"]) => T;
  return {
    item_id: e.item_id,
    version: e.version,
    action: e.action,
    key_id: e.key_id,
    reviewer: e.reviewer ?? null,
    at: e.at,
    ...(e.reverted_to === undefined ? {} : { reverted_to: e.reverted_to }),
    ...(e.candidate === undefined ? {} : { candidate: e.candidate }),
    before: e.before === null ? null : show(e.before),
    after: show(e.after),
  };
}
