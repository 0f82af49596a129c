// The hand-written golden OMOP rows (test/golden/omop-to-fhir/: every table, 64-bit and negative ids, padded and
// free-text source values, values beside values, units without numbers) make valid FHIR, and come back through
// the reverse crossmap with only the losses FHIR's rules force: a FHIR code has no surrounding spaces.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_DIR } from "../../src/crossmap/catalog.js";
import type { Crossmap } from "../../src/crossmap/crossmap.js";
import { loadCrossmapFile } from "../../src/crossmap/load.js";
import { loadStandard } from "../../src/crossmap/standards.js";
import { parseJson } from "../../src/pipeline/json.js";
import { canonical } from "../../src/pipeline/roundtrip/compare.js";
import { fhirProblems } from "../support/fhir.js";
import { mapAll } from "../support/map-all.js";
import { omopRowProblems } from "../support/omop-rows.js";

const golden = new URL("../golden/", import.meta.url).pathname;
const cdm = loadStandard("omop_cdm_v5.4");
const typeOf = (table: string, column: string) =>
  cdm?.entities[table]?.fields.find((f) => f.name === column)?.type;

let there: Crossmap;
let back: Crossmap;
beforeAll(async () => {
  there = await loadCrossmapFile(join(BUILTIN_DIR, "omop_cdm_v5.4-to-fhir_r4.yaml"));
  back = await loadCrossmapFile(join(BUILTIN_DIR, "fhir_r4-to-omop_cdm_v5.4.yaml"));
});

const inputLines = (name: string) =>
  readFileSync(join(golden, name, "input.ndjson"), "utf8")
    .split("\n")
    .filter(Boolean);
const inputs = inputLines("omop-to-fhir").map(
  (l) => parseJson(l) as { entity: string; record: Record<string, unknown> },
);
/** The table a single-output FHIR resource type maps to. */
const targetOf = (entity: string) => back.targetEntity(entity);

describe("golden FHIR resources (Synthea's and hand-written: a deceased patient, a coverage, a visit's admission)", () => {
  it("make OMOP rows that fit the CDM v5.4 field list", () => {
    const lines = readFileSync(join(golden, "fhir-to-omop", "expected.ndjson"), "utf8")
      .split("\n")
      .filter(Boolean);
    const bad: string[] = [];
    let count = 0;
    for (const [i, line] of lines.entries()) {
      const r = parseJson(line) as {
        value?: Record<string, unknown>;
        outputs?: { entity: string; value: Record<string, unknown> }[];
      };
      const made = r.outputs ?? [];
      if (r.value) {
        const entity = (parseJson(inputLines("fhir-to-omop")[i] ?? "{}") as { entity: string }).entity;
        made.push({ entity: targetOf(entity), value: r.value });
      }
      for (const m of made) {
        count++;
        for (const p of omopRowProblems(m.entity, m.value)) bad.push(`line ${i + 1} ${m.entity}: ${p}`);
      }
    }
    expect(bad).toEqual([]);
    expect(count).toBe(23);
  });
});

describe("golden OMOP rows at the edges", () => {
  it("make FHIR resources that both validators accept", () => {
    const expected = readFileSync(join(golden, "omop-to-fhir", "expected.ndjson"), "utf8")
      .split("\n")
      .filter(Boolean);
    const invalid = expected.flatMap((l, i) => {
      const { value } = parseJson(l) as { value: unknown };
      return fhirProblems(value).map((p) => `line ${i + 1}: ${p}`);
    });
    expect(invalid).toEqual([]);
    expect(expected).toHaveLength(inputs.length);
  });
  it("come back row for row, every value but the spaces around codes", () => {
    const lost: string[] = [];
    for (const { entity, record } of inputs) {
      const key = cdm?.entities[entity]?.fields[0]?.name as string;
      const resources = mapAll(there.mapper(entity), record).outputs;
      const rows = resources.flatMap((r) => mapAll(back.mapper(r.entity), r.value).outputs);
      const same = rows.find(
        (r) =>
          r.entity === entity &&
          canonical(r.value[key], typeOf(entity, key)) === canonical(record[key], "integer"),
      );
      expect([entity, record[key], rows.length, same !== undefined]).toEqual([entity, record[key], 1, true]);
      for (const p of omopRowProblems(entity, same?.value ?? {})) lost.push(`invalid: ${p}`);
      for (const [column, value] of Object.entries(record)) {
        const before = canonical(value, typeOf(entity, column));
        const after = canonical(same?.value[column], typeOf(entity, column));
        if (before !== after)
          lost.push(`${entity}.${column}: ${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
      }
    }
    expect(lost).toEqual([
      'measurement.measurement_source_value: "  29463-7" -> "29463-7"',
      'procedure_occurrence.procedure_source_value: "78791  " -> "78791"',
    ]);
  });
});
