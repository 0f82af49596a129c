// The per-record size limit of `crossmap map` (--max-record-bytes) and what it implies for worker heaps:
// one record too large for a worker's heap must be an issue, never a dead worker and a lost run.

/**
 * Default limit per record. A worker parses a record whole: measured, a record of 16 or 32 MiB of the
 * densest JSON (tiny objects) parses and serialises within a worker's 512 MB heap, one of 64 MiB does not.
 */
export const DEFAULT_MAX_RECORD_BYTES = 16 * 2 ** 20;
export const MIN_MAX_RECORD_BYTES = 1024;
/** V8 cannot hold a string much longer than 2^29 characters; a record past that could never be read. */
export const MAX_MAX_RECORD_BYTES = 512 * 2 ** 20;

/**
 * Old-generation ceiling of a worker, in MB. V8 paces collections by the ceiling, so a modest one keeps
 * each worker's heap small (~28 MB, pool.ts); a larger per-record limit raises it to 32x the limit.
 */
export function workerHeapMb(maxRecordBytes: number): number {
  return Math.max(512, Math.ceil((maxRecordBytes / 2 ** 20) * 32));
}

const UNITS: Record<string, number> = { "": 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30 };

/** `16M`, `16MiB`, `64k`, `1G` or a plain number of bytes; undefined when it is none of those. */
export function parseByteSize(text: string): number | undefined {
  const m = /^(\d+)\s*([kmg]?)(?:i?b)?$/i.exec(text.trim());
  if (!m) return undefined;
  const n = Number(m[1]) * UNITS[m[2]!.toLowerCase()]!;
  return Number.isSafeInteger(n) ? n : undefined;
}
