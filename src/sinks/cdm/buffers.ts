// CSV lines gathered per table until a batch is written, joined into ~64 KB chunks as they come (a COPY
// stream or a file then gets a few large writes instead of one per row).
const CHUNK = 1 << 16;

export class TableBuffers {
  private readonly tables = new Map<string, { chunks: string[]; current: string; rows: number }>();
  rows = 0;

  add(table: string, line: string): void {
    let t = this.tables.get(table);
    if (!t) {
      t = { chunks: [], current: "", rows: 0 };
      this.tables.set(table, t);
    }
    t.current += line;
    t.rows++;
    this.rows++;
    if (t.current.length >= CHUNK) {
      t.chunks.push(t.current);
      t.current = "";
    }
  }

  /** The tables with rows, in insertion order (the caller orders them as it needs). */
  names(): string[] {
    return [...this.tables.keys()];
  }

  rowsOf(table: string): number {
    return this.tables.get(table)?.rows ?? 0;
  }

  /** The chunks of a table (its last, partial one included). */
  chunks(table: string): string[] {
    const t = this.tables.get(table);
    if (!t) return [];
    return t.current.length > 0 ? [...t.chunks, t.current] : t.chunks;
  }

  /** Hands over every table's chunks and row count, and starts empty. */
  take(): Map<string, { chunks: string[]; rows: number }> {
    const out = new Map<string, { chunks: string[]; rows: number }>();
    for (const name of this.names()) out.set(name, { chunks: this.chunks(name), rows: this.rowsOf(name) });
    this.clear();
    return out;
  }

  clear(): void {
    this.tables.clear();
    this.rows = 0;
  }
}
