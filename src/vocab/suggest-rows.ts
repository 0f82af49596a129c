// Per row (concept) of an index: the tokens of its name and synonyms, and its folded name's length. The
// posting lists turned around, made once per process with the word index (suggest-words.ts), so that the
// suggester confirms which of a term's words a concept holds by reading the concept's own short list
// instead of searching each word's long posting list (a search costs a dozen cache misses at 5M
// concepts; the concept's list one or two).
import { COLUMN_WIDTH, ROW_MASK, type SearchInfo } from "./layout.js";
import type { Slab } from "./slabs.js";
import type { WordIndex } from "./suggest-words.js";

export class RowTokens {
  /** Row r's tokens are tokens[start[r], start[r + 1]), ascending. */
  readonly start: Uint32Array;
  readonly tokens: Uint32Array;
  /** The folded name's length (at most 255), from the search columns' sort key. */
  readonly nameLength: Uint8Array;

  constructor(words: WordIndex, columns: Slab[], info: SearchInfo, rows: number) {
    const start = new Uint32Array(rows + 1);
    const n = words.df.length;
    for (let s = 0; s < n; s++) {
      const list = words.list(s);
      for (let k = list.start, end = k + list.count; k < end; k++) start[(list.words[k]! & ROW_MASK) + 1]!++;
    }
    for (let r = 0; r < rows; r++) start[r + 1]! += start[r]!;
    // Filled by token number, so each row's tokens come out ascending; start[r] moves to the row's end
    // meanwhile, and is moved back after.
    const tokens = new Uint32Array(start[rows]!);
    for (let s = 0; s < n; s++) {
      const list = words.list(s);
      for (let k = list.start, end = k + list.count; k < end; k++)
        tokens[start[list.words[k]! & ROW_MASK]!++] = s;
    }
    for (let r = rows; r > 0; r--) start[r] = start[r - 1]!;
    start[0] = 0;
    this.start = start;
    this.tokens = tokens;
    this.nameLength = new Uint8Array(rows);
    const shift = info.column_shift;
    const mask = 2 ** shift - 1;
    for (let r = 0; r < rows; r++) {
      this.nameLength[r] = columns[r >>> shift]!.words[(r & mask) * COLUMN_WIDTH + 4]! & 0xff;
    }
  }
}
