// Batches and batch results as NATS payloads: one line of JSON (what the pipeline's types hold besides
// bytes), then the bytes as they are. NDJSON input and mapped output never go through JSON again.
import { parseJson, stringifyJson } from "../pipeline/json.js";
import type { Batch, BatchResult, LinesBatch, ParsedRecord, RecordsBatch } from "../pipeline/types.js";

const decoder = new TextDecoder();

/**
 * The head line holds every field of a batch or result but its bytes, whatever fields the pipeline's types
 * gain: a field left out here would be lost on the way through NATS without a word (JSON-array batches'
 * `array` flag once was).
 */
type LinesHead = Omit<LinesBatch, "text" | "entity"> & { entity: string | null };
type RecordsHead = Omit<RecordsBatch, "records" | "entity"> & { entity: string | null };
type ResultHead = Omit<BatchResult, "output"> & {
  /** Target entity and byte length of each output slice, in the order the body holds them. */
  output: [string, number][];
};

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
    const { text, entity, ...rest } = batch;
    const head: LinesHead = { ...rest, entity: entity ?? null };
    return frame(head, [text]);
  }
  const { records, entity, ...rest } = batch;
  const head: RecordsHead = { ...rest, entity: entity ?? null };
  // Parsed CSV cells: stringifyJson/parseJson keep integers beyond 2^53 as bigint both ways.
  return frame(head, [stringifyJson(records)]);
}

export function decodeBatch(data: Uint8Array): Batch {
  const { head, body } = unframe(data);
  const h = head as LinesHead | RecordsHead;
  if (h.kind === "lines") return { ...h, entity: h.entity ?? undefined, text: body };
  if (h.kind === "records") {
    const records = parseJson(decoder.decode(body)) as ParsedRecord[];
    return { ...h, entity: h.entity ?? undefined, records };
  }
  throw new Error(`not a crossmap batch: kind ${JSON.stringify((h as { kind?: unknown }).kind)}`);
}

export function encodeResult(result: BatchResult): Uint8Array {
  const lengths: [string, number][] = [];
  const body: (string | Uint8Array)[] = [];
  const { output, ...rest } = result;
  for (const [entity, text] of Object.entries(output)) {
    lengths.push([entity, typeof text === "string" ? Buffer.byteLength(text, "utf8") : text.length]);
    body.push(text);
  }
  const head: ResultHead = { ...rest, output: lengths };
  return frame(head, body);
}

export function decodeResult(data: Uint8Array): BatchResult {
  const { head, body } = unframe(data);
  const { output: lengths, ...rest } = head as ResultHead;
  const output: Record<string, Uint8Array> = {};
  let at = 0;
  for (const [entity, length] of lengths) {
    output[entity] = body.subarray(at, at + length);
    at += length;
  }
  if (at !== body.length) throw new Error(`result body has ${body.length} bytes, its head says ${at}`);
  return { ...rest, output };
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
