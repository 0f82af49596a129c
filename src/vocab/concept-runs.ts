// External sort of encoded concepts by concept_id. Chunks that fit in memory never touch the disk;
// larger inputs spill sorted runs and are merged back.
import { join } from "node:path";
import { resized } from "./resized.js";
import { mergeSorted, RunReader, RunWriter } from "./run-files.js";

// Chunks hold at most 2^21 entries so `id * 2^21 + position` is an exact double: a native numeric sort of
// those keys is stable and much faster than sorting objects with a comparator.
const MAX_CHUNK = 1 << 21;

export interface EncodedConcept {
  id: number;
  /** layout.encodeConcept output. */
  value: string;
  /** layout.codeKey of its vocabulary and code, and its preference rank (athena-rows.codeRank). */
  codeKey: number;
  rank: number;
}

export class ConceptSorter {
  private readonly chunkSize: number;
  private ids: Uint32Array;
  private keys: Uint32Array;
  private ranks: Uint8Array;
  private values: string[] = [];
  private readonly runs: string[] = [];

  constructor(
    private readonly dir: string,
    chunkSize: number,
  ) {
    this.chunkSize = Math.max(1, Math.min(chunkSize, MAX_CHUNK));
    const size = Math.min(this.chunkSize, 1 << 16);
    this.ids = new Uint32Array(size);
    this.keys = new Uint32Array(size);
    this.ranks = new Uint8Array(size);
  }

  add(id: number, value: string, codeKey: number, rank: number): void {
    const n = this.values.length;
    if (n === this.ids.length) this.grow(Math.min(this.chunkSize, n * 2));
    this.ids[n] = id;
    this.keys[n] = codeKey;
    this.ranks[n] = rank;
    this.values.push(value);
    if (n + 1 >= this.chunkSize) this.spill();
  }

  private grow(size: number): void {
    this.ids = resized(this.ids, size);
    this.keys = resized(this.keys, size);
    this.ranks = resized(this.ranks, size);
  }

  private sortedOrder(): Float64Array {
    const n = this.values.length;
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i++) keys[i] = this.ids[i]! * MAX_CHUNK + i;
    keys.sort();
    for (let i = 0; i < n; i++) keys[i] = keys[i]! % MAX_CHUNK;
    return keys;
  }

  private spill(): void {
    const w = new RunWriter(join(this.dir, `concepts-${this.runs.length}.run`));
    for (const i of this.sortedOrder()) {
      w.u32(this.ids[i]!);
      w.u32(this.keys[i]!);
      w.u32(this.ranks[i]!);
      w.str(this.values[i]!);
    }
    w.close();
    this.runs.push(w.path);
    this.values = [];
  }

  /** Entries in concept_id order; equal ids in input order. Call once, after the last add. */
  byId(): Iterable<EncodedConcept> {
    if (this.runs.length === 0) {
      const order = this.sortedOrder();
      return Array.from(order, (i) => ({
        id: this.ids[i]!,
        value: this.values[i]!,
        codeKey: this.keys[i]!,
        rank: this.ranks[i]!,
      }));
    }
    if (this.values.length > 0) this.spill();
    return mergeSorted(
      this.runs.map((path) => readRun(path)),
      (a, b) => a.id < b.id,
    );
  }
}

function* readRun(path: string): Generator<EncodedConcept> {
  const r = new RunReader(path);
  try {
    while (r.has(1)) yield { id: r.u32(), codeKey: r.u32(), rank: r.u32(), value: r.str() };
  } finally {
    r.close();
  }
}
