// The per-record path: constants, then one closure per field, then array compaction. Nothing is looked up here.
import { isAbsent } from "../transforms/absent.js";
import { Unmappable } from "../transforms/types.js";
import { type Getter, generatedNow, type Setter } from "./paths.js";
import type { MappingIssue, MapResult, Position, RecordMapper, SourceRecord, TargetRecord } from "./types.js";

export interface CompiledField {
  field: string;
  target: string;
  get: Getter;
  fn: (value: unknown, record: SourceRecord) => unknown;
  acceptsAbsent: boolean;
  required: boolean;
  /** The entry's `default`: written when the field yields nothing. */
  fallback?: string | number | boolean;
  /** The entry's `when`: the field is read only when it holds. */
  when?: (record: SourceRecord) => boolean;
  set: Setter;
}

export interface CompiledConstant {
  set: Setter;
  value: string | number | boolean;
}

export interface MapperParts {
  source: string;
  target: string;
  sourceEntity: string;
  targetEntity: string;
  constants: CompiledConstant[];
  fields: CompiledField[];
  compact: ((out: TargetRecord) => void) | undefined;
}

const NO_ISSUES: readonly MappingIssue[] = Object.freeze([]);

const isEmptyObject = (v: object): boolean => {
  if (Array.isArray(v)) return v.length === 0;
  for (const _ in v) return false;
  return true;
};

/** Issue lists are allocated only for records that have issues. */
function add(list: MappingIssue[] | undefined, i: MappingIssue): MappingIssue[] {
  if (list === undefined) return [i];
  list.push(i);
  return list;
}

function issue(
  f: CompiledField,
  position: Position | undefined,
  code: string,
  severity: MappingIssue["severity"],
  message: string,
  value?: unknown,
): MappingIssue {
  const base = { field: f.field, target: f.target, code, severity, message };
  const i: MappingIssue = position === undefined ? base : { record: position, ...base };
  if (value !== undefined) i.value = value;
  return i;
}

const absentRequired = (f: CompiledField, position: Position | undefined): MappingIssue =>
  issue(f, position, "missing_required", "error", `required field ${f.field} is absent`);

const unconverted = (f: CompiledField, position: Position | undefined): MappingIssue =>
  issue(f, position, "missing_required", "error", `required field ${f.field} gave no value`);

/** Swaps the lazy getters and setters of a mapper's fields and constants for their generated code. */
function generateAccessors(constants: CompiledConstant[], fields: CompiledField[]): void {
  for (const c of constants) c.set = generatedNow(c.set);
  for (const f of fields) {
    f.get = generatedNow(f.get);
    f.set = generatedNow(f.set);
  }
}

export function createMapper(parts: MapperParts): RecordMapper {
  const { constants, fields, compact } = parts;
  const nc = constants.length;
  const nf = fields.length;
  // A constant per mapper: entities without conditional fields never look at `when`.
  const anyWhen = fields.some((f) => f.when !== undefined);
  // Accessors are generated on the mapper's first record, all at once (not at load: a large crossmap maps
  // records of a few of its entities, and generating code costs 20-40 us an accessor).
  let generated = false;
  return {
    source: parts.source,
    target: parts.target,
    sourceEntity: parts.sourceEntity,
    targetEntity: parts.targetEntity,
    map(record: SourceRecord, position?: Position): MapResult {
      if (!generated) {
        generateAccessors(constants, fields);
        generated = true;
      }
      const out: TargetRecord = {};
      let issues: MappingIssue[] | undefined;
      for (let i = 0; i < nc; i++) {
        const c = constants[i] as CompiledConstant;
        c.set(out, c.value);
      }
      for (let i = 0; i < nf; i++) {
        const f = fields[i] as CompiledField;
        if (anyWhen && f.when !== undefined && !f.when(record)) continue;
        const v = f.get(record);
        let r: unknown;
        // A transform that runs for an absent value (it reads other fields) may still give one: a required
        // field is missing only if it gives none, and is then said once, as absent.
        let absent = false;
        if (isAbsent(v)) {
          absent = true;
          if (!f.acceptsAbsent) {
            if (f.required && f.fallback === undefined) issues = add(issues, absentRequired(f, position));
            if (f.fallback !== undefined) f.set(out, f.fallback);
            continue;
          }
        }
        try {
          r = f.fn(v, record);
        } catch (err) {
          const message = `transform failed: ${err instanceof Error ? err.message : String(err)}`;
          const severity = f.fallback === undefined ? "error" : "warning";
          issues = add(issues, issue(f, position, "transform_error", severity, message, v));
          if (f.fallback !== undefined) f.set(out, f.fallback);
          continue;
        }
        if (r instanceof Unmappable) {
          const written = r.fallback !== undefined ? r.fallback : f.fallback;
          const severity = written === undefined ? (r.severity ?? "error") : "warning";
          issues = add(issues, issue(f, position, r.code, severity, r.message, v));
          if (written === undefined) {
            // A required field that gives nothing is as missing as an absent one (the record is incomplete).
            if (f.required)
              issues = add(issues, absent ? absentRequired(f, position) : unconverted(f, position));
            continue;
          }
          r = written;
        }
        if (isAbsent(r) || (typeof r === "object" && isEmptyObject(r as object))) {
          if (f.fallback !== undefined) f.set(out, f.fallback);
          else if (f.required)
            issues = add(issues, absent ? absentRequired(f, position) : unconverted(f, position));
          continue;
        }
        if (!f.set(out, r)) {
          const message = `${f.target} already holds a value of another kind; this one was not written`;
          issues = add(issues, issue(f, position, "target_conflict", "error", message, v));
        }
      }
      if (compact !== undefined) compact(out);
      return { value: out, issues: issues ?? NO_ISSUES };
    },
  };
}
