// External sort of (key, group, value) number triples by key, kept in typed arrays because a full Athena
// download has tens of millions of relationship rows: an object per row would cost gigabytes and GC time.
// The merge hands out one relations list (see layout.ts) per key. Used for relationships
// (concept_id_1, relationship index, concept_id_2).
import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { radixOrder } from "./radix-order.js";
import { resized } from "./resized.js";
import { RunReader } from "./run-files.js";

// u32 key, u32 value, u32 group (little-endian): aligned words, so a spill fills a Uint32Array instead of
// making three bounds-checked Buffer writes per row (the spill was 16% of the relationship thread).
const RECORD = 12;

export class GroupSorter {
  private readonly chunkSize: number;
  private c1: Uint32Array;
  private rel: Uint16Array;
  private c2: Uint32Array;
  private n = 0;
  private readonly runs: string[] = [];

  constructor(
    private readonly dir: string,
    private readonly name: string,
    chunkSize: number,
  ) {
    this.chunkSize = Math.max(1, chunkSize);
    this.c1 = new Uint32Array(Math.min(this.chunkSize, 1 << 16));
    this.rel = new Uint16Array(this.c1.length);
    this.c2 = new Uint32Array(this.c1.length);
  }

  add(c1: number, rel: number, c2: number): void {
    if (this.n === this.c1.length) this.grow();
    this.c1[this.n] = c1;
    this.rel[this.n] = rel;
    this.c2[this.n] = c2;
    this.n++;
    if (this.n >= this.chunkSize) this.spill();
  }

  private grow(): void {
    const size = Math.min(this.chunkSize, this.c1.length * 2);
    this.c1 = resized(this.c1, size);
    this.rel = resized(this.rel, size);
    this.c2 = resized(this.c2, size);
  }

  /** Row indexes of the current chunk in key order, ties in input order. */
  private sortedOrder(): Uint32Array {
    return radixOrder(this.c1, this.n);
  }

  // One buffer and one write per run: per-field writer calls were a measurable share of a large build.
  private spill(): void {
    const order = this.sortedOrder();
    const words = new Uint32Array(order.length * 3);
    let at = 0;
    for (const i of order) {
      words[at] = this.c1[i]!;
      words[at + 1] = this.c2[i]!;
      words[at + 2] = this.rel[i]!;
      at += 3;
    }
    // Uint32Array is host-endian, and run files are read as little-endian: the build refuses other hosts.
    const buf = Buffer.from(words.buffer, words.byteOffset, words.byteLength);
    const path = join(this.dir, `${this.name}-${this.runs.length}.run`);
    const fd = openSync(path, "w");
    try {
      for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off);
    } finally {
      closeSync(fd);
    }
    this.runs.push(path);
    this.n = 0;
  }

  /** Spills what is left and hands over the run files (for a merge in another thread). */
  finish(): string[] {
    if (this.n > 0) this.spill();
    return [...this.runs];
  }

  /**
   * Calls `put(key, list)` once per key in ascending order, where list holds every (group, value) pair
   * of the key that `admit` lets in, as the value it returns, grouped by ascending group, values in input
   * order (the relations list of layout.ts). The list is only valid during the call.
   */
  forEachKey(put: Put, admit?: Admit): void {
    if (this.runs.length > 0 && this.n > 0) this.spill();
    const out = new GroupEncoder(put, admit);
    if (this.runs.length === 0) {
      for (const i of this.sortedOrder()) out.add(this.c1[i]!, this.rel[i]!, this.c2[i]!);
    } else {
      mergeRuns(this.runs, out);
    }
    out.end();
  }

  /** forEachKey over run files written by `finish()` of a sorter elsewhere (e.g. a worker thread). */
  static forEachKeyOfRuns(runs: string[], put: Put, admit?: Admit): void {
    const out = new GroupEncoder(put, admit);
    mergeRuns(runs, out);
    out.end();
  }
}

/** Receives one key's relations list, a view that the next call overwrites. */
export type Put = (key: number, list: Uint32Array) => void;

/** Decides per (key, group, value) triple whether it goes into the index: the u32 to store, or -1. */
export type Admit = (key: number, group: number, value: number) => number;

// A merge specialised to three numbers per record: no per-record objects, ties to the earlier run.
function mergeRuns(runs: string[], out: GroupEncoder): void {
  const readers = runs.map((p) => new RunReader(p));
  const k = readers.length;
  const c1 = new Float64Array(k);
  const rel = new Uint16Array(k);
  const c2 = new Uint32Array(k);
  const heap: number[] = [];
  const less = (a: number, b: number) => c1[a]! < c1[b]! || (c1[a] === c1[b] && a < b);
  const load = (r: number): boolean => {
    const rd = readers[r]!;
    if (!rd.has(RECORD)) return false;
    c1[r] = rd.u32();
    c2[r] = rd.u32();
    rel[r] = rd.u32();
    return true;
  };
  const siftDown = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      let m = i;
      if (l < heap.length && less(heap[l]!, heap[m]!)) m = l;
      if (l + 1 < heap.length && less(heap[l + 1]!, heap[m]!)) m = l + 1;
      if (m === i) return;
      const t = heap[i]!;
      heap[i] = heap[m]!;
      heap[m] = t;
      i = m;
    }
  };
  for (let r = 0; r < k; r++) if (load(r)) heap.push(r);
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(i);
  try {
    while (heap.length > 0) {
      const r = heap[0]!;
      out.add(c1[r]!, rel[r]!, c2[r]!);
      if (!load(r)) {
        const last = heap.pop()!;
        if (heap.length > 0) heap[0] = last;
      }
      siftDown(0);
    }
  } finally {
    for (const rd of readers) rd.close();
  }
}

/** Collects the (group, value) pairs of one key and encodes them grouped. */
class GroupEncoder {
  private c1 = -1;
  // One key at a time, in typed buffers that only grow: no allocation per key (millions of keys).
  private n = 0;
  private rels = new Uint32Array(256);
  private values = new Uint32Array(256);
  private order = new Uint32Array(256);
  private list = new Uint32Array(1024);

  constructor(
    private readonly put: Put,
    private readonly admit?: Admit,
  ) {}

  add(c1: number, rel: number, value: number): void {
    const v = this.admit ? this.admit(c1, rel, value) : value;
    if (v < 0) return;
    if (c1 !== this.c1) {
      this.end();
      this.c1 = c1;
    }
    if (this.n === this.rels.length) this.grow();
    this.rels[this.n] = rel;
    this.values[this.n] = v;
    this.n++;
  }

  private grow(): void {
    const size = this.rels.length * 2;
    this.rels = resized(this.rels, size);
    this.values = resized(this.values, size);
    this.order = new Uint32Array(size);
  }

  /** Positions 0..n-1 by group, equal groups in input order. */
  private sortByGroup(n: number): Uint32Array {
    const { rels, order } = this;
    for (let i = 0; i < n; i++) order[i] = i;
    if (n > 64) {
      // hub concepts: thousands of relations
      const sorted = Array.from(order.subarray(0, n)).sort((a, b) => rels[a]! - rels[b]! || a - b);
      order.set(sorted);
      return order;
    }
    for (let i = 1; i < n; i++) {
      const p = order[i]!;
      const r = rels[p]!;
      let j = i - 1;
      while (j >= 0 && rels[order[j]!]! > r) {
        order[j + 1] = order[j]!;
        j--;
      }
      order[j + 1] = p;
    }
    return order;
  }

  end(): void {
    const n = this.n;
    if (this.c1 < 0 || n === 0) return;
    const order = this.sortByGroup(n);
    const { rels, values } = this;
    let groups = 0;
    for (let j = 0; j < n; j++) if (j === 0 || rels[order[j]!] !== rels[order[j - 1]!]) groups++;
    const size = 1 + groups * 2 + n;
    if (size > this.list.length) this.list = new Uint32Array(Math.max(size, this.list.length * 2));
    const list = this.list;
    list[0] = size - 1;
    let at = 1;
    let countAt = 0;
    let current = -1;
    for (let j = 0; j < n; j++) {
      const i = order[j]!;
      if (rels[i] !== current) {
        current = rels[i]!;
        list[at] = current;
        list[at + 1] = 0;
        countAt = at + 1;
        at += 2;
      }
      list[at++] = values[i]!;
      list[countAt]!++;
    }
    this.put(this.c1, list.subarray(0, size));
    this.n = 0;
    this.c1 = -1;
  }
}
