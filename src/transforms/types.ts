// The transform contract: a factory validated and bound once at load time, returning the per-record closure.
import type { z } from "zod";
import type { VocabularyBridge } from "../vocab/bridge.js";
import type { OverlaySlot } from "./overlay.js";

/** A source record: field name to value. Integers beyond 2^53 arrive as `bigint`. */
export type SourceRecord = Record<string, unknown>;

/** What a transform may return instead of a value when the value cannot be converted. */
export class Unmappable {
  constructor(
    readonly code: string,
    readonly message: string,
    /** Written anyway (a warning) when present: the value was converted with a loss the message names. */
    readonly fallback?: unknown,
    /** "warning": nothing is written and that is no fault of the record (a reference that names no id). */
    readonly severity?: "warning",
  ) {}
}

/** Nothing written, said in a warning: the value is legitimate, but names nothing this target can hold. */
export const notice = (code: string, message: string): Unmappable =>
  new Unmappable(code, message, undefined, "warning");

/** Shorthand for `new Unmappable(code, message)`: the field is left out and an error issue counted. */
export const fail = (code: string, message: string): Unmappable => new Unmappable(code, message);

/** Shorthand for a value written with a warning issue (e.g. a dateTime cut to a date). */
export const degrade = (value: unknown, code: string, message: string): Unmappable =>
  new Unmappable(code, message, value);

/** Reads a value from a source record; compiled once from a path such as `code.coding[0].code`. */
export type Getter = (record: SourceRecord) => unknown;

export interface TransformContext {
  /** The vocabulary bridge, when one was configured (`--vocab`). */
  vocabulary?: VocabularyBridge;
  /**
   * Where the reviewed decisions of a project-scoped run are (overlay.ts), when the crossmap may run
   * project-scoped. A transform that maps a source code to a concept asks `overlay.current` first.
   */
  overlay?: OverlaySlot;
  /**
   * The field is `vocabulary_optional` and the run has no vocabulary: without a project's decisions it
   * yields nothing, so a code the decisions do not name yields nothing too (decisions change only the
   * codes they decide), not an issue.
   */
  vocabularyOptional?: boolean;
  /** The field_map key being compiled, e.g. "person.gender_concept_id". */
  field: string;
  /** The source path of that key, e.g. "gender_concept_id". */
  sourcePath: string;
  /** The target path, e.g. "Patient.gender". */
  target: string;
  /** Compiles a path into the source record; throws a load error for a malformed path. */
  compileSourcePath(path: string): Getter;
  /** Compiles a path into some other object (a list element the transform picked); not a record field. */
  compileRelativePath(path: string): Getter;
  /**
   * Builds another transform for a combinator (first_of, chain): a name of the document's `transforms` or
   * of the registry, with config merged and validated as for a field. Throws (a located load error of the
   * field) for an unknown name or a bad config. Absent where the caller offers no nesting.
   */
  transform?(spec: NestedTransformSpec): NestedTransform;
  /**
   * Compiles a condition (as a field's `when`) on the record, for a combinator whose parts apply only when
   * one holds (first_of's `when` per alternative). Throws a load error for a bad condition. Absent where
   * the caller offers none.
   */
  compileCondition?(when: unknown): (record: SourceRecord) => boolean;
}

/** A transform named inside another transform's config: `{transform: name, config: {...}}`. */
export interface NestedTransformSpec {
  transform: string;
  config?: Record<string, unknown>;
  /** Without a vocabulary, this step yields nothing instead of failing to load. */
  vocabulary_optional?: boolean;
}

export interface NestedTransform {
  fn: TransformFn;
  /** The nested definition also runs for absent values (it reads other fields). */
  acceptsAbsent: boolean;
}

/** The per-record closure: `undefined` writes nothing, an `Unmappable` writes nothing (or its fallback) and counts an issue. */
export type TransformFn = (value: unknown, record: SourceRecord) => unknown;

export type TransformFactory<C = Record<string, unknown>> = (
  config: C,
  context: TransformContext,
) => TransformFn;

export interface TransformDefinition<C = Record<string, unknown>> {
  /** Validates the config once at load time; unknown keys are rejected. */
  config?: z.ZodType<C>;
  create: TransformFactory<C>;
  /**
   * Called even when the field's own value is absent (null, undefined or ""), for transforms that read
   * other fields of the record (fhir_period). Others are skipped for absent values.
   */
  acceptsAbsent?: boolean;
  /** One line for `crossmap transforms` and the docs. */
  description?: string;
}
