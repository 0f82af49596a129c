// The build's set of kept concept ids: membership and position, in the bitmap range and above it.
import { describe, expect, it } from "vitest";
import { IdSet } from "../../src/vocab/id-set.js";

describe("IdSet", () => {
  it("gives each id its position among the sorted ids, and -1 for an id it lacks", () => {
    // 0 and 31/32 (word edges), a run across words, the bitmap's top, and custom ids far above it
    const ids = [0, 31, 32, 33, 63, 64, 1000, 1001, (1 << 27) - 1, 1 << 27, 2_000_000_001, 0xffff_ffff];
    const set = new IdSet(Uint32Array.from(ids));
    ids.forEach((id, i) => {
      expect(set.indexOf(id)).toBe(i);
      expect(set.has(id)).toBe(true);
    });
    for (const id of [1, 30, 34, 65, 999, 1002, (1 << 27) - 2, (1 << 27) + 1, 2_000_000_000, 0xffff_fffe]) {
      expect(set.indexOf(id)).toBe(-1);
      expect(set.has(id)).toBe(false);
    }
  });

  it("answers -1 for everything when empty", () => {
    const set = new IdSet(new Uint32Array(0));
    expect(set.indexOf(0)).toBe(-1);
    expect(set.indexOf(5_000_000_000 % 2 ** 32)).toBe(-1);
  });
});
