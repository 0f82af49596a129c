// Per-row token lists (suggest-rows.ts): the posting lists turned around, each row's tokens ascending,
// rank bits ignored, and the name lengths from the search columns' sort keys.
import { describe, expect, it } from "vitest";
import { COLUMN_WIDTH, ROW_BITS, type SearchInfo } from "../../src/vocab/layout.js";
import type { Slab } from "../../src/vocab/slabs.js";
import { RowTokens } from "../../src/vocab/suggest-rows.js";
import type { WordIndex } from "../../src/vocab/suggest-words.js";

describe("RowTokens", () => {
  it("lists each row's tokens, ascending, and its name length", () => {
    const p = (rank: number, row: number) => rank * 2 ** ROW_BITS + row;
    // token 0 in rows 1 and 3 (row 3 non-standard); token 1 in rows 0, 1; token 2 in row 3; row 2 none
    const lists = [[p(0, 1), p(2, 3)], [p(0, 0), p(0, 1)], [p(2, 3)]];
    const flat = Uint32Array.from(lists.flat());
    const starts = [0, 2, 4];
    const words = {
      df: Uint32Array.from(lists, (l) => l.length),
      list: (s: number) => ({ words: flat, start: starts[s]!, count: lists[s]!.length }),
    } as unknown as WordIndex;
    // two column slabs of two rows each (column_shift 1); the sort key is rank << 8 | name length
    const column = (keys: number[]): Slab => {
      const w = new Uint32Array(keys.length * COLUMN_WIDTH);
      keys.forEach((k, r) => {
        w[r * COLUMN_WIDTH + 4] = k;
      });
      return { words: w, bytes: Buffer.from(w.buffer), mapped: false };
    };
    const info = { column_shift: 1 } as SearchInfo;
    const rows = new RowTokens(words, [column([12, 300]), column([0, (2 << 8) | 7])], info, 4);
    expect([...rows.start]).toEqual([0, 1, 3, 3, 5]);
    expect([...rows.tokens]).toEqual([1, 0, 1, 0, 2]);
    expect([...rows.nameLength]).toEqual([12, 300 & 0xff, 0, 7]);
  });
});
