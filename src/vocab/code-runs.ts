// External sort of encoded concepts by code hash, for the codes database: each concept's value travels
// through the sort with it, so the codes values are written without reading a single concept back (a
// read-back in hash order is a random read per concept: measured 25 s and +400 MB of mapped pages at 5M
// concepts). Chunks that fit in memory never touch the disk; larger inputs spill sorted runs.
import { join } from "node:path";
import { CODE_ENTRY_HEADER } from "./layout.js";
import { radixOrder } from "./radix-order.js";
import { mergeSorted, RunReader, RunWriter } from "./run-files.js";

const MAX_CHUNK = 1 << 21;

interface CodeEntry {
  hash: number;
  /** Preference rank (athena-rows.codeRank): lower first. */
  rank: number;
  id: number;
  value: string;
}

/** Says whether an entry belongs in the index (e.g. not the losing row of a duplicated concept_id). */
export type KeepEntry = (conceptId: number, value: string) => boolean;

export class CodeSorter {
  private readonly chunkSize: number;
  private hashes: Uint32Array;
  private ids: Uint32Array;
  private ranks: Uint8Array;
  private values: string[] = [];
  private readonly runs: string[] = [];

  constructor(
    private readonly dir: string,
    chunkSize: number,
  ) {
    this.chunkSize = Math.max(1, Math.min(chunkSize, MAX_CHUNK));
    const size = Math.min(this.chunkSize, 1 << 16);
    this.hashes = new Uint32Array(size);
    this.ids = new Uint32Array(size);
    this.ranks = new Uint8Array(size);
  }

  add(hash: number, rank: number, id: number, value: string): void {
    const n = this.values.length;
    if (n === this.hashes.length) this.grow(Math.min(this.chunkSize, n * 2));
    this.hashes[n] = hash;
    this.ids[n] = id;
    this.ranks[n] = rank;
    this.values.push(value);
    if (n + 1 >= this.chunkSize) this.spill();
  }

  private grow(size: number): void {
    const hashes = new Uint32Array(size);
    const ids = new Uint32Array(size);
    const ranks = new Uint8Array(size);
    hashes.set(this.hashes);
    ids.set(this.ids);
    ranks.set(this.ranks);
    this.hashes = hashes;
    this.ids = ids;
    this.ranks = ranks;
  }

  /** Row indexes of the current chunk in key order, ties in input order. */
  private sortedOrder(): Uint32Array {
    return radixOrder(this.hashes, this.values.length);
  }

  private spill(): void {
    const w = new RunWriter(join(this.dir, `codes-${this.runs.length}.run`));
    for (const i of this.sortedOrder()) {
      w.u32(this.hashes[i]!);
      w.u32(this.ids[i]!);
      w.u32(this.ranks[i]!);
      w.str(this.values[i]!);
    }
    w.close();
    this.runs.push(w.path);
    this.values = [];
  }

  private entries(): Iterable<CodeEntry> {
    if (this.runs.length === 0) {
      return Array.from(this.sortedOrder(), (i) => ({
        hash: this.hashes[i]!,
        rank: this.ranks[i]!,
        id: this.ids[i]!,
        value: this.values[i]!,
      }));
    }
    if (this.values.length > 0) this.spill();
    return mergeSorted(
      this.runs.map((path) => readRun(path)),
      (a, b) => a.hash < b.hash,
    );
  }

  /**
   * Calls `put(hash, value)` once per hash in ascending order. The value holds the kept entries of that
   * hash as codes entries (layout.CODE_ENTRY_HEADER), by preference rank, then input order; a concept_id
   * appears once per hash. Call once, after the last add.
   */
  forEachKey(put: (hash: number, value: Buffer) => void, keep: KeepEntry): void {
    const out = new CodeValueEncoder(put);
    let group: CodeEntry[] = [];
    let hash = -1;
    for (const e of this.entries()) {
      if (e.hash !== hash) {
        out.write(hash, group);
        group = [];
        hash = e.hash;
      }
      if (keep(e.id, e.value)) group.push(e);
    }
    out.write(hash, group);
  }
}

function* readRun(path: string): Generator<CodeEntry> {
  const r = new RunReader(path);
  try {
    while (r.has(1)) yield { hash: r.u32(), id: r.u32(), rank: r.u32(), value: r.str() };
  } finally {
    r.close();
  }
}

/** Encodes one hash's entries into a slab-carved buffer (the batch writer holds it until its commit). */
class CodeValueEncoder {
  private slab = Buffer.allocUnsafe(1 << 20);
  private slabAt = 0;

  constructor(private readonly put: (hash: number, value: Buffer) => void) {}

  write(hash: number, group: CodeEntry[]): void {
    if (group.length === 0) return;
    if (group.length > 1) {
      // Array#sort is stable: equal ranks keep input order. Then one entry per concept_id.
      group.sort((a, b) => a.rank - b.rank);
      group = group.filter((e, i) => group.findIndex((f) => f.id === e.id) === i);
    }
    // Room for the worst case (3 UTF-8 bytes per UTF-16 unit), then keep what was written: one pass.
    let room = 0;
    for (const e of group) room += CODE_ENTRY_HEADER + e.value.length * 3;
    if (room > this.slab.length - this.slabAt) {
      this.slab = Buffer.allocUnsafe(Math.max(1 << 20, room));
      this.slabAt = 0;
    }
    const slab = this.slab;
    const start = this.slabAt;
    let at = start;
    for (const e of group) {
      const n = slab.write(e.value, at + CODE_ENTRY_HEADER, "utf8");
      slab.writeUInt32LE(e.id, at);
      slab.writeUInt32LE(n, at + 4);
      at += CODE_ENTRY_HEADER + n;
    }
    this.slabAt = at;
    const value = slab.subarray(start, at);
    this.put(hash, value);
  }
}
