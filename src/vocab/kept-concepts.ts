// The concepts a build keeps, in concept_id order, as columns (millions of rows: no object per concept):
// what the hash tables are built from once the records are written. About 17 bytes per concept.
import { IdSet } from "./id-set.js";
import { resized } from "./resized.js";

export class KeptConcepts {
  count = 0;
  ids = new Uint32Array(1024);
  conceptRefs = new Uint32Array(1024);
  /** 0 until the concept's relations list is written (and for a concept without one). */
  relationRefs = new Uint32Array(1024);
  codeKeys = new Uint32Array(1024);
  ranks = new Uint8Array(1024);

  get lastId(): number | undefined {
    return this.count > 0 ? this.ids[this.count - 1] : undefined;
  }

  push(id: number, conceptRef: number, codeKey: number, rank: number): void {
    if (this.count === this.ids.length) this.grow(this.count * 2);
    const i = this.count++;
    this.ids[i] = id;
    this.conceptRefs[i] = conceptRef;
    this.codeKeys[i] = codeKey;
    this.ranks[i] = rank;
  }

  private grow(size: number): void {
    this.ids = resized(this.ids, size);
    this.conceptRefs = resized(this.conceptRefs, size);
    this.relationRefs = resized(this.relationRefs, size);
    this.codeKeys = resized(this.codeKeys, size);
    this.ranks = resized(this.ranks, size);
  }

  idSet(): IdSet {
    return new IdSet(this.ids.subarray(0, this.count));
  }

  /** Row indexes by preference rank, then concept_id: the order in which codes enter their table. */
  byRank(): Uint32Array {
    const n = this.count;
    const starts = new Uint32Array(257);
    for (let i = 0; i < n; i++) starts[this.ranks[i]! + 1]!++;
    for (let r = 1; r <= 256; r++) starts[r]! += starts[r - 1]!;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[starts[this.ranks[i]!]!++] = i;
    return order;
  }
}
