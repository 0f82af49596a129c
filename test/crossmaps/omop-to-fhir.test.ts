// The built-in OMOP -> FHIR crossmap against every row of the seven Synthea27Nj sample tables: every
// resource must pass both FHIR validators, and none may hold null, "" or an OMOP concept id under a
// system other than the OHDSI one.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_DIR } from "../../src/crossmap/catalog.js";
import type { Crossmap } from "../../src/crossmap/crossmap.js";
import { loadCrossmapFile } from "../../src/crossmap/load.js";
import type { MappingIssue } from "../../src/crossmap/types.js";
import { fhirProblems } from "../support/fhir.js";
import { leaves, rowSlices } from "../support/omop.js";

const OHDSI = "https://fhir-terminology.ohdsi.org";
const TABLES = [
  "person",
  "visit_occurrence",
  "visit_detail",
  "condition_occurrence",
  "drug_exposure",
  "measurement",
  "observation",
  "procedure_occurrence",
  "device_exposure",
  "death",
  "observation_period",
  "provider",
] as const;

let cm: Crossmap;
beforeAll(async () => {
  cm = await loadCrossmapFile(join(BUILTIN_DIR, "omop_cdm_v5.4-to-fhir_r4.yaml"));
});

/** Codings anywhere in a resource. */
function codings(v: unknown): { system?: string; code?: string }[] {
  if (v === null || typeof v !== "object") return [];
  const own = Array.isArray((v as { coding?: unknown }).coding)
    ? ((v as { coding: { system?: string; code?: string }[] }).coding ?? [])
    : [];
  return [...own, ...Object.values(v).flatMap(codings)];
}

/** resourceType/id of every resource made, to prove ids do not collide across tables. */
const made = new Map<string, string>();

describe("OMOP CDM v5.4 -> FHIR R4 on the Synthea27Nj sample", () => {
  for (const { table, label, start, rows } of TABLES.flatMap((t) =>
    rowSlices(t).map((s) => ({ table: t, ...s })),
  )) {
    it(`maps every ${label} row to a valid ${table === "death" ? "Observation" : "resource"}`, () => {
      expect(rows.length).toBeGreaterThan(0);
      const mapper = cm.mapper(table);
      const invalid: string[] = [];
      const issues: MappingIssue[] = [];
      rows.forEach((row, j) => {
        const i = start + j;
        const { value, issues: found } = mapper.map(row, i + 2);
        issues.push(...found);
        const key = `${value.resourceType}/${value.id}`;
        if (made.has(key)) invalid.push(`row ${i + 2}: ${key} was already made from ${made.get(key)}`);
        made.set(key, `${table} row ${i + 2}`);
        const problems = fhirProblems(value);
        for (const [path, leaf] of leaves(value)) {
          if (leaf === null || leaf === "" || leaf === undefined) problems.push(`empty value at ${path}`);
        }
        const conceptIds = new Set(
          Object.entries(row)
            .filter(([k]) => k.endsWith("concept_id"))
            .map(([, v]) => v),
        );
        for (const c of codings(value)) {
          if (c.system === OHDSI) {
            if (!/^\d+$/.test(c.code ?? "")) problems.push(`non-concept code ${c.code} under ${OHDSI}`);
          } else if (c.code !== undefined && conceptIds.has(c.code)) {
            problems.push(`concept id ${c.code} under ${c.system}`);
          }
        }
        if (problems.length > 0) invalid.push(`row ${i + 2}: ${problems.join("; ")}`);
      });
      expect(invalid.slice(0, 5)).toEqual([]);
      expect(issues.slice(0, 5)).toEqual([]);
    });
  }
  it("made one resource per sample row (28 + 1,791 + 1,791 + 470 + 883 + 10,040 + 8,099 + 1,649 + 1 + 3 + 28 + 67)", () => {
    expect(made.size).toBe(24850);
  });
  it("writes birthDate as precisely as year, month and day of birth allow when birth_datetime is absent", () => {
    const birth = (row: Record<string, unknown>) =>
      cm.mapper("person").map({ person_id: 1, gender_concept_id: 8507, ...row });
    expect(birth({ year_of_birth: 1998, month_of_birth: 4, day_of_birth: 9 })).toEqual({
      value: expect.objectContaining({ birthDate: "1998-04-09" }),
      issues: [],
    });
    expect(birth({ year_of_birth: "1998", month_of_birth: "4" }).value.birthDate).toBe("1998-04");
    expect(birth({ year_of_birth: 1998 }).value.birthDate).toBe("1998");
    const bad = birth({ year_of_birth: 2001, month_of_birth: 2, day_of_birth: 29 });
    expect([bad.value.birthDate, bad.issues.map((i) => i.message)]).toEqual([
      undefined,
      ["day 29 of 2001-02 is not a date"],
    ]);
  });
  it("still follows the spec example: id is the string person_id, gender from the value map, birthDate a date", () => {
    const { value } = cm
      .mapper("person")
      .map({ person_id: 12345, gender_concept_id: 8532, birth_datetime: "1990-05-15 08:30:00" });
    expect(value).toMatchObject({
      resourceType: "Patient",
      id: "12345",
      gender: "female",
      birthDate: "1990-05-15",
    });
  });
});
