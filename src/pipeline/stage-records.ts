// One batch's mapping of records (NDJSON lines, CSV rows, Bundle entries, array elements): each record to
// its entity's mapper, its output text to its target entity, its issues located, records held for
// gathering set aside. The batch readers in stage.ts hand it records; it never throws for bad input.
import { isHeld } from "../crossmap/gather.js";
import type { MappingIssue, Position, SourceRecord } from "../crossmap/types.js";
import { entryRecord, isPlainObject } from "./bundle-entry.js";
import { stringifyJson } from "./json.js";
import type { EntityMapper, MappingPlan } from "./plan.js";
import type { BatchResult, HeldRecord, RunIssue } from "./types.js";
import type { UnreadCheck } from "./unread.js";

/** Where a record is, for issues. */
export interface Place {
  file: string;
  line?: number;
  entry?: number;
}

/** What every batch of a run shares: the plan and the options, read once. */
export interface RecordStage {
  plan: MappingPlan;
  failFast: boolean;
  perEntity: boolean;
  /** The `unread_column` check (unread.ts); none for a record feed or HL7 v2. */
  unread?: UnreadCheck | undefined;
}

/** The mapping of one batch's records into `result`. Methods return false when the run must stop. */
export class RecordBatch {
  constructor(
    private readonly stage: RecordStage,
    readonly result: BatchResult,
  ) {}

  /** Appends a record's NDJSON under its target entity (or "" when not splitting). */
  emit(entity: string, text: string): void {
    const output = this.result.output as Record<string, string>;
    const slot = this.stage.perEntity ? entity : "";
    output[slot] = (output[slot] ?? "") + text;
  }

  /** Counts a record that cannot be written. */
  reject(issue: RunIssue): boolean {
    const r = this.result;
    r.recordsIn++;
    r.recordsFailed++;
    r.recordsWithErrors++;
    r.issues.push(issue);
    if (this.stage.failFast) r.fatal = issue;
    return !this.stage.failFast;
  }

  /** Maps one parsed record; `bundle` when it is an entry of a FHIR Bundle (other types are skipped). */
  mapRecord(record: SourceRecord, place: Place, fileEntity: string | undefined, bundle: boolean): boolean {
    const entity = fileEntity ?? (typeof record.resourceType === "string" ? record.resourceType : undefined);
    if (entity === undefined) return this.reject(unknownEntity(place));
    const { plan } = this.stage;
    const mapper = plan.mapperFor(entity);
    const gap = mapper === undefined ? plan.gaps.get(entity) : undefined;
    if (gap !== undefined) {
      const message = `${gap}; the record is not mapped`;
      return this.reject({ ...place, entity, code: "unmapped_entity", severity: "error", message });
    }
    if (
      bundle &&
      (mapper === undefined || (fileEntity !== undefined && record.resourceType !== fileEntity))
    ) {
      return this.skipEntry(record, place, entity, mapper === undefined);
    }
    if (mapper === undefined) return this.reject(noMapping(place, entity));
    this.result.recordsIn++;
    this.stage.unread?.(record, place, entity, this.result.issues);
    const position: Position = place.entry !== undefined ? positionLabel(place) : (place.line ?? 0);
    if (mapper.multi === true && mapper.mapAll !== undefined)
      return this.mapMany(mapper, record, place, entity, position);
    const mapped = mapper.map(record, position);
    if (!this.recordIssues(mapped.issues, place, entity)) return false;
    this.result.recordsOut++;
    this.emit(mapper.targetEntity, stringifyJson(mapped.value) + "\n");
    return true;
  }

  /**
   * Bundles carry every kind of resource: entries the run does not cover are counted, not failed, and each
   * one the crossmap has no mapping for is named in a warning (--entity leaves the others out on purpose).
   */
  private skipEntry(record: SourceRecord, place: Place, entity: string, unmapped: boolean): boolean {
    const kind = typeof record.resourceType === "string" ? record.resourceType : entity;
    const skipped = this.result.skipped;
    skipped[kind] = (skipped[kind] ?? 0) + 1;
    if (unmapped) {
      const id = typeof record.id === "string" ? `${kind}/${record.id}` : kind;
      this.result.issues.push({
        ...place,
        entity: kind,
        code: "unmapped_resource",
        severity: "warning",
        message: `${id} is left out: the crossmap has no mapping for ${kind}`,
      });
    }
    return true;
  }

  /** A Bundle entry that is a request without a resource (DELETE, GET): counted as skipped, named in a warning. */
  skipRequest(place: Place, method: string, message: string): boolean {
    const kind = `${method} request`;
    this.result.skipped[kind] = (this.result.skipped[kind] ?? 0) + 1;
    this.result.issues.push({ ...place, code: "skipped_entry", severity: "warning", message });
    return true;
  }

  /**
   * Counts one record's issues; false when its first error stops the run (--on-error fail). Shared by the
   * one-record and the several-records paths, so both report alike.
   */
  private recordIssues(issues: readonly MappingIssue[], place: Place, entity: string): boolean {
    let firstError: RunIssue | undefined;
    for (const issue of issues) {
      const runIssue = toRunIssue(issue, place, entity);
      this.result.issues.push(runIssue);
      if (firstError === undefined && issue.severity === "error") firstError = runIssue;
    }
    if (firstError === undefined) return true;
    this.result.recordsWithErrors++;
    if (!this.stage.failFast) return true;
    this.result.fatal = firstError;
    return false;
  }

  /** A record that may produce several records, or none, or records that wait to be gathered. */
  private mapMany(
    mapper: EntityMapper,
    record: SourceRecord,
    place: Place,
    entity: string,
    position: Position,
  ): boolean {
    const mapped = (mapper.mapAll as NonNullable<EntityMapper["mapAll"]>)(record, position);
    if (!this.recordIssues(mapped.issues, place, entity)) return false;
    const gatherPlan = this.stage.plan.gather;
    for (const o of mapped.outputs) {
      if (!isHeld(gatherPlan, o.output, o.into)) {
        this.result.recordsOut++;
        this.emit(o.entity, stringifyJson(o.value) + "\n");
        continue;
      }
      const held: HeldRecord = {
        output: o.output,
        entity: o.entity,
        json: stringifyJson(o.value),
        place: { ...place, entity },
      };
      if (o.key !== undefined) held.key = o.key;
      if (o.into !== undefined) held.into = o.into;
      if (o.id !== undefined) held.id = String(o.id);
      this.result.held ??= [];
      this.result.held.push(held);
    }
    return true;
  }

  /** The entries of a FHIR Bundle, each mapped as a record of its resource type. */
  mapBundle(bundle: unknown, place: Place, fileEntity: string | undefined): boolean {
    const entries = bundleEntries(bundle);
    if (typeof entries === "string") {
      return this.reject({ ...place, code: "invalid_record", severity: "error", message: entries });
    }
    for (let i = 0; i < entries.length; i++) {
      const r = entryRecord(entries[i]);
      const entryPlace = { ...place, entry: i };
      const ok =
        "resource" in r
          ? this.mapRecord(r.resource, entryPlace, fileEntity, true)
          : "request" in r
            ? this.skipRequest(entryPlace, r.method, r.request)
            : this.reject({ ...entryPlace, code: "invalid_record", severity: "error", message: r.problem });
      if (!ok) return false;
    }
    return true;
  }
}

function unknownEntity(place: Place): RunIssue {
  return {
    ...place,
    code: "unknown_entity",
    severity: "error",
    message:
      "cannot tell the source entity: the record has no resourceType and the file name names no entity of the crossmap; give --entity",
  };
}

function noMapping(place: Place, entity: string): RunIssue {
  return {
    ...place,
    entity,
    code: "unknown_entity",
    severity: "error",
    message: `the crossmap has no mapping for source entity "${entity}"${
      entity === "Bundle" ? "; to map the entries of FHIR Bundles, give --format fhir-bundle" : ""
    }`,
  };
}

/** The entries of a FHIR Bundle, or a sentence saying why the value is not one. */
export function bundleEntries(value: unknown): unknown[] | string {
  if (!isPlainObject(value)) return `expected a FHIR Bundle object, got ${describeJsonType(value)}`;
  if (value.resourceType !== "Bundle") {
    return `expected a FHIR Bundle, got resourceType ${JSON.stringify(value.resourceType ?? null)}`;
  }
  if (value.entry === undefined) return [];
  if (!Array.isArray(value.entry)) return "Bundle.entry is not an array";
  return value.entry;
}

function toRunIssue(issue: MappingIssue, place: Place, entity: string): RunIssue {
  const out: RunIssue = {
    ...place,
    entity,
    field: issue.field,
    target: issue.target,
    code: issue.code,
    severity: issue.severity,
    message: issue.message,
  };
  if (issue.value !== undefined) out.value = issue.value;
  return out;
}

function positionLabel(place: Place): string {
  return place.line !== undefined ? `${place.line}:entry[${place.entry}]` : `entry[${place.entry}]`;
}

export function describeJsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value === "bigint" ? "number" : typeof value}`;
}
