// Slab areas: the writer's record placement and refs, and the reader's mapped / copied views over a real
// LMDB file.
import { join } from "node:path";
import { open } from "lmdb";
import { afterAll, describe, expect, it } from "vitest";
import { makeRef } from "../../src/vocab/layout.js";
import { READ_ONLY_OPTIONS } from "../../src/vocab/lmdb-bridge.js";
import { MAPPED_MIN_BYTES, readSlab, SlabWriter } from "../../src/vocab/slabs.js";
import { lmdbMapsLargeValues, tempDir } from "./fixtures.js";

const tmp = tempDir();
afterAll(() => tmp.remove());
const maps = await lmdbMapsLargeValues();

function collect(slabBytes?: number) {
  const slabs: Buffer[] = [];
  const writer = new SlabWriter(
    "test records",
    (n, value) => {
      expect(n).toBe(slabs.length);
      slabs.push(Buffer.from(value)); // the writer reuses its buffer after a put
    },
    slabBytes,
  );
  return { writer, slabs };
}

describe("SlabWriter", () => {
  it("places word-aligned records and starts a new slab when one is full", () => {
    const { writer, slabs } = collect(64); // 16 words per slab
    expect(writer.addConcept(7, "abc")).toBe(makeRef(0, 0)); // 2 header words + 1 word of text
    expect(writer.addConcept(0xffff_fffe, "é")).toBe(makeRef(0, 3)); // 2 UTF-8 bytes
    expect(writer.addWords(new Uint32Array([2, 10, 11]))).toBe(makeRef(0, 6));
    expect(writer.addWords(new Uint32Array(8).fill(9))).toBe(makeRef(1, 0)); // 9 + 8 > 16
    expect(writer.finish()).toBe(2);
    const words = new Uint32Array(slabs[0]!.buffer, slabs[0]!.byteOffset, 9);
    expect([...words.subarray(0, 2)]).toEqual([7, 3]);
    expect(slabs[0]!.toString("utf8", 8, 11)).toBe("abc");
    expect([...words.subarray(3, 5)]).toEqual([0xffff_fffe, 2]);
    expect(slabs[0]!.toString("utf8", 20, 22)).toBe("é");
    expect([...words.subarray(6, 9)]).toEqual([2, 10, 11]);
    expect(slabs[0]!.length).toBe(36);
    expect(slabs[1]!.length).toBe(32);
  });

  it("gives a record larger than a slab a slab of its own", () => {
    const { writer, slabs } = collect(64);
    writer.addWords(new Uint32Array([1]));
    expect(writer.addWords(new Uint32Array(40).fill(5))).toBe(makeRef(1, 0));
    expect(writer.addWords(new Uint32Array([3]))).toBe(makeRef(2, 0));
    expect(writer.finish()).toBe(3);
    expect(slabs.map((s) => s.length)).toEqual([4, 160, 4]);
  });

  it("writes one empty slab for an empty area", () => {
    const { writer, slabs } = collect();
    expect(writer.finish()).toBe(1);
    expect(slabs.map((s) => s.length)).toEqual([0]);
  });

  it("pads a lone slab of 4 MB or more up to the size lmdb-js maps, and leaves a smaller one", () => {
    const big = collect(64 << 20);
    big.writer.addWords(new Uint32Array(1 << 20)); // 4 MB
    expect(big.writer.finish()).toBe(1);
    expect(big.slabs.map((s) => s.length)).toEqual([MAPPED_MIN_BYTES]);
    const small = collect(64 << 20);
    small.writer.addWords(new Uint32Array((1 << 20) - 1));
    small.writer.finish();
    expect(small.slabs.map((s) => s.length)).toEqual([(4 << 20) - 4]);
  });

  it("pads a small last slab of a large area up to the size lmdb-js maps", () => {
    const { writer, slabs } = collect(32 << 20);
    writer.addWords(new Uint32Array(6 << 20)); // 24 MB
    writer.addWords(new Uint32Array(3 << 20)); // 12 MB: does not fit, starts slab 1
    expect(writer.finish()).toBe(2);
    expect(slabs.map((s) => s.length)).toEqual([24 << 20, MAPPED_MIN_BYTES]);
  });
});

describe("readSlab", () => {
  it(`${maps ? "maps" : "copies (this lmdb binary maps nothing)"} a large value, and copies a small one out of lmdb-js's shared buffer`, async () => {
    const path = join(tmp.path, "slabs.mdb");
    const w = open({ path, noSubdir: true, maxDbs: 2 });
    const wdb = w.openDB<Buffer, number>({ name: "slabs", keyEncoding: "uint32", encoding: "binary" });
    const big = Buffer.alloc(MAPPED_MIN_BYTES);
    big.writeUInt32LE(123456, 400);
    await wdb.put(0, big);
    await wdb.put(1, Buffer.from([1, 0, 0, 0, 2, 0, 0, 0]));
    await wdb.put(2, Buffer.from([9, 9, 9, 9]));
    await w.close();
    const r = open({ path, ...READ_ONLY_OPTIONS });
    try {
      const db = r.openDB<Buffer, number>({ name: "slabs", keyEncoding: "uint32", encoding: "binary" });
      const large = readSlab(db, 0, "test");
      const small = readSlab(db, 1, "test");
      readSlab(db, 2, "test"); // overwrites lmdb-js's shared read buffer
      expect(large.mapped).toBe(maps);
      expect(large.bytes.length).toBe(MAPPED_MIN_BYTES);
      expect(large.words[100]).toBe(123456);
      expect(small.mapped).toBe(false);
      expect([...small.words]).toEqual([1, 2]);
      expect(() => readSlab(db, 3, "the index")).toThrow("the index: the index is incomplete (slab 3)");
    } finally {
      await r.close();
    }
  });

  it("reads slabs beyond the end of an earlier, smaller map that was closed at the same address", async () => {
    // lmdb-js keeps views by map address: with a map sized by its file, the second environment below
    // inherited the first one's 16 MB view and its slabs failed with "Invalid typed array length".
    const write = async (name: string, slabs: number) => {
      const path = join(tmp.path, name);
      const w = open({ path, noSubdir: true, maxDbs: 2 });
      const db = w.openDB<Buffer, number>({ name: "slabs", keyEncoding: "uint32", encoding: "binary" });
      for (let n = 0; n < slabs; n++) await db.put(n, Buffer.alloc(MAPPED_MIN_BYTES, n + 1));
      await w.close();
      return path;
    };
    const small = await write("small.mdb", 1);
    const large = await write("large.mdb", 3);
    for (const path of [small, large]) {
      const r = open({ path, ...READ_ONLY_OPTIONS });
      try {
        const db = r.openDB<Buffer, number>({ name: "slabs", keyEncoding: "uint32", encoding: "binary" });
        for (let n = 0; n < (path === small ? 1 : 3); n++) {
          const slab = readSlab(db, n, path);
          expect([slab.bytes[0], slab.bytes[MAPPED_MIN_BYTES - 1]]).toEqual([n + 1, n + 1]);
        }
      } finally {
        await r.close();
      }
    }
  });
});
