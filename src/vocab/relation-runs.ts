// External sort of relationship rows by (concept_id_1, relationship index), kept in typed arrays because
// a full Athena download has tens of millions of them: objects per row would cost gigabytes and GC time.
// The merge hands out one encoded relations value (see layout.forEachRelated) per concept_id_1.
import { join } from "node:path";
import { RunReader, RunWriter } from "./run-files.js";

const REL_SHIFT = 65536;

export class RelationSorter {
  private c1: Uint32Array;
  private rel: Uint16Array;
  private c2: Uint32Array;
  private n = 0;
  private readonly runs: string[] = [];

  constructor(
    private readonly dir: string,
    private readonly chunkSize: number,
  ) {
    this.c1 = new Uint32Array(Math.min(chunkSize, 1 << 16));
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
    const c1 = new Uint32Array(size);
    const rel = new Uint16Array(size);
    const c2 = new Uint32Array(size);
    c1.set(this.c1);
    rel.set(this.rel);
    c2.set(this.c2);
    this.c1 = c1;
    this.rel = rel;
    this.c2 = c2;
  }

  /** Indexes of the current chunk in (c1, rel) order, ties in input order. */
  private sortedOrder(): Uint32Array {
    const key = new Float64Array(this.n);
    for (let i = 0; i < this.n; i++) key[i] = this.c1[i]! * REL_SHIFT + this.rel[i]!;
    const order = new Uint32Array(this.n);
    for (let i = 0; i < this.n; i++) order[i] = i;
    return order.sort((a, b) => key[a]! - key[b]! || a - b);
  }

  private spill(): void {
    const w = new RunWriter(join(this.dir, `relations-${this.runs.length}.run`));
    for (const i of this.sortedOrder()) {
      w.u32(this.c1[i]!);
      w.u16(this.rel[i]!);
      w.u32(this.c2[i]!);
    }
    w.close();
    this.runs.push(w.path);
    this.n = 0;
  }

  get spilled(): number {
    return this.runs.length;
  }

  /**
   * Calls `put(c1, value)` once per concept_id_1 in ascending order, where value holds every relationship
   * of c1 grouped by relationship index. `value` is reused: copy it if you keep it.
   */
  forEachConcept(put: (c1: number, value: Buffer) => void): void {
    if (this.runs.length > 0 && this.n > 0) this.spill();
    const out = new GroupEncoder(put);
    if (this.runs.length === 0) {
      for (const i of this.sortedOrder()) out.add(this.c1[i]!, this.rel[i]!, this.c2[i]!);
      out.end();
      return;
    }
    this.mergeRuns(out);
    out.end();
  }

  // A merge specialised to three numbers per record: no per-record objects, heap keyed in a Float64Array.
  private mergeRuns(out: GroupEncoder): void {
    const readers = this.runs.map((p) => new RunReader(p));
    const k = readers.length;
    const key = new Float64Array(k);
    const c2 = new Uint32Array(k);
    const heap: number[] = [];
    const less = (a: number, b: number) => key[a]! < key[b]! || (key[a] === key[b] && a < b);
    const load = (r: number): boolean => {
      const rd = readers[r]!;
      if (!rd.has(10)) return false;
      key[r] = rd.u32() * REL_SHIFT + rd.u16();
      c2[r] = rd.u32();
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
        const kk = key[r]!;
        out.add(Math.floor(kk / REL_SHIFT), kk % REL_SHIFT, c2[r]!);
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
}

/** Builds the grouped value of one concept_id_1 from its (rel, c2) pairs arriving in order. */
class GroupEncoder {
  private buf = Buffer.allocUnsafe(1 << 16);
  private at = 0;
  private c1 = -1;
  private rel = -1;
  private countAt = 0;
  private count = 0;

  constructor(private readonly put: (c1: number, value: Buffer) => void) {}

  add(c1: number, rel: number, c2: number): void {
    if (c1 !== this.c1) {
      this.end();
      this.c1 = c1;
      this.rel = -1;
    }
    if (rel !== this.rel) {
      this.closeGroup();
      this.room(6);
      this.buf.writeUInt16LE(rel, this.at);
      this.countAt = this.at + 2;
      this.at += 6;
      this.rel = rel;
      this.count = 0;
    }
    this.room(4);
    this.buf.writeUInt32LE(c2, this.at);
    this.at += 4;
    this.count++;
  }

  private closeGroup(): void {
    if (this.rel >= 0) this.buf.writeUInt32LE(this.count, this.countAt);
  }

  end(): void {
    if (this.c1 < 0) return;
    this.closeGroup();
    this.put(this.c1, this.buf.subarray(0, this.at));
    this.at = 0;
    this.c1 = -1;
    this.rel = -1;
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(this.buf.length * 2);
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }
}
