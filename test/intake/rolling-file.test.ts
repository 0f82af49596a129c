import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RollingFile } from "../../src/intake/rolling-file.js";

const options = { rollBytes: 10, rollMs: 3_600_000, sync: true };
const files = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((f) => [f, readFileSync(join(dir, f), "utf8")]),
  );

describe("RollingFile", () => {
  it("writes lines to a .part file, closes it at its size and renames it once committed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crossmap-rolling-"));
    const f = new RollingFile(dir, "bundles", options);
    await f.open(undefined);
    f.append("a\n");
    expect(await f.flush(0)).toEqual({ index: 1, length: 2 });
    f.append("bbbbbbbbbb\n");
    expect(await f.flush(0)).toEqual({ index: 2, length: 0 });
    expect(files(dir)).toEqual({ "bundles-000001.ndjson.part": "a\nbbbbbbbbbb\n" });
    f.committed();
    f.append("c\n");
    expect(await f.flush(0)).toEqual({ index: 2, length: 2 });
    await f.close();
    expect(files(dir)).toEqual({
      "bundles-000001.ndjson": "a\nbbbbbbbbbb\n",
      "bundles-000002.ndjson.part": "c\n",
    });
  });

  it("after a crash keeps what was committed and cuts off the rest, which will be written again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crossmap-rolling-"));
    // Committed: file 2 up to 2 bytes. File 1 was closed but not yet renamed; file 3 was begun after.
    writeFileSync(join(dir, "bundles-000001.ndjson.part"), "a\nbbbbbbbbbb\n");
    writeFileSync(join(dir, "bundles-000002.ndjson.part"), "c\nd-not-committed\n");
    writeFileSync(join(dir, "bundles-000003.ndjson.part"), "e-not-committed\n");
    const f = new RollingFile(dir, "bundles", options);
    await f.open({ index: 2, length: 2 });
    f.append("d\n");
    expect(await f.flush(0)).toEqual({ index: 2, length: 4 });
    await f.close();
    expect(files(dir)).toEqual({
      "bundles-000001.ndjson": "a\nbbbbbbbbbb\n",
      "bundles-000002.ndjson.part": "c\nd\n",
    });
  });
});
