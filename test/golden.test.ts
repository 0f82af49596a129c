// Golden tests: each folder in test/golden/ holds crossmap.yaml, input.ndjson (lines of {"entity", "record"})
// and expected.ndjson (one {"value", "issues"} line per input line). UPDATE_GOLDEN=1 rewrites expected files;
// review the diff before committing.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadCrossmapFile } from "../src/crossmap/load.js";
import { parseJson, stringifyJson } from "../src/pipeline/json.js";

const root = new URL("./golden/", import.meta.url).pathname;
const cases = readdirSync(root).filter((d) => existsSync(join(root, d, "input.ndjson")));

describe("golden mappings", () => {
  it("has cases", () => expect(cases.length).toBeGreaterThan(0));
  for (const name of cases) {
    it(name, async () => {
      const dir = join(root, name);
      const cm = await loadCrossmapFile(join(dir, "crossmap.yaml"));
      const lines = readFileSync(join(dir, "input.ndjson"), "utf8").split("\n").filter(Boolean);
      const actual = lines
        .map((line, i) => {
          const { entity, record } = parseJson(line) as { entity: string; record: Record<string, unknown> };
          return stringifyJson(cm.mapper(entity).map(record, i + 1));
        })
        .join("\n");
      const expectedPath = join(dir, "expected.ndjson");
      if (process.env.UPDATE_GOLDEN) writeFileSync(expectedPath, `${actual}\n`);
      expect(actual).toBe(readFileSync(expectedPath, "utf8").trimEnd());
    });
  }
});
