// Golden files for the built-in HL7 v2 -> FHIR crossmap: each sample message's Bundle and issues, compared
// whole with test/golden/hl7v2-samples/<message>.json. UPDATE_GOLDEN=1 rewrites them; review the diff.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { findBuiltinCrossmap } from "../../../src/crossmap/catalog.js";
import type { Crossmap } from "../../../src/crossmap/crossmap.js";
import { loadCrossmapFile } from "../../../src/crossmap/load.js";
import { convertText } from "../../../src/pipeline/hl7v2/index.js";
import { FIXTURES_DIR } from "../../support/omop.js";

const DIR = join(FIXTURES_DIR, "hl7v2", "samples");
const GOLDEN = new URL("../../golden/hl7v2-samples/", import.meta.url).pathname;
const files = readdirSync(DIR)
  .filter((f) => f.endsWith(".hl7"))
  .sort();

let crossmap: Crossmap;
beforeAll(async () => {
  crossmap = await loadCrossmapFile(findBuiltinCrossmap("hl7v2_2.5.1", "fhir_r4")?.path ?? "");
});

describe("the built-in HL7 v2 crossmap on the samples (golden)", () => {
  it.each(files)("%s", (f) => {
    const results = [...convertText(readFileSync(join(DIR, f), "utf8"), crossmap, { file: f })];
    const actual = `${JSON.stringify(
      results.map((r) => (r.ok ? { bundle: r.bundle, issues: r.issues } : { malformed: r.malformed })),
      null,
      1,
    )}\n`;
    const path = join(GOLDEN, f.replace(/\.hl7$/, ".json"));
    if (process.env.UPDATE_GOLDEN) {
      mkdirSync(GOLDEN, { recursive: true });
      writeFileSync(path, actual);
    }
    expect(actual).toBe(readFileSync(path, "utf8"));
  });
});
