// CSV lines gathered per table until a batch is written, encoded as they come into ~64 KB byte chunks (a
// COPY stream or a file then gets a few large writes of bytes ready to send). Bytes, not joined strings:
// a batch's lines would otherwise live on the JavaScript heap until the batch is written, long enough to be
// promoted and collected by full collections, and be flattened and encoded once more on the way out.
const CHUNK = 1 << 16;

interface Table {
  chunks: Uint8Array[];
  current: Buffer;
  used: number;
  rows: number;
}

export class TableBuffers {
  private readonly tables = new Map<string, Table>();
  rows = 0;

  add(table: string, line: string): void {
    let t = this.tables.get(table);
    if (!t) {
      t = { chunks: [], current: Buffer.allocUnsafe(CHUNK), used: 0, rows: 0 };
      this.tables.set(table, t);
    }
    // A UTF-16 unit takes at most 3 bytes in UTF-8.
    if (t.used + line.length * 3 > t.current.length) {
      if (t.used > 0) t.chunks.push(t.current.subarray(0, t.used));
      t.current = Buffer.allocUnsafe(Math.max(CHUNK, line.length * 3));
      t.used = 0;
    }
    t.used += t.current.write(line, t.used);
    t.rows++;
    this.rows++;
  }

  /** The tables with rows, in insertion order (the caller orders them as it needs). */
  names(): string[] {
    return [...this.tables.keys()];
  }

  rowsOf(table: string): number {
    return this.tables.get(table)?.rows ?? 0;
  }

  /** The chunks of a table (its last, partial one included). */
  chunks(table: string): Uint8Array[] {
    const t = this.tables.get(table);
    if (!t) return [];
    return t.used > 0 ? [...t.chunks, t.current.subarray(0, t.used)] : t.chunks;
  }

  /** Hands over every table's chunks and row count, and starts empty. */
  take(): Map<string, { chunks: Uint8Array[]; rows: number }> {
    const out = new Map<string, { chunks: Uint8Array[]; rows: number }>();
    for (const name of this.names()) out.set(name, { chunks: this.chunks(name), rows: this.rowsOf(name) });
    this.clear();
    return out;
  }

  clear(): void {
    this.tables.clear();
    this.rows = 0;
  }
}
