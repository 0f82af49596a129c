// The slab areas of an index (see layout.ts), both sides: the build appends word-aligned records into
// large slabs, each stored as one LMDB value; the reader takes each slab as a view into the memory map.
import type { Database } from "lmdb";
import { AppError } from "../errors.js";
import { MAX_SLABS, makeRef, SLAB_WORDS } from "./layout.js";

/**
 * lmdb-js returns a value as a view into the memory map, not a copy, when it is larger than its 16 MB
 * read buffer. Smaller slabs are copied at open, which is cheap below COPY_MAX_BYTES; a slab between the
 * two (or the last slab of an area that has others) is padded up to this size, so that opening copies at
 * most a few MB whatever the index (measured at 500k concepts: 14 MB of tables copied, 14 ms to open).
 */
export const MAPPED_MIN_BYTES = (16 << 20) + 4096;
export const COPY_MAX_BYTES = 4 << 20;

export class SlabWriter {
  private readonly slabWords: number;
  private buf: Buffer;
  private words: Uint32Array;
  private at = 0;
  private slab = 0;

  /** `buffer`: a slab-sized buffer to write in (one writer after another may share one); default a new one. */
  constructor(
    private readonly area: string,
    private readonly put: (slab: number, value: Buffer) => void,
    slabBytes = SLAB_WORDS * 4,
    buffer?: Buffer,
  ) {
    this.slabWords = Math.max(4, Math.min(SLAB_WORDS, slabBytes >>> 2));
    this.buf = buffer && buffer.length >= this.slabWords * 4 ? buffer : Buffer.alloc(this.slabWords * 4);
    this.words = new Uint32Array(this.buf.buffer, this.buf.byteOffset, this.slabWords);
  }

  /** Makes room for a record of at most `words` words; a record larger than a slab gets one of its own. */
  private room(words: number): void {
    if (this.at + words <= this.words.length) return;
    if (this.at > 0) this.flush();
    if (words > this.words.length) {
      this.buf = Buffer.alloc(words * 4);
      this.words = new Uint32Array(this.buf.buffer, this.buf.byteOffset, words);
    }
  }

  /** A concept record: id, UTF-8 byte length, the bytes, padding. Returns its ref. */
  addConcept(id: number, value: string): number {
    this.room(2 + Math.ceil((value.length * 3) / 4)); // UTF-8 takes at most 3 bytes per UTF-16 unit
    const start = this.at;
    const n = this.buf.write(value, start * 4 + 8, "utf8");
    this.words[start] = id;
    this.words[start + 1] = n;
    this.at = start + 2 + ((n + 3) >>> 2);
    return makeRef(this.slab, start);
  }

  /** A record: the `head` words, the UTF-8 byte length, the bytes, padding (a search term). Returns its ref. */
  addString(head: readonly number[], value: string): number {
    const h = head.length;
    this.room(h + 1 + Math.ceil((value.length * 3) / 4));
    const start = this.at;
    const n = this.buf.write(value, (start + h + 1) * 4, "utf8");
    for (let k = 0; k < h; k++) this.words[start + k] = head[k]!;
    this.words[start + h] = n;
    this.at = start + h + 1 + ((n + 3) >>> 2);
    return makeRef(this.slab, start);
  }

  /**
   * Room for a record of `n` words, zeroed, to be filled in place through `words` from word `at` (no copy
   * of a large record such as a run of posting lists). Valid until the next call on this writer.
   */
  reserve(n: number): { ref: number; words: Uint32Array; at: number } {
    this.room(n);
    const at = this.at;
    this.words.fill(0, at, at + n);
    this.at = at + n;
    return { ref: makeRef(this.slab, at), words: this.words, at };
  }

  /** Words a slab holds. */
  get capacity(): number {
    return this.slabWords;
  }

  /** A record of `words` as they are. Returns its ref. */
  addWords(words: Uint32Array): number {
    this.room(words.length);
    const start = this.at;
    this.words.set(words, start);
    this.at = start + words.length;
    return makeRef(this.slab, start);
  }

  private flush(): void {
    if (this.slab >= MAX_SLABS) {
      throw new AppError(
        422,
        "vocab_too_large",
        `the ${this.area} of this vocabulary exceed ${MAX_SLABS} slabs`,
      );
    }
    this.put(this.slab++, this.buf.subarray(0, this.at * 4));
    this.at = 0;
    if (this.words.length !== this.slabWords) {
      this.buf = Buffer.alloc(this.slabWords * 4);
      this.words = new Uint32Array(this.buf.buffer, this.buf.byteOffset, this.slabWords);
    }
  }

  /** Stores the last slab; returns the number of slabs. */
  finish(): number {
    if (this.at > 0 || this.slab === 0) {
      const used = this.at * 4;
      const pad = this.slab > 0 || used >= COPY_MAX_BYTES;
      if (pad && used < MAPPED_MIN_BYTES && this.buf.length >= MAPPED_MIN_BYTES) {
        this.buf.fill(0, used, MAPPED_MIN_BYTES);
        this.at = MAPPED_MIN_BYTES >>> 2;
      }
      this.flush();
    }
    return this.slab;
  }
}

/** One slab as read: bytes for strings, words for everything else, over the same memory. */
export interface Slab {
  bytes: Buffer;
  words: Uint32Array;
  /** False when lmdb-js copied the value (small values): what the open cost is made of. */
  mapped: boolean;
}

/** Reads slab `key`: a view into the memory map when lmdb-js gives one, else a private copy. */
export function readSlab(db: Database<Buffer, number>, key: number, dir: string): Slab {
  let value: Uint8Array | undefined;
  try {
    value = db.getBinaryFast(key);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    // lmdb-js's view of an earlier map at the same address (see READ_ONLY_OPTIONS in lmdb-bridge.ts)
    throw new AppError(
      500,
      "vocab_index_unmapped",
      `${dir}: lmdb-js could not map slab ${key} (${err.message}); an LMDB environment closed earlier in ` +
        "this process with other options left a view behind: open the index in a new process",
    );
  }
  if (!value) throw new AppError(422, "vocab_index_invalid", `${dir}: the index is incomplete (slab ${key})`);
  const mapped =
    (value.buffer as { isSharedMap?: boolean }).isSharedMap === true && value.byteOffset % 4 === 0;
  // Not mapped: the value sits in lmdb-js's shared read buffer, which the next read overwrites. That
  // buffer's `length` is a patched property, so copy by it, not by the array's own length.
  const own = mapped ? value : Uint8Array.prototype.slice.call(value, 0, value.length);
  const { buffer, byteOffset, length } = own;
  return {
    bytes: Buffer.from(buffer, byteOffset, length),
    words: new Uint32Array(buffer, byteOffset, length >>> 2),
    mapped,
  };
}
