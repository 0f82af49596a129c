// The build's token dictionary: numbers the distinct tokens of millions of names and synonyms. It reads a
// name's tokens straight from the name (hashing and comparing characters in place), so a token seen before
// costs no string: a Map of sliced tokens spent 1 us per token on slices, hashing and garbage collection.
// The tokens are exactly search-text.ts's tokensOf(foldText(name)), which the query uses.
import { foldText, isTokenChar, MAX_TOKEN } from "./search-text.js";

// Hashes stay int32 (`| 0`): an unsigned value above 2^31 is a heap number in V8, and one per character
// made the scan six times slower.
const FNV_OFFSET = 0x811c9dc5 | 0;
const OTHER = 0;
const WORD = 1;
const UPPER = 2;
/** Per ASCII code: OTHER, WORD (a-z, 0-9) or UPPER (A-Z, folded to a-z in ASCII text). */
const ASCII_KIND = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  ASCII_KIND[c] = (c >= 97 && c <= 122) || (c >= 48 && c <= 57) ? WORD : c >= 65 && c <= 90 ? UPPER : OTHER;
}

export class TokenTable {
  /** How many distinct tokens. */
  size = 0;
  /** The length of the folded text of the last `tokenize`, and its second token (-1: none). */
  foldedLength = 0;
  second = -1;
  /**
   * Open addressing, four words a slot: hash, token number + 1 (0: empty), start and length of its
   * characters in `pool`. A hit reads one slot and the characters: two cache lines, where a table of
   * numbers beside an array of strings took four (hash, string pointer, string, characters).
   */
  private slots = new Int32Array(4096);
  private mask = 1023;
  private pool = new Uint16Array(1 << 16);
  private poolSize = 0;

  /**
   * Writes the distinct token numbers of text[0, end) (in order of first appearance, at most out.length)
   * into `out`; returns how many.
   */
  tokenize(text: string, out: Uint32Array, end = text.length): number {
    const n = this.scan(text, out, true, end);
    if (n >= 0) return n;
    const folded = foldText(text.slice(0, end));
    return this.scan(folded, out, false, folded.length);
  }

  /** The token texts by number. */
  texts(): string[] {
    // One decode of the whole pool, then slices: a String.fromCharCode per token took 2 us each.
    const pool = Buffer.from(this.pool.buffer, this.pool.byteOffset, this.poolSize * 2).toString("utf16le");
    const texts = new Array<string>(this.size);
    for (let at = 0; at < this.slots.length; at += 4) {
      const id = this.slots[at + 1]! - 1;
      if (id >= 0) texts[id] = pool.slice(this.slots[at + 2]!, this.slots[at + 2]! + this.slots[at + 3]!);
    }
    return texts;
  }

  /**
   * `ascii`: fold case here (A-Z only), and give up with -1 at the first non-ASCII character (the
   * tokens interned until then are tokens of the folded text too); otherwise `text` is already folded.
   */
  private scan(text: string, out: Uint32Array, ascii: boolean, length: number): number {
    this.foldedLength = length;
    this.second = -1;
    let n = 0;
    let seen = 0;
    let start = -1;
    let hash = 0;
    for (let i = 0; i < length; i++) {
      let code = text.charCodeAt(i);
      let kind: number;
      if (code < 128) kind = ASCII_KIND[code]!;
      else if (ascii) return -1;
      else kind = isTokenChar(code, text, i) ? WORD : OTHER;
      if (kind !== OTHER) {
        if (kind === UPPER && ascii) code += 32;
        if (start < 0) {
          start = i;
          hash = FNV_OFFSET;
        }
        if (i - start < MAX_TOKEN) hash = Math.imul(hash ^ code, 0x01000193);
      } else if (start >= 0) {
        const id = this.intern(hash, text, start, Math.min(i, start + MAX_TOKEN), ascii);
        if (++seen === 2) this.second = id;
        n = add(out, n, id);
        start = -1;
      }
    }
    if (start >= 0) {
      const id = this.intern(hash, text, start, Math.min(length, start + MAX_TOKEN), ascii);
      if (++seen === 2) this.second = id;
      n = add(out, n, id);
    }
    return n;
  }

  private intern(hash: number, text: string, start: number, end: number, ascii: boolean): number {
    const slots = this.slots;
    const pool = this.pool;
    const length = end - start;
    let at = ((hash ^ (hash >>> 15)) & this.mask) * 4;
    for (;;) {
      const id = slots[at + 1]! - 1;
      if (id < 0) break;
      if (slots[at] === hash && slots[at + 3] === length) {
        const from = slots[at + 2]!;
        let k = 0;
        for (; k < length; k++) {
          let code = text.charCodeAt(start + k);
          if (ascii && code >= 65 && code <= 90) code += 32;
          if (pool[from + k] !== code) break;
        }
        if (k === length) return id;
      }
      at = (at + 4) & (slots.length - 1);
    }
    const id = this.size++;
    if (this.poolSize + length > this.pool.length) {
      const grown = new Uint16Array((this.poolSize + length) * 2);
      grown.set(this.pool);
      this.pool = grown;
    }
    const from = this.poolSize;
    for (let k = 0; k < length; k++) {
      let code = text.charCodeAt(start + k);
      if (ascii && code >= 65 && code <= 90) code += 32;
      this.pool[from + k] = code;
    }
    this.poolSize += length;
    slots[at] = hash;
    slots[at + 1] = id + 1;
    slots[at + 2] = from;
    slots[at + 3] = length;
    if (this.size * 2 > this.mask) this.grow();
    return id;
  }

  private grow(): void {
    const old = this.slots;
    const slots = new Int32Array(old.length * 2);
    const mask = slots.length / 4 - 1;
    for (let from = 0; from < old.length; from += 4) {
      if (old[from + 1] === 0) continue;
      const h = old[from]!;
      let at = ((h ^ (h >>> 15)) & mask) * 4;
      while (slots[at + 1] !== 0) at = (at + 4) & (slots.length - 1);
      slots.set(old.subarray(from, from + 4), at);
    }
    this.slots = slots;
    this.mask = mask;
  }
}

/** Appends token `id` to out[0, n) unless it is there already; returns the new count. */
function add(out: Uint32Array, n: number, id: number): number {
  for (let k = 0; k < n; k++) if (out[k] === id) return n;
  if (n < out.length) out[n++] = id;
  return n;
}
