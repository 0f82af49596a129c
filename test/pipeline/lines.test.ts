import { describe, expect, it } from "vitest";
import { lineBatches } from "../../src/pipeline/lines.js";
import type { Batch, LinesBatch } from "../../src/pipeline/types.js";

async function all(chunks: string[], batchBytes: number, maxRecordBytes = 1 << 20): Promise<Batch[]> {
  const input = (async function* () {
    for (const c of chunks) yield Buffer.from(c);
  })();
  const out: Batch[] = [];
  const options = {
    file: "f",
    entity: undefined,
    bundles: false,
    batchBytes,
    maxRecordBytes,
    limitLabel: "L",
  };
  for await (const b of lineBatches(input, options)) out.push(b);
  return out;
}

async function collect(chunks: string[], batchBytes: number): Promise<LinesBatch[]> {
  return (await all(chunks, batchBytes)) as LinesBatch[];
}

/** Each batch as [first line, text] or [line, problem code, problem] for a record a reader rejected. */
const shown = (batches: Batch[]) =>
  batches.map((b) =>
    b.kind === "lines"
      ? [b.firstLine, Buffer.from(b.text).toString()]
      : b.records.map((r) => [r.line, r.problemCode, r.problem]),
  );

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

  it("drops a line over the per-record limit as it streams by, reports it, and goes on with the next", async () => {
    const long = "x".repeat(40);
    // Split across reads, within one read, and last without a newline.
    const batches = await all(
      ["a\n", long.slice(0, 15), long.slice(15), "\nb\nc\n", `${long}\nd\n`, long],
      4,
      16,
    );
    expect(shown(batches)).toEqual([
      [1, "a\n"],
      [[2, "record_too_large", "the line is 40 bytes long, over the limit of L per record; it is not read"]],
      [3, "b\nc\n"],
      [[5, "record_too_large", "the line is 40 bytes long, over the limit of L per record; it is not read"]],
      [6, "d\n"],
      [[7, "record_too_large", "the line is 40 bytes long, over the limit of L per record; it is not read"]],
    ]);
  });

  it("never holds more of a long line than the limit", async () => {
    let held = 0;
    const input = (async function* () {
      yield Buffer.from("{}\n");
      for (let i = 0; i < 100; i++) yield Buffer.alloc(1000, 0x61);
      yield Buffer.from("\n{}\n");
    })();
    const out: Batch[] = [];
    const options = {
      file: "f",
      entity: undefined,
      bundles: false,
      batchBytes: 10,
      maxRecordBytes: 5000,
      limitLabel: "L",
    };
    for await (const b of lineBatches(input, options)) {
      if (b.kind === "lines") held = Math.max(held, b.text.length);
      out.push(b);
    }
    expect(shown(out)).toEqual([
      [1, "{}\n"],
      [
        [
          2,
          "record_too_large",
          "the line is 100000 bytes long, over the limit of L per record; it is not read",
        ],
      ],
      [3, "{}\n"],
    ]);
    expect(held).toBeLessThan(10);
  });
});
