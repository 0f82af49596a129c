// The id registry's memory: an open-addressing hash table over typed arrays, from a 64-bit hash of
// (namespace, source key) to the integer id and the hash of the row written under it. 16 bytes a slot at
// most 3/4 full, so a million keys cost ~21-32 MB instead of the ~150 MB a Map of strings would; in 16
// shards that grow one at a time. Lookups allocate nothing (this runs for every id of every row): a hash is
// left in `KeyHash`'s fields, a lookup answers a slot number.

/** A row hash of 0 means "no row written yet" (the key was only referenced); row hashes are never 0. */
export const NO_ROW = 0;

/** Two FNV-1a passes with different seeds: a 64-bit key hash (hi, lo) of a namespace and a source key. */
export class KeyHash {
  hi = 0;
  lo = 0;

  of(namespace: number, key: string): this {
    let a = Math.imul(0x811c9dc5 ^ namespace, 0x01000193);
    let b = Math.imul(0x050c5d1f ^ namespace, 0x01000193);
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
    }
    this.hi = mix(a) | 0;
    this.lo = mix(b ^ key.length) | 0;
    return this;
  }
}

/** FNV-1a of a row's fields (as joined by commas, without joining them), never 0 (0 marks a key with no row). */
export function rowHash(fields: readonly string[]): number {
  let h = 0x811c9dc5;
  for (let f = 0; f < fields.length; f++) {
    if (f > 0) h = Math.imul(h ^ 44, 0x01000193);
    const text = fields[f]!;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  }
  h = mix(h) | 0;
  return h === NO_ROW ? 1 : h;
}

function mix(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** Int32s a slot: key hash hi, key hash lo, id, row hash. */
const W = 4;

/**
 * One shard of the table: open addressing with linear probing over one typed array, a slot's four fields
 * side by side. (Four arrays, one per field, cost four cache misses a probe of a table larger than the
 * cache instead of one: at a million keys the probing was a tenth of a row's conversion.)
 */
class Shard {
  private cells: Int32Array;
  /** Slots - 1 (a power of two less one). */
  private mask: number;
  private count = 0;

  constructor(capacity: number) {
    const slots = 1 << Math.ceil(Math.log2(Math.max(16, (capacity * 4) / 3)));
    this.cells = new Int32Array(slots * W);
    this.mask = slots - 1;
  }

  get size(): number {
    return this.count;
  }

  private home(hi: number, lo: number): number {
    return (lo ^ Math.imul(hi, 0x9e3779b1)) & this.mask;
  }

  /** The slot of a key: the one holding it, or the empty one where it would go (valid until the next set). */
  slot(hi: number, lo: number): number {
    const cells = this.cells;
    const mask = this.mask;
    let i = this.home(hi, lo);
    for (;;) {
      const at = i * W;
      if (cells[at + 2] === 0 || (cells[at] === hi && cells[at + 1] === lo)) return i;
      i = (i + 1) & mask;
    }
  }

  /** The id in a slot; 0 when the slot is empty (the key is absent). */
  idAt(slot: number): number {
    return this.cells[slot * W + 2]!;
  }

  rowAt(slot: number): number {
    return this.cells[slot * W + 3]!;
  }

  /** Sets the row hash of a key that is present (its slot from `slot`). */
  setRowAt(slot: number, row: number): void {
    this.cells[slot * W + 3] = row;
  }

  /** Adds or overwrites a key's id and row hash. */
  set(hi: number, lo: number, id: number, row: number): void {
    let i = this.slot(hi, lo);
    if (this.cells[i * W + 2] === 0) {
      // Linear probing at 3/4 full costs ~2.5 probes a hit and ~8.5 a miss (Knuth), all in adjacent slots.
      if ((this.count + 1) * 4 > (this.mask + 1) * 3) {
        this.grow();
        i = this.slot(hi, lo);
      }
      this.count++;
      this.cells[i * W] = hi;
      this.cells[i * W + 1] = lo;
    }
    this.cells[i * W + 2] = id;
    this.cells[i * W + 3] = row;
  }

  /** Removes a key (backward-shift deletion: the keys after it in its run move up, no tombstones). */
  delete(hi: number, lo: number): void {
    const { cells, mask } = this;
    let i = this.slot(hi, lo);
    if (cells[i * W + 2] === 0) return;
    this.count--;
    for (let j = (i + 1) & mask; cells[j * W + 2] !== 0; j = (j + 1) & mask) {
      const h = this.home(cells[j * W]!, cells[j * W + 1]!);
      // The key at j may fill the hole at i unless its home lies cyclically in (i, j].
      if (i <= j ? h <= i || h > j : h <= i && h > j) {
        cells.copyWithin(i * W, j * W, j * W + W);
        i = j;
      }
    }
    cells[i * W + 2] = 0;
    cells[i * W + 3] = 0;
  }

  private grow(): void {
    const old = this.cells;
    this.cells = new Int32Array(old.length * 2);
    this.mask = (this.cells.length / W - 1) | 0;
    for (let j = 0; j < old.length; j += W) {
      if (old[j + 2] === 0) continue;
      const i = this.slot(old[j]!, old[j + 1]!) * W;
      this.cells[i] = old[j]!;
      this.cells[i + 1] = old[j + 1]!;
      this.cells[i + 2] = old[j + 2]!;
      this.cells[i + 3] = old[j + 3]!;
    }
  }
}

/** Shards, chosen by a key hash's top bits: each grows on its own, so a growth holds one shard twice, not all. */
const SHARD_BITS = 4;
const SHARDS = 1 << SHARD_BITS;
const LOCAL_SHIFT = 32 - SHARD_BITS;

/**
 * The table itself, in 16 shards: a single table doubling at 2 million keys held the old 32 MB beside the new
 * 64 MB, the largest block of a 1M-row load's peak RSS; a shard's growth adds 1/16 of that. A slot number
 * carries its shard in its low bits.
 */
export class IdTable {
  private readonly shards: Shard[] = [];

  constructor(capacity = 1 << 12) {
    for (let i = 0; i < SHARDS; i++) this.shards.push(new Shard(Math.ceil(capacity / SHARDS)));
  }

  get size(): number {
    let n = 0;
    for (const s of this.shards) n += s.size;
    return n;
  }

  /** The slot of a key: the one holding it, or the empty one where it would go (valid until the next set). */
  slot(hi: number, lo: number): number {
    const shard = hi >>> LOCAL_SHIFT;
    return (this.shards[shard]!.slot(hi, lo) << SHARD_BITS) | shard;
  }

  /** The id in a slot; 0 when the slot is empty (the key is absent). */
  idAt(slot: number): number {
    return this.shards[slot & (SHARDS - 1)]!.idAt(slot >>> SHARD_BITS);
  }

  rowAt(slot: number): number {
    return this.shards[slot & (SHARDS - 1)]!.rowAt(slot >>> SHARD_BITS);
  }

  /** Sets the row hash of a key that is present (its slot from `slot`). */
  setRowAt(slot: number, row: number): void {
    this.shards[slot & (SHARDS - 1)]!.setRowAt(slot >>> SHARD_BITS, row);
  }

  /** Adds or overwrites a key's id and row hash. */
  set(hi: number, lo: number, id: number, row: number): void {
    this.shards[hi >>> LOCAL_SHIFT]!.set(hi, lo, id, row);
  }

  /** Removes a key. */
  delete(hi: number, lo: number): void {
    this.shards[hi >>> LOCAL_SHIFT]!.delete(hi, lo);
  }
}
