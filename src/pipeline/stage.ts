// The mapping stage: turns one input batch into output text, counts and issues. It runs wherever the
// work happens (a worker, or the main thread with --workers 1) and never throws for bad input.

import { isPlainObject } from "./bundle-entry.js";
import type { Hl7v2StageOptions } from "./hl7v2/stage.js";
import { jsonSyntaxMessage, parseJson } from "./json.js";
import type { MappingPlan } from "./plan.js";
import { describeJsonType, type Place, RecordBatch, type RecordStage } from "./stage-records.js";
import type {
  AnyBatch,
  BatchResult,
  Er7Batch,
  LinesBatch,
  OnError,
  ParsedRecord,
  RecordsBatch,
} from "./types.js";
import { unreadCheck } from "./unread.js";
import { invalidUtf8Lines } from "./utf8.js";

export { isPlainObject } from "./bundle-entry.js";
export { bundleEntries } from "./stage-records.js";

export interface StageOptions {
  onError: OnError;
  /** Split output by target entity (for --out-dir); otherwise all output goes under "". */
  perEntity: boolean;
  /**
   * Report the input columns the crossmap does not read (`unread_column`, once per file and entity);
   * default true; never for HL7 v2 (its segments are not columns). A record feed (`crossmap stream`) sets false: each message is its own "file", so every
   * message would repeat them and the memory of what was reported would grow without end.
   */
  unread?: boolean;
  /** Set for HL7 v2 runs: how messages become Bundles (hl7v2/stage.ts). */
  hl7v2?: Hl7v2StageOptions;
}

export type BatchMapper = (batch: AnyBatch) => BatchResult;

/** Maps one HL7 v2 batch into a result (hl7v2/stage.ts; imported only by runs that read ER7). */
export type Er7Mapper = (batch: Er7Batch, result: BatchResult) => void;

/**
 * Builds the stage once per run, so the per-record path never re-reads options. HL7 v2 batches need
 * `er7`, made by the caller (its modules are loaded only for runs that read ER7).
 */
export function createBatchMapper(plan: MappingPlan, options: StageOptions, er7?: Er7Mapper): BatchMapper {
  const stage: RecordStage = {
    plan,
    failFast: options.onError === "fail",
    perEntity: options.perEntity,
    unread: options.unread === false || options.hl7v2 !== undefined ? undefined : unreadCheck(plan),
  };
  return (batch) => {
    const result = emptyResult();
    if (batch.kind === "er7") {
      if (er7 === undefined) throw new Error("an HL7 v2 batch reached a stage built without its mapper");
      er7(batch, result);
    } else if (batch.kind === "lines") mapLines(batch, new RecordBatch(stage, result));
    else mapRecords(batch, new RecordBatch(stage, result));
    return result;
  };
}

/** The stage of a run: HL7 v2 runs add their message mapper, whose modules are loaded only for them. */
export async function createStage(plan: MappingPlan, options: StageOptions): Promise<BatchMapper> {
  if (options.hl7v2 === undefined) return createBatchMapper(plan, options);
  const { createEr7BatchMapper, planMappers } = await import("./hl7v2/stage.js");
  const er7 = createEr7BatchMapper(planMappers(plan, options.hl7v2.reads), { ...options.hl7v2, ...options });
  return createBatchMapper(plan, options, er7);
}

function emptyResult(): BatchResult {
  return {
    output: {},
    recordsIn: 0,
    recordsOut: 0,
    recordsFailed: 0,
    recordsWithErrors: 0,
    skipped: {},
    issues: [],
  };
}

/** The text of a lines batch (bytes decoded here, in the worker) and its lines that are not UTF-8. */
function batchText(b: LinesBatch): { text: string; invalid: Map<number, string> | undefined } {
  let text: string;
  let invalid: Map<number, string> | undefined;
  if (typeof b.text === "string") text = b.text;
  else {
    invalid = invalidUtf8Lines(b.text, b.firstLine);
    text = Buffer.from(b.text.buffer, b.text.byteOffset, b.text.byteLength).toString("utf8");
  }
  if (b.firstLine === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return { text, invalid };
}

/** NDJSON lines: each parsed and mapped as a record (or, for --format fhir-bundle, a Bundle's entries). */
function mapLines(b: LinesBatch, run: RecordBatch): void {
  const { text, invalid } = batchText(b);
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
      if (!run.reject({ ...place, code: "invalid_utf8", severity: "error", message: fault })) return;
      continue;
    }
    if (isBlank(lineText)) continue;
    if (!mapLine(b, run, lineText, place)) return;
  }
}

/** One non-blank NDJSON line; false when the run must stop. */
function mapLine(b: LinesBatch, run: RecordBatch, lineText: string, place: Place): boolean {
  let value: unknown;
  try {
    value = parseJson(lineText);
  } catch (err) {
    const message = `malformed JSON: ${jsonSyntaxMessage(err)}`;
    return run.reject({ ...place, code: "malformed_json", severity: "error", message });
  }
  if (b.bundles) return run.mapBundle(value, place, b.entity);
  if (isPlainObject(value)) return run.mapRecord(value, place, b.entity, false);
  return run.reject({
    ...place,
    code: "invalid_record",
    severity: "error",
    message: `expected a JSON object, got ${describeJsonType(value)}${
      Array.isArray(value) ? "; to map the elements of a JSON array, give --format json-array" : ""
    }`,
  });
}

/** Records a reader parsed already (CSV rows, Bundle entries, array elements). */
function mapRecords(b: RecordsBatch, run: RecordBatch): void {
  for (const parsed of b.records) if (!mapParsed(b, run, parsed)) return;
}

function mapParsed(b: RecordsBatch, run: RecordBatch, parsed: ParsedRecord): boolean {
  const place: Place = { file: b.file };
  if (parsed.line !== undefined) place.line = parsed.line;
  if (parsed.entry !== undefined) place.entry = parsed.entry;
  if (parsed.problem !== undefined) {
    const code = parsed.problemCode ?? "invalid_record";
    return run.reject({ ...place, code, severity: "error", message: parsed.problem });
  }
  if (parsed.skipped !== undefined)
    return run.skipRequest(place, parsed.skippedKind ?? "request", parsed.skipped);
  return run.mapRecord(parsed.record, place, b.entity, parsed.entry !== undefined && b.array !== true);
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

function isBlank(text: string): boolean {
  return text.length === 0 || text.trim().length === 0;
}
