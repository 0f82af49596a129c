// Batches larger than one NATS message (wide CSV rows, long NDJSON lines) are cut in halves until each
// piece fits, and the pieces' results joined back in order, so that the coordinator's output is still
// exactly what one local batch gives. Only a single record too large for a message is mapped locally.
import type { Batch, BatchResult, LinesBatch } from "../pipeline/types.js";
import { encodeBatch, joinPayload } from "./codec.js";

export interface Piece {
  batch: Batch;
  /** The encoded batch, or undefined when a single record does not fit. */
  payload: Uint8Array | undefined;
}

export function fitBatch(batch: Batch, max: number): Piece[] {
  const payload = encodeBatch(batch);
  if (payload.length <= max) return [{ batch, payload }];
  const halves = halve(batch);
  if (!halves) return [{ batch, payload: undefined }];
  return [...fitBatch(halves[0], max), ...fitBatch(halves[1], max)];
}

function halve(batch: Batch): [Batch, Batch] | undefined {
  if (batch.kind === "records") {
    if (batch.records.length < 2) return undefined;
    const mid = batch.records.length >> 1;
    return [
      { ...batch, records: batch.records.slice(0, mid) },
      { ...batch, records: batch.records.slice(mid) },
    ];
  }
  return halveLines(batch);
}

function halveLines(batch: LinesBatch): [LinesBatch, LinesBatch] | undefined {
  const bytes = typeof batch.text === "string" ? Buffer.from(batch.text, "utf8") : batch.text;
  // The newline nearest after the middle, or failing that before it; none inside means one line.
  let cut = bytes.indexOf(0x0a, bytes.length >> 1);
  if (cut === -1 || cut === bytes.length - 1) cut = bytes.lastIndexOf(0x0a, (bytes.length >> 1) - 1);
  if (cut === -1 || cut === bytes.length - 1) return undefined;
  const head = bytes.subarray(0, cut + 1);
  let lines = 0;
  for (let at = head.indexOf(0x0a); at !== -1; at = head.indexOf(0x0a, at + 1)) lines++;
  return [
    { ...batch, text: head },
    { ...batch, text: bytes.subarray(cut + 1), firstLine: batch.firstLine + lines },
  ];
}

/** The pieces' results as one batch's: what the stage gives for the whole, up to a fatal error. */
export function joinResults(results: readonly BatchResult[]): BatchResult {
  if (results.length === 1) return results[0]!;
  const out: BatchResult = {
    output: {},
    recordsIn: 0,
    recordsOut: 0,
    recordsFailed: 0,
    recordsWithErrors: 0,
    skipped: {},
    issues: [],
  };
  const output = new Map<string, Uint8Array[]>();
  const encoder = new TextEncoder();
  for (const r of results) {
    for (const [entity, text] of Object.entries(r.output)) {
      const list = output.get(entity) ?? [];
      list.push(typeof text === "string" ? encoder.encode(text) : text);
      output.set(entity, list);
    }
    out.recordsIn += r.recordsIn;
    out.recordsOut += r.recordsOut;
    out.recordsFailed += r.recordsFailed;
    out.recordsWithErrors += r.recordsWithErrors;
    for (const [k, n] of Object.entries(r.skipped)) out.skipped[k] = (out.skipped[k] ?? 0) + n;
    for (const i of r.issues) out.issues.push(i);
    if (r.held) {
      out.held ??= [];
      for (const h of r.held) out.held.push(h);
    }
    // --on-error fail: the whole batch stops at this record, so nothing after it counts.
    if (r.fatal) {
      out.fatal = r.fatal;
      break;
    }
  }
  for (const [entity, parts] of output) out.output[entity] = joinPayload(parts);
  return out;
}
