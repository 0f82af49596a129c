// The hash tables of an index: every entry found across partitions, misses end, and entries with equal
// hashes come out in insertion order.
import { describe, expect, it } from "vitest";
import { HashTable, writeHashTable } from "../../src/vocab/hash-table.js";
import { mix32 } from "../../src/vocab/layout.js";
import { MAPPED_MIN_BYTES } from "../../src/vocab/slabs.js";

function build(hashes: Uint32Array, options: Parameters<typeof writeHashTable>[4] = {}) {
  const parts: Uint32Array[] = [];
  const count = writeHashTable(
    hashes,
    2,
    (i, words, at) => {
      words[at] = hashes[i]!;
      words[at + 1] = i + 1; // the "ref": nonzero
    },
    (p, words) => {
      expect(p).toBe(parts.length);
      parts.push(words);
    },
    options,
  );
  expect(count).toBe(parts.length);
  return new HashTable(parts, 2);
}

/** Every entry index (0-based) stored under hash `h`, in probe order. */
function find(t: HashTable, h: number): number[] {
  const out: number[] = [];
  for (let at = t.start(h); t.words[at + 1] !== 0; at = t.next(at))
    if (t.words[at] === h) out.push(t.words[at + 1]! - 1);
  return out;
}

describe("hash tables", () => {
  it("finds every entry of a table split into partitions, and ends a miss at an empty slot", () => {
    const hashes = Uint32Array.from({ length: 5000 }, (_, i) => mix32(i));
    const t = build(hashes, { partitionBytes: 4096 });
    for (let i = 0; i < 5000; i++) expect(find(t, hashes[i]!)).toEqual([i]);
    for (let i = 5000; i < 6000; i++) expect(find(t, mix32(i))).toEqual([]);
  });

  it("returns entries with the same hash in the order they were inserted, across the end of a partition", () => {
    // 0xffffffff has its home in the last slot: its second and third entries wrap around to slot 0.
    const hashes = new Uint32Array([0xffff_ffff, 5, 0xffff_ffff, 0xffff_ffff]);
    expect(find(build(hashes), 0xffff_ffff)).toEqual([0, 2, 3]);
    expect(find(build(hashes, { order: new Uint32Array([3, 2, 1, 0]) }), 0xffff_ffff)).toEqual([3, 2, 0]);
  });

  it("gives a table of 4 MB or more the slots to reach the size lmdb-js maps, and a smaller one none", () => {
    const sizes = (n: number) => {
      const hashes = Uint32Array.from({ length: n }, (_, i) => mix32(i));
      const bytes: number[] = [];
      writeHashTable(
        hashes,
        2,
        (i, words, at) => {
          words[at] = hashes[i]!;
          words[at + 1] = i + 1;
        },
        (_p, words) => bytes.push(words.byteLength),
      );
      return bytes;
    };
    expect(sizes(367_002)).toEqual([MAPPED_MIN_BYTES]); // 524,289 slots of 8 bytes: 4 MB + 8
    expect(sizes(367_000)).toEqual([524_286 * 8]);
  });

  it("answers not found from an empty table", () => {
    expect(find(build(new Uint32Array(0)), 42)).toEqual([]);
  });
});
