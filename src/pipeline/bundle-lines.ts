// FHIR Bundles one per line: a line whose bytes are not all UTF-8 is read entry by entry, as a Bundle
// spread over many lines is, so only the entries with bad bytes are lost (read whole, the line was lost
// whole: one bad byte dropped every entry of its Bundle). Other lines go on as they are, to be parsed in
// the workers; the check is one isUtf8 pass per batch.
import { isUtf8 } from "node:buffer";
import type { Batch, LinesBatch, RecordsBatch } from "./types.js";

/** Reads one Bundle (one line's bytes) as the document reader does. */
export type ReadDocument = (bytes: AsyncIterable<Uint8Array>) => AsyncIterable<RecordsBatch>;

export async function* bundleLines(
  batches: AsyncIterable<Batch>,
  readDocument: ReadDocument,
): AsyncGenerator<Batch> {
  for await (const b of batches) {
    if (b.kind !== "lines" || typeof b.text === "string" || isUtf8(b.text)) yield b;
    else yield* splitBadLines(b, b.text, readDocument);
  }
}

async function* splitBadLines(
  b: LinesBatch,
  bytes: Uint8Array,
  readDocument: ReadDocument,
): AsyncGenerator<Batch> {
  let from = 0;
  let fromLine = b.firstLine;
  let line = b.firstLine;
  for (let start = 0; start < bytes.length; line++) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    const text = bytes.subarray(start, end);
    const next = end + 1;
    if (!isUtf8(text)) {
      if (start > from) yield { ...b, firstLine: fromLine, text: bytes.subarray(from, start) };
      for await (const r of readDocument(once(text))) {
        for (const record of r.records) record.line = line;
        yield r;
      }
      from = next;
      fromLine = line + 1;
    }
    start = next;
  }
  if (from < bytes.length) yield { ...b, firstLine: fromLine, text: bytes.subarray(from) };
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}
