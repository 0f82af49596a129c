// Membership test for the concept ids already in the index, asked twice per relationship row (tens of
// millions of times): a bitmap over the usual id range, binary search only for the rare ids above it.

// Athena's ids stay below ~50 million; 2^27 bits (16 MB) covers them with room to spare.
const BITMAP_LIMIT = 1 << 27;

export class IdSet {
  private readonly bits: Uint32Array;
  private readonly limit: number;

  /** `sortedIds` ascending; kept (not copied) for ids beyond the bitmap. */
  constructor(private readonly sortedIds: Uint32Array) {
    const max = sortedIds.length > 0 ? sortedIds[sortedIds.length - 1]! : 0;
    this.limit = Math.min(max + 1, BITMAP_LIMIT);
    this.bits = new Uint32Array(Math.ceil(this.limit / 32));
    for (const id of sortedIds) {
      if (id >= this.limit) break;
      this.bits[id >>> 5]! |= 1 << (id & 31);
    }
  }

  has(id: number): boolean {
    if (id < this.limit) return (this.bits[id >>> 5]! & (1 << (id & 31))) !== 0;
    const ids = this.sortedIds;
    let lo = 0;
    let hi = ids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = ids[mid]!;
      if (v === id) return true;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }
}
