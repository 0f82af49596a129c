import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveInputs } from "../../src/pipeline/inputs.js";
import { composePlan } from "../../src/pipeline/plan.js";
import { crossmapOf, personToPatient } from "./fake-crossmap.js";

const plan = composePlan([crossmapOf("omop_cdm_v5.4", "fhir_r4", [personToPatient()])]);
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "crossmap-inputs-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("resolveInputs", () => {
  it("reads a folder named after a table (Spark's person.csv/, Hive's person/) as that table's part files", async () => {
    const header = "person_id\n1\n";
    mkdirSync(join(dir, "person.csv"));
    writeFileSync(join(dir, "person.csv", "part-00001-a.csv"), header);
    writeFileSync(join(dir, "person.csv", "part-00000-a.csv"), header);
    writeFileSync(join(dir, "person.csv", "_SUCCESS"), "");
    writeFileSync(join(dir, "person.csv", ".part-00000-a.csv.crc"), "x");
    mkdirSync(join(dir, "PERSON"));
    writeFileSync(join(dir, "PERSON", "part-0.csv.gz"), "");
    mkdirSync(join(dir, "scratch"));
    writeFileSync(join(dir, "scratch", "x.csv"), header);
    const inputs = await resolveInputs({
      inputs: [dir],
      format: undefined,
      entity: undefined,
      plan,
      note: () => {},
    });
    expect(inputs.map((i) => [i.file.slice(dir.length + 1), i.format, i.entity])).toEqual([
      ["PERSON/part-0.csv.gz", "csv", "person"],
      ["person.csv/part-00000-a.csv", "csv", "person"],
      ["person.csv/part-00001-a.csv", "csv", "person"],
    ]);
  });
});
