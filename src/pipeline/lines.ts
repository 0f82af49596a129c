// Cuts a byte stream into batches of whole lines without decoding it: the main thread only finds
// newlines, so parsing can happen in the workers. A line over the per-record limit is never held whole:
// it is dropped as it streams by and reported, and the lines after it are read as usual.
import type { Batch, LinesBatch, RecordsBatch } from "./types.js";

export interface LineBatchOptions {
  file: string;
  entity: string | undefined;
  bundles: boolean;
  /** Cut a batch once it holds at least this many bytes (a line is never split). */
  batchBytes: number;
  /** A line longer than this many bytes is an issue, not a record. */
  maxRecordBytes: number;
  /** How the limit is named in messages, e.g. "64 MiB (--max-record-bytes)". */
  limitLabel: string;
}

export async function* lineBatches(
  input: AsyncIterable<Uint8Array>,
  options: LineBatchOptions,
): AsyncGenerator<Batch> {
  const { file, entity, bundles, batchBytes, maxRecordBytes } = options;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  /** Bytes of `pending` after its last newline: the line being read. */
  let partial = 0;
  let nextLine = 1;
  /** Dropping a line over the limit: its number and length so far. */
  let skipping: { line: number; bytes: number } | undefined;

  const tooLarge = (line: number, bytes: number): RecordsBatch => ({
    kind: "records",
    file,
    entity,
    records: [
      {
        record: {},
        line,
        problem: `the line is ${bytes} bytes long, over the limit of ${options.limitLabel} per record; it is not read`,
        problemCode: "record_too_large",
      },
    ],
  });

  /** The batches of `parts` (whole lines), splitting out any line over the limit. */
  function* cut(parts: Uint8Array[], bytes: number): Generator<Batch> {
    const text = parts.length === 1 ? parts[0]! : Buffer.concat(parts, bytes);
    let start = 0;
    let from = 0;
    let line = nextLine;
    let first = nextLine;
    for (let nl = text.indexOf(0x0a); nl !== -1; nl = text.indexOf(0x0a, nl + 1)) {
      if (nl - start > maxRecordBytes) {
        if (start > from) yield linesBatch(text.subarray(from, start), first);
        yield tooLarge(line, nl - start);
        from = nl + 1;
        first = line + 1;
      }
      start = nl + 1;
      line++;
    }
    if (text.length - start > maxRecordBytes) {
      if (start > from) yield linesBatch(text.subarray(from, start), first);
      yield tooLarge(line, text.length - start);
      from = text.length;
      line++;
    } else if (start < text.length) line++;
    if (from < text.length) yield linesBatch(from === 0 ? text : text.subarray(from), first);
    nextLine = line;
  }

  const linesBatch = (text: Uint8Array, firstLine: number): LinesBatch => ({
    kind: "lines",
    file,
    entity,
    bundles,
    firstLine,
    text,
  });

  for await (const read of input) {
    let chunk = read;
    if (skipping) {
      const nl = chunk.indexOf(0x0a);
      if (nl === -1) {
        skipping.bytes += chunk.length;
        continue;
      }
      yield tooLarge(skipping.line, skipping.bytes + nl);
      nextLine = skipping.line + 1;
      skipping = undefined;
      chunk = chunk.subarray(nl + 1);
    }
    // A read chunk may hold several batches: cut at the first newline once a batch has its bytes.
    let start = 0;
    for (;;) {
      const from = start + Math.max(0, batchBytes - pendingBytes - 1);
      const newline = from < chunk.length ? chunk.indexOf(0x0a, from) : -1;
      if (newline === -1) {
        if (start < chunk.length) {
          pending.push(chunk.subarray(start));
          pendingBytes += chunk.length - start;
          const last = chunk.lastIndexOf(0x0a);
          partial = last >= start ? chunk.length - last - 1 : partial + chunk.length - start;
        }
        break;
      }
      const head = chunk.subarray(start, newline + 1);
      pending.push(head);
      yield* cut(pending, pendingBytes + head.length);
      pending = [];
      pendingBytes = 0;
      partial = 0;
      start = newline + 1;
    }
    if (partial > maxRecordBytes) {
      // The line being read is already over the limit: hand on the whole lines before it and drop it.
      const whole = pendingBytes - partial;
      if (whole > 0) yield* cut(takeBytes(pending, whole), whole);
      skipping = { line: nextLine, bytes: partial };
      pending = [];
      pendingBytes = 0;
      partial = 0;
    }
  }
  if (skipping) yield tooLarge(skipping.line, skipping.bytes);
  else if (pendingBytes > 0) yield* cut(pending, pendingBytes);
}

/** The first `bytes` bytes of `parts`, as views. */
function takeBytes(parts: Uint8Array[], bytes: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let left = bytes;
  for (const p of parts) {
    if (left <= 0) break;
    out.push(p.length <= left ? p : p.subarray(0, left));
    left -= p.length;
  }
  return out;
}
