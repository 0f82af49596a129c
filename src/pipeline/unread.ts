// Input columns the crossmap does not read: a CSV column, an NDJSON key, a FHIR resource's top-level
// element that holds a value and that no field mapping, condition, id or key of the crossmap reads (nor
// its `not_mapped` declares, nor is one of the source standard's `common_fields`, FHIR's meta, ...) is an
// `unread_column` warning, one per file and entity naming its columns (at the first record holding a
// value; a column first holding one further on is named in one more), so that no input column vanishes
// without a word (a CDM v5.3 export's renamed columns, a site's extra columns) and none is noise.
import { readCompiled } from "../crossmap/compiled.js";
import type { SourceRecord } from "../crossmap/types.js";
import type { MappingPlan } from "./plan.js";
import type { RunIssue } from "./types.js";

/** Keys the stage itself reads: a record's resourceType names its entity. */
const ROUTING = ["resourceType"];

/** Where the record is, for the issue. */
interface Place {
  file: string;
  line?: number;
  entry?: number;
}

export type UnreadCheck = (record: SourceRecord, place: Place, entity: string, issues: RunIssue[]) => void;

/**
 * The check of one stage (a worker's, or the main thread's): it reports a column once per file and
 * entity, the new columns of a record in one issue; `keepFirstUnread` drops the repeats several workers
 * make.
 */
export function unreadCheck(plan: MappingPlan): UnreadCheck {
  const known = new Map<string, ReadonlySet<string> | null>();
  const reported = new Map<string, Set<string>>();
  return (record, place, entity, issues) => {
    let read = known.get(entity);
    if (read === undefined) {
      const fields = plan.readFields(entity);
      // A standard's fields on every entity (FHIR's meta, text, ...) are its infrastructure, not content.
      const common = fields ? commonFields(plan.source) : [];
      read = fields ? new Set([...fields, ...common, ...ROUTING]) : null;
      known.set(entity, read);
    }
    if (read === null) return;
    let fresh: string[] | undefined;
    let done: Set<string> | undefined;
    for (const column in record) {
      if (read.has(column)) continue;
      const value = record[column];
      if (value === undefined || value === null || value === "") continue;
      done ??= reportedFor(reported, place.file, entity);
      if (done.has(column)) continue;
      done.add(column);
      if (fresh === undefined) fresh = [];
      fresh.push(column);
    }
    if (fresh !== undefined) issues.push(unreadIssue(place, entity, fresh, plan));
  };
}

/**
 * The fields every entity of a built-in standard has, from the definitions the build stored (read without
 * zod or the YAML parser, which a run does not otherwise load); none for other standards.
 */
function commonFields(standard: string): readonly string[] {
  const stored = readCompiled()?.standards.find((s) => s.file.replace(/\.ya?ml$/, "") === standard);
  return stored?.definition.common_fields ?? [];
}

function reportedFor(reported: Map<string, Set<string>>, file: string, entity: string): Set<string> {
  const key = `${file}\u0000${entity}`;
  let done = reported.get(key);
  if (!done) {
    done = new Set();
    reported.set(key, done);
  }
  return done;
}

function unreadIssue(place: Place, entity: string, columns: string[], plan: MappingPlan): RunIssue {
  return {
    ...place,
    entity,
    field: columns.map((c) => `${entity}.${c}`).join(SEPARATOR),
    code: "unread_column",
    severity: "warning",
    message: `not read by the ${plan.source} -> ${plan.target} crossmap: the values in this file are not mapped (reported once per file and entity)`,
  };
}

/** Between the columns an issue's `field` names. */
const SEPARATOR = ", ";

/**
 * For the main thread: keeps, of the `unread_column` issues several workers made, each column of a file
 * and entity the first time it comes (an issue whose columns were all reported already is dropped), and
 * every other issue.
 */
export function keepFirstUnread(): (issues: RunIssue[]) => RunIssue[] {
  const seen = new Set<string>();
  return (issues) => {
    if (!issues.some((i) => i.code === "unread_column")) return issues;
    const kept: RunIssue[] = [];
    for (const i of issues) {
      if (i.code !== "unread_column" || i.field === undefined) {
        kept.push(i);
        continue;
      }
      const fresh = i.field.split(SEPARATOR).filter((f) => {
        const key = `${i.file}\u0000${f}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      if (fresh.length > 0) kept.push({ ...i, field: fresh.join(SEPARATOR) });
    }
    return kept;
  };
}
