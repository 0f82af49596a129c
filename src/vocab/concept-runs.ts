// External sort of concept rows, twice: by concept_id (for the concepts database) and by
// (vocabulary_id, concept_code, preference) (for the codes database). Chunks that fit in memory never
// touch the disk; larger inputs spill sorted runs and are merged back.
import { join } from "node:path";
import { mergeSorted, RunReader, RunWriter } from "./run-files.js";

export interface ConceptEntry {
  id: number;
  /** The encoded concept value (see layout.encodeConcept). */
  value: Buffer;
  vocab: string;
  code: string;
  /** Lower is preferred when one (vocabulary, code) names several concepts: standard, then valid. */
  rank: number;
}

export interface CodeEntry {
  vocab: string;
  code: string;
  rank: number;
  id: number;
}

const byId = (a: { id: number }, b: { id: number }) => a.id - b.id;
const codeLess = (a: CodeEntry, b: CodeEntry): boolean =>
  a.vocab !== b.vocab
    ? a.vocab < b.vocab
    : a.code !== b.code
      ? a.code < b.code
      : a.rank !== b.rank
        ? a.rank < b.rank
        : a.id < b.id;
const byCode = (a: CodeEntry, b: CodeEntry) => (codeLess(a, b) ? -1 : codeLess(b, a) ? 1 : 0);

export class ConceptSorter {
  private chunk: ConceptEntry[] = [];
  private readonly idRuns: string[] = [];
  private readonly codeRuns: string[] = [];

  constructor(
    private readonly dir: string,
    private readonly chunkSize: number,
  ) {}

  add(entry: ConceptEntry): void {
    this.chunk.push(entry);
    if (this.chunk.length >= this.chunkSize) this.spill();
  }

  private spill(): void {
    const n = this.idRuns.length;
    const ids = new RunWriter(join(this.dir, `concepts-id-${n}.run`));
    for (const e of this.chunk.slice().sort(byId)) {
      ids.u32(e.id);
      ids.bytes(e.value);
      ids.str(e.vocab);
    }
    ids.close();
    const codes = new RunWriter(join(this.dir, `concepts-code-${n}.run`));
    for (const e of this.chunk.sort(byCode)) {
      codes.str(e.vocab);
      codes.str(e.code);
      codes.u8(e.rank);
      codes.u32(e.id);
    }
    codes.close();
    this.idRuns.push(ids.path);
    this.codeRuns.push(codes.path);
    this.chunk = [];
  }

  /** Call once all rows are added: spills the last chunk if earlier ones were spilled. */
  finish(): void {
    if (this.idRuns.length > 0 && this.chunk.length > 0) this.spill();
  }

  /** Entries in concept_id order; equal ids in input order. */
  byId(): Iterable<Pick<ConceptEntry, "id" | "value" | "vocab">> {
    if (this.idRuns.length === 0) return this.chunk.slice().sort(byId);
    return mergeSorted(
      this.idRuns.map((path) => readRun(path, (r) => ({ id: r.u32(), value: r.bytes(), vocab: r.str() }))),
      (a, b) => a.id < b.id,
    );
  }

  /** Entries in (vocabulary_id, concept_code, rank, concept_id) order. */
  byCode(): Iterable<CodeEntry> {
    if (this.codeRuns.length === 0) return this.chunk.slice().sort(byCode);
    return mergeSorted(
      this.codeRuns.map((path) =>
        readRun(path, (r) => ({ vocab: r.str(), code: r.str(), rank: r.u8(), id: r.u32() })),
      ),
      codeLess,
    );
  }
}

function* readRun<T>(path: string, read: (r: RunReader) => T): Generator<T> {
  const r = new RunReader(path);
  try {
    while (r.has(1)) yield read(r);
  } finally {
    r.close();
  }
}
