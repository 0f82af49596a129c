// FHIR -> OMOP on the Synthea sample Bundles with the sample vocabulary, judged by the CDM's conventions: every
// row in the table of its concept's domain, blood-pressure components as rows of their own with values and
// units, unit_concept_id for every UCUM unit the vocabulary holds, a death row per deceased patient, and most
// resources feeding some table (the rest named in a warning each).
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_DIR } from "../../src/crossmap/catalog.js";
import type { Crossmap } from "../../src/crossmap/crossmap.js";
import { loadCrossmapFile } from "../../src/crossmap/load.js";
import type { MappingIssue } from "../../src/crossmap/types.js";
import { composePlan } from "../../src/pipeline/plan.js";
import { createBatchMapper } from "../../src/pipeline/stage.js";
import { buildVocabulary } from "../../src/vocab/build.js";
import { type LmdbVocabularyBridge, openVocabulary } from "../../src/vocab/lmdb-bridge.js";
import { sampleBundles } from "../support/fhir-samples.js";
import { mapAll } from "../support/map-all.js";
import { omopRowProblems } from "../support/omop-rows.js";
import { tempDir } from "../vocab/fixtures.js";

const tmp = tempDir("crossmap-fhir-omop-conventions-");
let vocabulary: LmdbVocabularyBridge;
let cm: Crossmap;

interface Row {
  table: string;
  row: Record<string, unknown>;
  from: string;
  resource: Record<string, unknown>;
}
const rows: Row[] = [];
const issues: MappingIssue[] = [];
let resources = 0;
let feeding = 0;

beforeAll(async () => {
  await buildVocabulary({ sourceDir: resolve("vocab"), outDir: join(tmp.path, "index") });
  vocabulary = openVocabulary(join(tmp.path, "index"));
  cm = await loadCrossmapFile(join(BUILTIN_DIR, "fhir_r4-to-omop_cdm_v5.4.yaml"), { vocabulary });
  for (const bundle of sampleBundles()) {
    for (const r of bundle.resources) {
      resources++;
      if (!cm.hasEntity(r.resourceType)) continue;
      const from = `${bundle.file} ${r.resourceType}/${r.id}`;
      const made = mapAll(cm.mapper(r.resourceType), r, from);
      issues.push(...made.issues);
      if (made.outputs.length > 0) feeding++;
      for (const o of made.outputs) rows.push({ table: o.entity, row: o.value, from, resource: r });
    }
  }
});
afterAll(async () => {
  await vocabulary.close();
  tmp.remove();
});

/** The column of a table's own concept, and the domain its concepts must have. */
const DOMAIN: Record<string, [string, string]> = {
  condition_occurrence: ["condition_concept_id", "Condition"],
  procedure_occurrence: ["procedure_concept_id", "Procedure"],
  measurement: ["measurement_concept_id", "Measurement"],
  observation: ["observation_concept_id", "Observation"],
  drug_exposure: ["drug_concept_id", "Drug"],
  device_exposure: ["device_concept_id", "Device"],
};

describe("FHIR R4 -> OMOP CDM v5.4 by the CDM's conventions, with the sample vocabulary", () => {
  it("puts every row whose concept the vocabulary knows in the table of that concept's domain", () => {
    const misplaced: string[] = [];
    let checked = 0;
    for (const { table, row, from } of rows) {
      const rule = DOMAIN[table];
      const id = rule ? (row[rule[0]] as number) : 0;
      if (!rule || !id) continue;
      checked++;
      const domain = vocabulary.getConcept(id)?.domain_id;
      if (domain !== rule[1]) misplaced.push(`${from}: ${table} row with a ${domain} concept ${id}`);
    }
    expect(misplaced).toEqual([]);
    // 335 rows of clinical tables have a concept the sample vocabulary knows; some went to another table than
    // their resource type's (a Condition whose concept is an Observation finding, smoking status).
    expect(checked).toBe(335);
    const moved = rows.filter((r) => r.table === "observation" && r.resource.resourceType === "Condition");
    expect(moved.length).toBeGreaterThan(0);
  });
  it("makes each blood-pressure component a measurement row with its value and unit, and no row for the panel", () => {
    const panels = rows.filter(
      (r) =>
        (r.resource.code as { coding?: { code?: string }[] } | undefined)?.coding?.[0]?.code === "55284-4",
    );
    expect(new Set(panels.map((p) => p.from)).size).toBe(21);
    const components = panels.map((p) => [
      p.table,
      p.row.measurement_source_value,
      p.row.measurement_concept_id,
      p.row.unit_concept_id,
      p.row.unit_source_value,
      typeof p.row.value_as_number,
    ]);
    expect(components.length).toBe(42);
    for (const c of components) {
      expect([[...c.slice(0, 1), ...c.slice(3)]]).toEqual([["measurement", 8876, "mm[Hg]", "number"]]);
    }
    expect(new Set(components.map((c) => `${c[1]} ${c[2]}`))).toEqual(
      new Set(["8480-6 3004249", "8462-4 3012888"]),
    );
  });
  it("sets unit_concept_id for every UCUM unit the vocabulary holds", () => {
    let withUnit = 0;
    for (const { table, row, from } of rows) {
      if (table !== "measurement" || typeof row.unit_source_value !== "string") continue;
      const known = vocabulary.lookupCode("UCUM", row.unit_source_value);
      if (!known) continue;
      withUnit++;
      expect([from, row.unit_concept_id]).toEqual([from, known.concept_id]);
    }
    expect(withUnit).toBe(225);
  });
  it("writes rows that fit the CDM v5.4 field list, with only vocabulary warnings", () => {
    const bad = rows.flatMap((r) => omopRowProblems(r.table, r.row).map((p) => `${r.from}: ${p}`));
    expect(bad.slice(0, 10)).toEqual([]);
    expect(issues.filter((i) => i.severity === "error")).toEqual([]);
    expect([...new Set(issues.map((i) => i.code))]).toEqual(["concept_not_found"]);
  });
  it("feeds some table from 495 of the 514 resources (96.3 %), and names each of the 19 left out", () => {
    expect([resources, feeding]).toEqual([514, 495]);
    expect(feeding / resources).toBeGreaterThanOrEqual(0.9);
    const batch = createBatchMapper(composePlan([cm]), { onError: "skip", perEntity: true });
    const named: string[] = [];
    for (const bundle of sampleBundles()) {
      const result = batch({
        kind: "records",
        file: bundle.file,
        entity: undefined,
        records: bundle.resources.map((r, i) => ({ record: r, entry: i })),
      });
      for (const i of result.issues)
        if (i.code === "unmapped_resource") named.push(`${i.severity}: ${i.message}`);
    }
    expect(named).toHaveLength(19);
    expect(named).toContain(
      "warning: DiagnosticReport/6c013625-db31-434a-93c5-32d973260a9c is left out: the crossmap has no mapping for DiagnosticReport",
    );
    expect(named.filter((n) => n.includes("CarePlan/"))).toHaveLength(5);
  });
  it("makes a death row of a deceased patient, beside the person row", () => {
    const made = mapAll(cm.mapper("Patient"), {
      resourceType: "Patient",
      id: "p-1",
      gender: "female",
      birthDate: "1931-02-03",
      deceasedDateTime: "2020-04-05T06:07:08+02:00",
    });
    expect(made.outputs).toEqual([
      {
        entity: "person",
        value: expect.objectContaining({
          person_id: made.outputs[0]?.value.person_id,
          gender_concept_id: 8532,
        }),
      },
      {
        entity: "death",
        value: {
          death_type_concept_id: 32817,
          person_id: made.outputs[0]?.value.person_id,
          death_date: "2020-04-05",
          death_datetime: "2020-04-05 06:07:08",
        },
      },
    ]);
    expect(omopRowProblems("death", made.outputs[1]?.value ?? {})).toEqual([]);
  });
});
