// The mapping stage: turns one input batch into output text, counts and issues. It runs wherever the
// work happens (a worker, or the main thread with --workers 1) and never throws for bad input.
import { isHeld } from "../crossmap/gather.js";
import type { MappingIssue, Position, SourceRecord } from "../crossmap/types.js";
import { jsonSyntaxMessage, parseJson, stringifyJson } from "./json.js";
import type { EntityMapper, MappingPlan } from "./plan.js";
import type {
  Batch,
  BatchResult,
  HeldRecord,
  LinesBatch,
  OnError,
  ParsedRecord,
  RecordsBatch,
  RunIssue,
} from "./types.js";
import { unreadCheck } from "./unread.js";
import { invalidUtf8Lines } from "./utf8.js";

export interface StageOptions {
  onError: OnError;
  /** Split output by target entity (for --out-dir); otherwise all output goes under "". */
  perEntity: boolean;
  /**
   * Report the input columns the crossmap does not read (`unread_column`, once per file and entity);
   * default true. A record feed (`crossmap stream`) sets false: each message is its own "file", so every
   * message would repeat them and the memory of what was reported would grow without end.
   */
  unread?: boolean;
}

export type BatchMapper = (batch: Batch) => BatchResult;

/** Where a record is, for issues. */
interface Place {
  file: string;
  line?: number;
  entry?: number;
}

/** Builds the stage once per run, so the per-record path never re-reads options. */
export function createBatchMapper(plan: MappingPlan, options: StageOptions): BatchMapper {
  const failFast = options.onError === "fail";
  const perEntity = options.perEntity;
  const gatherPlan = plan.gather;
  const unread = options.unread === false ? undefined : unreadCheck(plan);

  return (batch) => {
    const result: BatchResult = {
      output: {},
      recordsIn: 0,
      recordsOut: 0,
      recordsFailed: 0,
      recordsWithErrors: 0,
      skipped: {},
      issues: [],
    };

    const output = result.output as Record<string, string>;
    const emit = (key: string, text: string): void => {
      const slot = perEntity ? key : "";
      output[slot] = (output[slot] ?? "") + text;
    };

    /** Records a record that cannot be written. Returns false when the run must stop. */
    const reject = (issue: RunIssue): boolean => {
      result.recordsIn++;
      result.recordsFailed++;
      result.recordsWithErrors++;
      result.issues.push(issue);
      if (failFast) result.fatal = issue;
      return !failFast;
    };

    /** Maps one parsed record. Returns false when the run must stop. */
    const mapRecord = (
      record: SourceRecord,
      place: Place,
      fileEntity: string | undefined,
      bundle: boolean,
    ) => {
      const entity =
        fileEntity ?? (typeof record.resourceType === "string" ? record.resourceType : undefined);
      if (entity === undefined) {
        return reject({
          ...place,
          code: "unknown_entity",
          severity: "error",
          message:
            "cannot tell the source entity: the record has no resourceType and the file name names no entity of the crossmap; give --entity",
        });
      }
      const mapper = plan.mapperFor(entity);
      const gap = mapper === undefined ? plan.gaps.get(entity) : undefined;
      if (gap !== undefined) {
        return reject({
          ...place,
          entity,
          code: "unmapped_entity",
          severity: "error",
          message: `${gap}; the record is not mapped`,
        });
      }
      if (bundle) {
        // Bundles carry every kind of resource; entries the run does not cover are counted, not failed, and
        // each one the crossmap has no mapping for is named in a warning (--entity leaves the others out on purpose).
        if (mapper === undefined || (fileEntity !== undefined && record.resourceType !== fileEntity)) {
          const kind = typeof record.resourceType === "string" ? record.resourceType : entity;
          result.skipped[kind] = (result.skipped[kind] ?? 0) + 1;
          if (mapper === undefined) {
            const id = typeof record.id === "string" ? `${kind}/${record.id}` : kind;
            result.issues.push({
              ...place,
              entity: kind,
              code: "unmapped_resource",
              severity: "warning",
              message: `${id} is left out: the crossmap has no mapping for ${kind}`,
            });
          }
          return true;
        }
      } else if (mapper === undefined) {
        return reject({
          ...place,
          entity,
          code: "unknown_entity",
          severity: "error",
          message: `the crossmap has no mapping for source entity "${entity}"${
            entity === "Bundle" ? "; to map the entries of FHIR Bundles, give --format fhir-bundle" : ""
          }`,
        });
      }
      result.recordsIn++;
      unread?.(record, place, entity, result.issues);
      const position: Position = place.entry !== undefined ? positionLabel(place) : (place.line ?? 0);
      if (mapper.multi === true && mapper.mapAll !== undefined)
        return mapMany(mapper, record, place, entity, position);
      const mapped = mapper.map(record, position);
      if (!recordIssues(mapped.issues, place, entity)) return false;
      result.recordsOut++;
      emit(mapper.targetEntity, stringifyJson(mapped.value) + "\n");
      return true;
    };

    /**
     * Counts one record's issues; false when its first error stops the run (--on-error fail). Shared by
     * the one-record and the several-records paths, so both report alike.
     */
    const recordIssues = (issues: readonly MappingIssue[], place: Place, entity: string): boolean => {
      let firstError: RunIssue | undefined;
      for (const issue of issues) {
        const runIssue = toRunIssue(issue, place, entity);
        result.issues.push(runIssue);
        if (firstError === undefined && issue.severity === "error") firstError = runIssue;
      }
      if (firstError === undefined) return true;
      result.recordsWithErrors++;
      if (!failFast) return true;
      result.fatal = firstError;
      return false;
    };

    /** A record that may produce several records, or none, or records that wait to be gathered. */
    const mapMany = (
      mapper: EntityMapper,
      record: SourceRecord,
      place: Place,
      entity: string,
      position: Position,
    ): boolean => {
      const mapped = (mapper.mapAll as NonNullable<EntityMapper["mapAll"]>)(record, position);
      if (!recordIssues(mapped.issues, place, entity)) return false;
      for (const o of mapped.outputs) {
        if (isHeld(gatherPlan, o.output, o.into)) {
          const held: HeldRecord = {
            output: o.output,
            entity: o.entity,
            json: stringifyJson(o.value),
            place: { ...place, entity },
          };
          if (o.key !== undefined) held.key = o.key;
          if (o.into !== undefined) held.into = o.into;
          if (o.id !== undefined) held.id = String(o.id);
          result.held ??= [];
          result.held.push(held);
          continue;
        }
        result.recordsOut++;
        emit(o.entity, stringifyJson(o.value) + "\n");
      }
      return true;
    };

    const mapBundle = (bundle: unknown, place: Place, fileEntity: string | undefined): boolean => {
      const entries = bundleEntries(bundle);
      if (typeof entries === "string") {
        return reject({ ...place, code: "invalid_record", severity: "error", message: entries });
      }
      for (let i = 0; i < entries.length; i++) {
        const resource = (entries[i] as { resource?: unknown } | null)?.resource;
        const entryPlace = { ...place, entry: i };
        if (!isPlainObject(resource)) {
          if (
            !reject({
              ...entryPlace,
              code: "invalid_record",
              severity: "error",
              message: "entry has no resource object",
            })
          ) {
            return false;
          }
          continue;
        }
        if (!mapRecord(resource, entryPlace, fileEntity, true)) return false;
      }
      return true;
    };

    if (batch.kind === "lines") mapLines(batch);
    else mapRecords(batch);
    return result;

    function mapLines(b: LinesBatch): void {
      let text: string;
      let invalid: Map<number, string> | undefined;
      if (typeof b.text === "string") text = b.text;
      else {
        invalid = invalidUtf8Lines(b.text, b.firstLine);
        text = Buffer.from(b.text.buffer, b.text.byteOffset, b.text.byteLength).toString("utf8");
      }
      if (b.firstLine === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      let start = 0;
      let line = b.firstLine;
      while (start < text.length) {
        let end = text.indexOf("\n", start);
        if (end === -1) end = text.length;
        const lineEnd = end > start && text.charCodeAt(end - 1) === 0x0d ? end - 1 : end;
        const lineText = text.slice(start, lineEnd);
        start = end + 1;
        const place: Place = { file: b.file, line };
        const fault = invalid?.get(line);
        line++;
        if (fault !== undefined) {
          if (!reject({ ...place, code: "invalid_utf8", severity: "error", message: fault })) return;
          continue;
        }
        if (isBlank(lineText)) continue;
        let value: unknown;
        try {
          value = parseJson(lineText);
        } catch (err) {
          if (
            !reject({
              ...place,
              code: "malformed_json",
              severity: "error",
              message: `malformed JSON: ${jsonSyntaxMessage(err)}`,
            })
          )
            return;
          continue;
        }
        const ok = b.bundles
          ? mapBundle(value, place, b.entity)
          : isPlainObject(value)
            ? mapRecord(value, place, b.entity, false)
            : reject({
                ...place,
                code: "invalid_record",
                severity: "error",
                message: `expected a JSON object, got ${describeJsonType(value)}${
                  Array.isArray(value)
                    ? "; to map the elements of a JSON array, give --format json-array"
                    : ""
                }`,
              });
        if (!ok) return;
      }
    }

    function mapRecords(b: RecordsBatch): void {
      for (const parsed of b.records) {
        if (!mapParsed(b, parsed)) return;
      }
    }

    function mapParsed(b: RecordsBatch, parsed: ParsedRecord): boolean {
      const place: Place = { file: b.file };
      if (parsed.line !== undefined) place.line = parsed.line;
      if (parsed.entry !== undefined) place.entry = parsed.entry;
      if (parsed.problem !== undefined) {
        const code = parsed.problemCode ?? "invalid_record";
        return reject({ ...place, code, severity: "error", message: parsed.problem });
      }
      return mapRecord(parsed.record, place, b.entity, parsed.entry !== undefined && b.array !== true);
    }
  };
}

const encoder = new TextEncoder();

/**
 * Turns a result's output text into UTF-8 bytes, in place, and returns their buffers. Workers do it so
 * the bytes can move to the main thread; the main thread does it for the batches it maps beside them,
 * because a batch's output is a rope of one small string per record that would otherwise survive young
 * collections while it waits its turn to be written (measured: 66 -> 23 MB copied by the main thread's
 * scavenges per 1M person rows, their pauses ~245 -> ~155 ms).
 */
export function encodeOutput(result: BatchResult): ArrayBuffer[] {
  const buffers: ArrayBuffer[] = [];
  for (const [entity, text] of Object.entries(result.output)) {
    if (typeof text !== "string") continue;
    // TextEncoder gives each result its own buffer (Buffer.from may use a shared pool), so it can move.
    const bytes = encoder.encode(text);
    result.output[entity] = bytes;
    buffers.push(bytes.buffer as ArrayBuffer);
  }
  return buffers;
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

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describeJsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value === "bigint" ? "number" : typeof value}`;
}

function isBlank(text: string): boolean {
  return text.length === 0 || text.trim().length === 0;
}
