// Batches and batch results as NATS payloads: one line of JSON (what the pipeline's types hold besides
// bytes), then the bytes as they are. NDJSON input and mapped output never go through JSON again.
import { parseJson, stringifyJson } from "../pipeline/json.js";
import type { Batch, BatchResult, ParsedRecord, RunIssue } from "../pipeline/types.js";

const decoder = new TextDecoder();

interface LinesHead {
  kind: "lines";
  file: string;
  entity: string | null;
  bundles: boolean;
  firstLine: number;
}

interface RecordsHead {
  kind: "records";
  file: string;
  entity: string | null;
}

interface ResultHead {
  recordsIn: number;
  recordsOut: number;
  recordsFailed: number;
  recordsWithErrors: number;
  skipped: Record<string, number>;
  issues: RunIssue[];
  fatal?: RunIssue;
  /** Target entity and byte length of each output slice, in the order the body holds them. */
  output: [string, number][];
}

/**
 * Head line and body in one buffer, text encoded straight into it: one allocation, not zero-filled, and
 * no intermediate copy of the (often hundreds of KB of) output text.
 */
function frame(head: unknown, body: readonly (string | Uint8Array)[]): Uint8Array {
  // JSON text holds no raw newline, so the first one ends the head.
  const headText = `${stringifyJson(head)}\n`;
  let size = Buffer.byteLength(headText, "utf8");
  for (const b of body) size += typeof b === "string" ? Buffer.byteLength(b, "utf8") : b.length;
  const out = Buffer.allocUnsafe(size);
  let at = out.write(headText, 0, "utf8");
  for (const b of body) {
    if (typeof b === "string") at += out.write(b, at, "utf8");
    else {
      out.set(b, at);
      at += b.length;
    }
  }
  return out;
}

function unframe(data: Uint8Array): { head: unknown; body: Uint8Array } {
  const nl = data.indexOf(0x0a);
  if (nl < 0) throw new Error("not a crossmap message: no head line");
  return { head: parseJson(decoder.decode(data.subarray(0, nl))), body: data.subarray(nl + 1) };
}

export function encodeBatch(batch: Batch): Uint8Array {
  if (batch.kind === "lines") {
    const head: LinesHead = {
      kind: "lines",
      file: batch.file,
      entity: batch.entity ?? null,
      bundles: batch.bundles,
      firstLine: batch.firstLine,
    };
    return frame(head, [batch.text]);
  }
  const head: RecordsHead = { kind: "records", file: batch.file, entity: batch.entity ?? null };
  // Parsed CSV cells: stringifyJson/parseJson keep integers beyond 2^53 as bigint both ways.
  return frame(head, [stringifyJson(batch.records)]);
}

export function decodeBatch(data: Uint8Array): Batch {
  const { head, body } = unframe(data);
  const h = head as LinesHead | RecordsHead;
  if (h.kind === "lines") {
    return {
      kind: "lines",
      file: h.file,
      entity: h.entity ?? undefined,
      bundles: h.bundles,
      firstLine: h.firstLine,
      text: body,
    };
  }
  if (h.kind === "records") {
    const records = parseJson(decoder.decode(body)) as ParsedRecord[];
    return { kind: "records", file: h.file, entity: h.entity ?? undefined, records };
  }
  throw new Error(`not a crossmap batch: kind ${JSON.stringify((h as { kind?: unknown }).kind)}`);
}

export function encodeResult(result: BatchResult): Uint8Array {
  const output: [string, number][] = [];
  const body: (string | Uint8Array)[] = [];
  for (const [entity, text] of Object.entries(result.output)) {
    output.push([entity, typeof text === "string" ? Buffer.byteLength(text, "utf8") : text.length]);
    body.push(text);
  }
  const head: ResultHead = {
    recordsIn: result.recordsIn,
    recordsOut: result.recordsOut,
    recordsFailed: result.recordsFailed,
    recordsWithErrors: result.recordsWithErrors,
    skipped: result.skipped,
    issues: result.issues,
    output,
  };
  if (result.fatal) head.fatal = result.fatal;
  return frame(head, body);
}

export function decodeResult(data: Uint8Array): BatchResult {
  const { head, body } = unframe(data);
  const h = head as ResultHead;
  const output: Record<string, Uint8Array> = {};
  let at = 0;
  for (const [entity, length] of h.output) {
    output[entity] = body.subarray(at, at + length);
    at += length;
  }
  if (at !== body.length) throw new Error(`result body has ${body.length} bytes, its head says ${at}`);
  const result: BatchResult = {
    output,
    recordsIn: h.recordsIn,
    recordsOut: h.recordsOut,
    recordsFailed: h.recordsFailed,
    recordsWithErrors: h.recordsWithErrors,
    skipped: h.skipped,
    issues: h.issues,
  };
  if (h.fatal) result.fatal = h.fatal;
  return result;
}

/** Cuts a payload into pieces of at most `max` bytes (views, not copies). */
export function splitPayload(data: Uint8Array, max: number): Uint8Array[] {
  if (data.length <= max) return [data];
  const parts: Uint8Array[] = [];
  for (let at = 0; at < data.length; at += max) parts.push(data.subarray(at, at + max));
  return parts;
}

export function joinPayload(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  let size = 0;
  for (const p of parts) size += p.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
