// The shapes that cross from the crossmap engine to its callers (pipeline, server, benchmarks).

import type { SourceRecord } from "../transforms/types.js";

export type { SourceRecord };

/** A target record under construction or produced. */
export type TargetRecord = Record<string, unknown>;

/** Where a record came from, as its reader knows it: a 1-based line number, an array index, or a label. */
export type Position = number | string;

/**
 * Stable issue codes. `error`: the field was left out. `warning`: the field was written but something was
 * lost or assumed on the way (named in the message).
 */
export type IssueCode =
  | "invalid_value"
  | "invalid_date"
  | "unmapped_value"
  | "missing_required"
  | "missing_value"
  | "precision_reduced"
  | "concept_not_found"
  | "target_conflict"
  | "transform_error"
  | (string & {});

export interface MappingIssue {
  /** The record's position, when the caller gave one. */
  record?: Position;
  /** The field_map key that produced the issue, e.g. "person.gender_concept_id". */
  field: string;
  /** The target path, e.g. "Patient.gender". */
  target: string;
  code: IssueCode;
  severity: "error" | "warning";
  message: string;
  /** The offending input value, when there was one. */
  value?: unknown;
}

export interface MapResult {
  value: TargetRecord;
  /** Empty (and shared) when nothing went wrong; never null. */
  issues: readonly MappingIssue[];
}

/** One target record a source record produced. */
export interface MapOutput {
  /** The output's key: `<source entity>.<output name>`. */
  output: string;
  /** Its target entity (the per-entity file it goes to). */
  entity: string;
  value: TargetRecord;
  /** The derived id, when the output declares `id`. */
  id?: string | number | bigint;
  /** Its gathering key, when other outputs gather into it. */
  key?: string;
  /** Where it is gathered: the index of the `into` rule that applied, and the parent's key. */
  into?: { rule: number; key: string };
  /** The output asks for one record per id within a unit (an HL7 v2 message). */
  dedupe?: true;
}

export interface MapAllResult {
  /** In document order: groups in entity_map order, for_each elements in list order. */
  outputs: MapOutput[];
  issues: readonly MappingIssue[];
}

/** A compiled source entity -> target entity mapping: a chain of closures, nothing resolved per record. */
export interface RecordMapper {
  readonly source: string;
  readonly target: string;
  readonly sourceEntity: string;
  /** The first output's target entity (the only one, for the spec's one-to-one form). */
  readonly targetEntity: string;
  /**
   * Maps one record to its first output's record (an empty object when it produced none). Never throws for
   * bad values; those become issues.
   */
  map(record: SourceRecord, position?: Position): MapResult;
  /**
   * True when a record may produce other than exactly one record of `targetEntity` (several outputs,
   * conditions, for_each, ids, gathering): callers must use `mapAll`.
   */
  readonly multi?: boolean;
  /** Every record the source record produced. */
  mapAll?(record: SourceRecord, position?: Position): MapAllResult;
}
