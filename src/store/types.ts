// The records the stores persist, shared by the review rules, the HTTP handlers and the CLI.

/** Schema item statuses a client may push; the review endpoints only ever set the last three. */
export const SCHEMA_STATUSES = [
  "auto_accepted",
  "needs_review",
  "approved",
  "rejected",
  "overridden",
  "unmapped",
] as const;
export type SchemaStatus = (typeof SCHEMA_STATUSES)[number];

/** Concept item methods; a concept item has no status, its review outcome is its method. */
export const CONCEPT_METHODS = ["auto", "review", "manual", "override", "unmapped"] as const;
export type ConceptMethod = (typeof CONCEPT_METHODS)[number];

/** FHIR R4 ConceptMap equivalence codes (ConceptMapEquivalence), which concept items may carry. */
export const EQUIVALENCES = [
  "relatedto",
  "equivalent",
  "equal",
  "wider",
  "subsumes",
  "narrower",
  "specializes",
  "inexact",
  "unmatched",
  "disjoint",
] as const;
export type Equivalence = (typeof EQUIVALENCES)[number];

/** Server-managed fields every reviewable item carries. */
export interface ItemMeta {
  id: string;
  /** Starts at 1 and grows by one with every change; sent as the ETag. */
  version: number;
  created_at: string;
  updated_at: string;
  /** Set by a review endpoint; a push does not overwrite such an item unless forced. */
  reviewed_at: string | null;
  /** Internal, never sent: sequence numbers of the item's audit events, oldest first (see audit.ts). */
  audit_log?: number[];
}

export interface SchemaItem extends ItemMeta {
  source_table: string | null;
  source_column: string;
  target_table: string | null;
  target_column: string | null;
  confidence: number | null;
  status: SchemaStatus;
  /** Optional on stored items written before comments existed; presented as null. */
  comment?: string | null;
  /**
   * Ranked candidate target columns (crossmap suggest --schema), best first; the suggestion
   * (target_table, target_column) is the first when they were made. Reviews never change them.
   */
  candidates?: SchemaCandidate[] | null;
}

/** A candidate target column of a schema item, with the ranking's score (0 .. 1). */
export interface SchemaCandidate {
  target_table: string;
  target_column: string;
  score: number | null;
}

export interface ConceptItem extends ItemMeta {
  source_column: string | null;
  source_code: string;
  source_description: string | null;
  target_concept_id: number | null;
  target_concept_name: string | null;
  target_vocabulary_id: string | null;
  confidence: number | null;
  method: ConceptMethod;
  // Added fields: optional on stored items written before they existed; presented as null.
  /** The code system of source_code (a vocabulary_id such as ICD10CM, or a local name or URI). */
  source_vocabulary_id?: string | null;
  /** How often the code occurs in the source data, for prioritising and coverage. */
  source_frequency?: number | null;
  equivalence?: Equivalence | null;
  comment?: string | null;
  /** Why a vocabulary release reopened the item (revalidate); cleared by the next decision. */
  revalidation?: Revalidation | null;
  /**
   * Ranked candidate concepts (crossmap suggest, or the suggest endpoint), best first; the suggestion
   * (target_*) is the first when they were made. Reviews never change them.
   */
  candidates?: ConceptCandidate[] | null;
}

/** A candidate concept of a concept item, with the ranking's score (0 .. 1). */
export interface ConceptCandidate {
  concept_id: number;
  concept_name: string | null;
  vocabulary_id: string | null;
  domain_id: string | null;
  score: number | null;
  /** How it was found: code, maps_to (the code's standard concept), name, mapped_name (a concept mapping to it). */
  match?: string | null;
}

/** What `revalidate` records on an item it moved back to review. */
export interface Revalidation {
  reason: "missing" | "invalid" | "non_standard";
  previous_concept_id: number;
  previous_concept_name: string | null;
  /** The relationship the suggested replacement (now the item's target) was found through, if any. */
  suggested_via: "Maps to" | "Concept replaced by" | null;
  /** The vocabulary release checked against (VOCABULARY.csv's version of "None"), when known. */
  release: string | null;
  at: string;
}

export type ItemKind = "schema" | "concept";
export type ItemOf<K extends ItemKind> = K extends "schema" ? SchemaItem : ConceptItem;

/** One cross-mapping run, exactly the spec's history record. */
export interface CrossMappingRun {
  id: string;
  source_standard: string;
  target_standard: string;
  source_entity: string;
  target_entity: string;
  record_count: number;
  status: string;
  crossmap_file: string | null;
  /** ISO 8601 without zone suffix, e.g. 2026-03-02T10:30:00 (UTC). */
  created_at: string | null;
  /** Beyond the spec: how many mapping issues the run reported (runs recorded by this server). */
  issue_count?: number;
  /** Beyond the spec: why a `failed` run failed. */
  error?: string;
  /** Beyond the spec: the project's concept decisions a project-scoped run applied. */
  decision_snapshot?: DecisionSnapshot;
  /** Beyond the spec: the vocabulary release the run used (null: no vocabulary, or an index without one). */
  vocabulary_release?: string | null;
}

/** Which reviewed decisions a run used: enough to tell two runs' decisions apart and to reproduce one. */
export interface DecisionSnapshot {
  /** Concept items in the project when the run started. */
  items: number;
  /** sha256 (hex) of the decision fields of those items, in id order (docs/api.md says exactly which). */
  sha256: string;
  /** Whether items still awaiting review were used (`use`) or not (`ignore`). */
  unreviewed: "use" | "ignore";
}

export interface Project {
  id: string;
  name: string;
  target_model: string | null;
  vocabularies: string[];
  description: string | null;
  created_at: string;
}

export type KeyScope = "admin" | "read" | "write";

export interface ApiKeyRecord {
  id: string;
  scope: KeyScope;
  /** null for admin keys. */
  project_id: string | null;
  /** sha256 of the secret, hex; the secret itself is never stored. */
  hash: string;
  created_at: string;
  revoked_at: string | null;
  /** The reviewer the key belongs to, shown in audit events; optional on keys made before names existed. */
  name?: string | null;
}

export const AUDIT_ACTIONS = [
  "approve",
  "reject",
  "override",
  "push_create",
  "push_update",
  "comment",
  "revert",
  "import",
  "revalidate",
  "choose",
  "suggest",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEvent {
  project_id: string;
  item_kind: ItemKind;
  item_id: string;
  /** The item's version after the change; orders the history. */
  version: number;
  action: AuditAction;
  /** The API key that made the change; null when the CLI or an internal caller did. */
  key_id: string | null;
  /** That key's reviewer name at the time (optional on events written before names existed). */
  reviewer?: string | null;
  /** `revert` events: the version whose decision was restored. */
  reverted_to?: number;
  /** `choose` events: the 1-based position of the candidate chosen. */
  candidate?: number;
  at: string;
  before: SchemaItem | ConceptItem | null;
  after: SchemaItem | ConceptItem;
}
