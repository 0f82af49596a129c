import { describe, expect, it } from "vitest";
import { lineBatches } from "../../src/pipeline/lines.js";
import type { LinesBatch } from "../../src/pipeline/types.js";

async function collect(chunks: string[], batchBytes: number): Promise<LinesBatch[]> {
  const input = (async function* () {
    for (const c of chunks) yield Buffer.from(c);
  })();
  const out: LinesBatch[] = [];
  for await (const b of lineBatches(input, { file: "f", entity: undefined, bundles: false, batchBytes }))
    out.push(b);
  return out;
}

describe("lineBatches", () => {
  it("cuts at the first newline once a batch has its bytes, and numbers each batch's first line", async () => {
    const batches = await collect(["a\nb", "b\nc\n", "d\ne", "e"], 4);
    expect(batches.map((b) => [b.firstLine, Buffer.from(b.text).toString()])).toEqual([
      [1, "a\nbb\n"],
      [3, "c\nd\n"],
      [5, "ee"],
    ]);
  });

  it("cuts one read chunk into several batches", async () => {
    const batches = await collect(["1\n22\n3\n44\n5\n66\n7"], 3);
    expect(batches.map((b) => [b.firstLine, Buffer.from(b.text).toString()])).toEqual([
      [1, "1\n22\n"],
      [3, "3\n44\n"],
      [5, "5\n66\n"],
      [7, "7"],
    ]);
  });

  it("keeps a line longer than a batch whole", async () => {
    const batches = await collect(["xxxxxxxx", "yyyy", "zz\nq\n"], 2);
    expect(batches.map((b) => [b.firstLine, Buffer.from(b.text).toString()])).toEqual([
      [1, "xxxxxxxxyyyyzz\n"],
      [2, "q\n"],
    ]);
  });

  it("waits for a batch's worth of bytes before cutting", async () => {
    const batches = await collect(["1\n", "2\n", "3\n", "4\n"], 5);
    expect(batches.map((b) => [b.firstLine, Buffer.from(b.text).toString()])).toEqual([
      [1, "1\n2\n3\n"],
      [4, "4\n"],
    ]);
  });
});
