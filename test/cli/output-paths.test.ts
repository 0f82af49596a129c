import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkOutputPaths } from "../../src/cli/output-paths.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "crossmap-output-paths-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("checkOutputPaths", () => {
  it("refuses -o over an input: the export would be replaced by its mapping", async () => {
    const input = join(dir, "person.csv");
    writeFileSync(input, "person_id\n1\n");
    await expect(
      checkOutputPaths([{ flag: "-o", path: join(dir, ".", "person.csv") }], [input]),
    ).rejects.toThrow(`-o ${join(dir, "person.csv")} is the file of input ${input}; give another path`);
  });

  it("refuses two outputs on one file, and an output that is a directory", async () => {
    const out = join(dir, "out.ndjson");
    await expect(
      checkOutputPaths(
        [
          { flag: "-o", path: out },
          { flag: "--errors", path: out },
        ],
        [],
      ),
    ).rejects.toThrow(`--errors ${out} is the file of -o ${out}`);
    mkdirSync(join(dir, "sub"));
    await expect(checkOutputPaths([{ flag: "-o", path: join(dir, "sub") }], [])).rejects.toMatchObject({
      status: 400,
      message: `-o ${join(dir, "sub")} is a directory; give a file`,
    });
  });

  it("lets devices be shared, and stdout be -", async () => {
    await expect(
      checkOutputPaths(
        [
          { flag: "-o", path: "/dev/null" },
          { flag: "--errors", path: "/dev/null" },
          { flag: "--summary", path: "-" },
        ],
        ["-"],
      ),
    ).resolves.toBeUndefined();
  });
});
