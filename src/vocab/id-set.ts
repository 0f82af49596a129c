// The concept ids already in the index, asked about twice per relationship row (tens of millions of
// times): membership, and the id's position among the sorted ids, which is where its record ref sits.
// A bitmap with a running count per word over the usual id range; binary search for the rare ids above it.

// Athena's ids stay below ~50 million; 2^27 bits (16 MB, and 16 MB of counts) cover them with room.
const BITMAP_LIMIT = 1 << 27;

const popcount = (x: number): number => {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
};

export class IdSet {
  /**
   * Pairs of words: 32 bits of the bitmap, then how many ids lie below them. Side by side, the count
   * comes with the bits in one cache line (two separate arrays cost a second miss per row: +2.5 s of a
   * 40M-relationship build).
   */
  private readonly table: Uint32Array;
  private readonly limit: number;

  /** `sortedIds` ascending, without repeats; kept (not copied) for ids beyond the bitmap. */
  constructor(private readonly sortedIds: Uint32Array) {
    const max = sortedIds.length > 0 ? sortedIds[sortedIds.length - 1]! : 0;
    this.limit = Math.min(max + 1, BITMAP_LIMIT);
    const words = Math.ceil(this.limit / 32);
    const table = new Uint32Array(words * 2);
    for (const id of sortedIds) {
      if (id >= this.limit) break;
      table[(id >>> 5) * 2]! |= 1 << (id & 31);
    }
    let count = 0;
    for (let w = 0; w < words; w++) {
      table[w * 2 + 1] = count;
      count += popcount(table[w * 2]!);
    }
    this.table = table;
  }

  has(id: number): boolean {
    if (id < this.limit) return (this.table[(id >>> 5) * 2]! & (1 << (id & 31))) !== 0;
    return this.indexOf(id) >= 0;
  }

  /** The position of `id` in the sorted ids, or -1. */
  indexOf(id: number): number {
    if (id < this.limit) {
      const at = (id >>> 5) * 2;
      const word = this.table[at]!;
      const bit = 1 << (id & 31);
      if ((word & bit) === 0) return -1;
      return this.table[at + 1]! + popcount(word & (bit - 1));
    }
    const ids = this.sortedIds;
    let lo = 0;
    let hi = ids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = ids[mid]!;
      if (v === id) return mid;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}
