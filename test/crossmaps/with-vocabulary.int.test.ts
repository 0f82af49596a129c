// The built-in crossmaps with the real vocabulary bridge over the shipped sample vocabulary (vocab/):
// OMOP -> FHIR renders concepts in their own systems, FHIR -> OMOP resolves codes to concept ids.
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_DIR } from "../../src/crossmap/catalog.js";
import { loadCrossmapFile } from "../../src/crossmap/load.js";
import type { MappingIssue } from "../../src/crossmap/types.js";
import { buildVocabulary } from "../../src/vocab/build.js";
import { type LmdbVocabularyBridge, openVocabulary } from "../../src/vocab/lmdb-bridge.js";
import { fhirProblems } from "../support/fhir.js";
import { sampleResources } from "../support/fhir-samples.js";
import { mapAll } from "../support/map-all.js";
import { leaves, omopRows, rowSlices } from "../support/omop.js";
import { omopRowProblems } from "../support/omop-rows.js";
import { tempDir } from "../vocab/fixtures.js";

const tmp = tempDir("crossmap-builtin-vocab-");
let vocabulary: LmdbVocabularyBridge;

beforeAll(async () => {
  await buildVocabulary({ sourceDir: resolve("vocab"), outDir: join(tmp.path, "index") });
  vocabulary = openVocabulary(join(tmp.path, "index"));
});
afterAll(async () => {
  await vocabulary.close();
  tmp.remove();
});

const OHDSI = /^https:\/\/fhir-terminology\.ohdsi\.org/;

function codings(v: unknown): { system?: string; code?: string }[] {
  if (v === null || typeof v !== "object") return [];
  const own = Array.isArray((v as { coding?: unknown }).coding)
    ? (v as { coding: { system?: string; code?: string }[] }).coding
    : [];
  return [...own, ...Object.values(v).flatMap(codings)];
}

/** Every table of the bundled sample, so each gets its own test (validating ~25,000 resources takes minutes). */
const TABLES = [
  "person",
  "death",
  "visit_occurrence",
  "visit_detail",
  "condition_occurrence",
  "drug_exposure",
  "procedure_occurrence",
  "device_exposure",
  "measurement",
  "observation",
  "observation_period",
  "provider",
] as const;

describe("OMOP CDM v5.4 -> FHIR R4 with the sample vocabulary", () => {
  let cm: Awaited<ReturnType<typeof loadCrossmapFile>>;
  const systems = new Map<string, number>();
  beforeAll(async () => {
    cm = await loadCrossmapFile(join(BUILTIN_DIR, "omop_cdm_v5.4-to-fhir_r4.yaml"), { vocabulary });
  });
  for (const { table, label, start, rows } of TABLES.flatMap((t) =>
    rowSlices(t).map((s) => ({ table: t, ...s })),
  )) {
    it(`maps every ${label} row to a valid resource with real code systems`, () => {
      const invalid: string[] = [];
      const errors: MappingIssue[] = [];
      const mapper = cm.mapper(table);
      expect(rows.length).toBeGreaterThan(0);
      rows.forEach((row, j) => {
        const i = start + j;
        const { value, issues } = mapper.map(row, `${table}:${i + 2}`);
        errors.push(...issues);
        const problems = fhirProblems(value);
        for (const [path, leaf] of leaves(value))
          if (leaf === null || leaf === "" || leaf === undefined) problems.push(`empty value at ${path}`);
        const ids = new Set(
          Object.entries(row)
            .filter(([k]) => k.endsWith("concept_id"))
            .map(([, v]) => v),
        );
        for (const c of codings(value)) {
          systems.set(c.system ?? "(none)", (systems.get(c.system ?? "(none)") ?? 0) + 1);
          if (!OHDSI.test(c.system ?? "") && c.code !== undefined && ids.has(c.code) && c.code !== "0")
            problems.push(`concept id ${c.code} under ${c.system}`);
        }
        if (problems.length > 0) invalid.push(`${table} row ${i + 2}: ${problems.join("; ")}`);
      });
      expect(invalid.slice(0, 5)).toEqual([]);
      expect(errors.slice(0, 5)).toEqual([]);
    });
  }
  it("writes concepts the vocabulary knows in their own systems, beside the OHDSI concept id", () => {
    expect(systems.get("http://snomed.info/sct")).toBeGreaterThan(0);
    expect(systems.get("http://loinc.org")).toBeGreaterThan(0);
    expect(systems.get("http://www.nlm.nih.gov/research/umls/rxnorm")).toBeGreaterThan(0);
    expect(systems.get("https://fhir-terminology.ohdsi.org")).toBeGreaterThan(0);
    const condition = cm.mapper("condition_occurrence").map(omopRows("condition_occurrence")[0] ?? {});
    expect(condition.value.code).toEqual({
      extension: [
        {
          url: "https://crossmap.dev/fhir/StructureDefinition/omop-source-concept",
          valueCoding: {
            system: "https://fhir-terminology.ohdsi.org",
            code: "372328",
            display: "Otitis media",
          },
        },
      ],
      coding: [
        { system: "http://snomed.info/sct", code: "65363002", display: "Otitis media", userSelected: true },
        { system: "https://fhir-terminology.ohdsi.org", code: "372328", display: "Otitis media" },
      ],
    });
  });
});

describe("FHIR R4 -> OMOP CDM v5.4 with the sample vocabulary", () => {
  it("resolves known codes to standard concept ids, unknown ones to 0 with a warning", async () => {
    const cm = await loadCrossmapFile(join(BUILTIN_DIR, "fhir_r4-to-omop_cdm_v5.4.yaml"), { vocabulary });
    const bad: string[] = [];
    const errors: MappingIssue[] = [];
    let resolved = 0;
    let rows = 0;
    for (const type of [
      "Patient",
      "Encounter",
      "Condition",
      "MedicationRequest",
      "Immunization",
      "Observation",
      "Procedure",
    ]) {
      for (const r of sampleResources(type)) {
        const { outputs, issues } = mapAll(cm.mapper(type), r, `${type}/${r.id}`);
        rows++;
        errors.push(...issues.filter((i) => i.severity === "error"));
        for (const i of issues) if (i.severity === "warning") expect(i.code).toBe("concept_not_found");
        for (const o of outputs)
          for (const p of omopRowProblems(o.entity, o.value)) bad.push(`${type}/${r.id}: ${p}`);
        // The row the resource itself becomes (routed by its domain); components are further rows.
        const { entity: table, value } = outputs[0] ?? { entity: "", value: {} };
        const prefix = {
          measurement: "measurement",
          condition_occurrence: "condition",
          drug_exposure: "drug",
          procedure_occurrence: "procedure",
          observation: "observation",
        }[table];
        if (prefix && (value[`${prefix}_concept_id`] as number) > 0) resolved++;
      }
    }
    expect(rows).toBe(382);
    expect(bad.slice(0, 5)).toEqual([]);
    expect(errors.slice(0, 5)).toEqual([]);
    // Codes of the sample vocabulary resolve (314 of 382, counted in the table their domain routed them to:
    // every CVX vaccine among them); the rest give 0.
    expect(resolved).toBe(314);
    const height = sampleResources("Observation").find(
      (o) => o.id === "dec69303-9616-4afc-ae98-73ffd7cf2dfe",
    );
    expect(cm.mapper("Observation").map(height ?? {}).value).toMatchObject({
      measurement_concept_id: 3036277,
      measurement_source_concept_id: 3036277,
      measurement_source_value: "8302-2",
      value_as_number: 178.88023499217553,
      unit_concept_id: 8582,
      unit_source_value: "cm",
    });
  });
});
