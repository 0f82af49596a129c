// The hash tables of an index (ids and codes, see layout.ts), both sides. Open addressing with linear
// probing over fixed-width slots of u32 words; a slot whose second word is 0 is empty (that word is a
// ref, and refs start at 1). A table is split into partitions by the top of the hash, each stored as one
// slab, so the build holds one partition in memory at a time and the reader maps each without a copy.
import { COPY_MAX_BYTES, MAPPED_MIN_BYTES } from "./slabs.js";

/** Slots per entry: at 0.7 a hit probes about 2 slots, mostly in the cache line of the first. */
const LOAD = 0.7;
const TWO_32 = 4294967296;

const DEFAULT_PARTITION_BYTES = 64 << 20;

const partitionOf = (h: number, parts: number) => Math.floor((h * parts) / TWO_32);
/** Word index of the first slot to probe, from the bits of `h` below the partition's. */
const homeWord = (h: number, parts: number, slots: number, width: number) =>
  Math.floor((((h * parts) % TWO_32) * slots) / TWO_32) * width;

/**
 * Writes a table of `hashes.length` entries through `put(partition, words)`, returns the partition count.
 * Entries go in `order` (default: index order): along a probe sequence an earlier entry always comes
 * before a later one with the same hash, so a reader meets the preferred one first. `fill` writes entry
 * i's slot words at `words[at..at + width)`, its second word nonzero.
 */
export function writeHashTable(
  hashes: Uint32Array,
  width: number,
  fill: (i: number, words: Uint32Array, at: number) => void,
  put: (partition: number, words: Uint32Array) => void,
  options: { order?: Uint32Array; partitionBytes?: number } = {},
): number {
  const n = hashes.length;
  const order = options.order;
  const tableBytes = (n / LOAD) * width * 4;
  const parts = Math.max(1, Math.ceil(tableBytes / (options.partitionBytes ?? DEFAULT_PARTITION_BYTES)));
  const counts = new Uint32Array(parts);
  for (let i = 0; i < n; i++) counts[partitionOf(hashes[i]!, parts)]!++;
  for (let p = 0; p < parts; p++) {
    let slots = Math.floor(counts[p]! / LOAD) + 1; // at least one empty slot ends every probe
    // A partition too big to copy cheaply at open but too small for lmdb-js to map gets more slots.
    if (slots * width * 4 >= COPY_MAX_BYTES)
      slots = Math.max(slots, Math.ceil(MAPPED_MIN_BYTES / (width * 4)));
    const words = new Uint32Array(slots * width);
    for (let k = 0; k < n; k++) {
      const i = order ? order[k]! : k;
      const h = hashes[i]!;
      if (partitionOf(h, parts) !== p) continue;
      let at = homeWord(h, parts, slots, width);
      while (words[at + 1] !== 0) {
        at += width;
        if (at === words.length) at = 0;
      }
      fill(i, words, at);
    }
    put(p, words);
  }
  return parts;
}

/**
 * A table as read. Per lookup: `start(h)` gives the word index of the first slot and leaves its partition
 * in `words`; walk with `next` while the slot's second word is nonzero.
 */
export class HashTable {
  private readonly parts: number;
  private readonly slots: number[];
  /** The partition of the last `start`. */
  words: Uint32Array;

  constructor(
    private readonly partitions: Uint32Array[],
    private readonly width: number,
  ) {
    this.parts = partitions.length;
    this.slots = partitions.map((w) => w.length / width);
    this.words = partitions[0]!;
  }

  start(h: number): number {
    const p = partitionOf(h, this.parts);
    this.words = this.partitions[p]!;
    return homeWord(h, this.parts, this.slots[p]!, this.width);
  }

  next(at: number): number {
    at += this.width;
    return at === this.words.length ? 0 : at;
  }
}
