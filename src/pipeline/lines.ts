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
    // A read chunk may hold several batches: cut at the first newline once a batch has its bytes.
    let start = 0;
    for (;;) {
      const from = start + Math.max(0, batchBytes - pendingBytes - 1);
      const newline = from < chunk.length ? chunk.indexOf(0x0a, from) : -1;
      if (newline === -1) {
        if (start < chunk.length) {
          pending.push(chunk.subarray(start));
          pendingBytes += chunk.length - start;
        }
        break;
      }
      const head = chunk.subarray(start, newline + 1);
      pending.push(head);
      yield cut(pending, pendingBytes + head.length);
      pending = [];
      pendingBytes = 0;
      start = newline + 1;
    }
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
