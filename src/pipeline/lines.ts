// Cuts a byte stream into batches of whole lines without decoding it: the main thread only finds
// newlines, so parsing can happen in the workers.
import type { LinesBatch } from "./types.js";

export interface LineBatchOptions {
  file: string;
  entity: string | undefined;
  bundles: boolean;
  /** Cut a batch once it holds at least this many bytes (a line is never split). */
  batchBytes: number;
  /** Told the size of every chunk read, for progress. */
  onBytes?: (bytes: number) => void;
}

export async function* lineBatches(
  input: AsyncIterable<Uint8Array>,
  options: LineBatchOptions,
): AsyncGenerator<LinesBatch> {
  const { file, entity, bundles, batchBytes, onBytes } = options;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let nextLine = 1;

  const cut = (parts: Uint8Array[], bytes: number): LinesBatch => {
    const text = parts.length === 1 ? parts[0]! : Buffer.concat(parts, bytes);
    const batch: LinesBatch = { kind: "lines", file, entity, bundles, firstLine: nextLine, text };
    nextLine += countNewlines(text);
    return batch;
  };

  for await (const chunk of input) {
    onBytes?.(chunk.length);
    if (pendingBytes + chunk.length < batchBytes) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      continue;
    }
    const lastNewline = chunk.lastIndexOf(0x0a);
    if (lastNewline === -1) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      continue;
    }
    const head = chunk.subarray(0, lastNewline + 1);
    pending.push(head);
    yield cut(pending, pendingBytes + head.length);
    const tail = chunk.subarray(lastNewline + 1);
    pending = tail.length > 0 ? [tail] : [];
    pendingBytes = tail.length;
  }
  if (pendingBytes > 0) yield cut(pending, pendingBytes);
}

function countNewlines(bytes: Uint8Array): number {
  let count = 0;
  let at = bytes.indexOf(0x0a);
  while (at !== -1) {
    count++;
    at = bytes.indexOf(0x0a, at + 1);
  }
  return count;
}
