// The built-in FHIR -> OMOP crossmap against the six Synthea sample Bundles: every row fits the CDM v5.4
// field list, primary keys are unique, and every person_id / visit_occurrence_id resolves to a row made
// from a Patient / Encounter of the same Bundle in the same run.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_DIR } from "../../src/crossmap/catalog.js";
import type { Crossmap } from "../../src/crossmap/crossmap.js";
import { loadCrossmapFile } from "../../src/crossmap/load.js";
import type { MappingIssue } from "../../src/crossmap/types.js";
import { sampleBundles } from "../support/fhir-samples.js";
import { mapAll } from "../support/map-all.js";
import { omopRowProblems } from "../support/omop-rows.js";

const PRIMARY_KEY: Record<string, string> = {
  person: "person_id",
  visit_occurrence: "visit_occurrence_id",
  condition_occurrence: "condition_occurrence_id",
  drug_exposure: "drug_exposure_id",
  measurement: "measurement_id",
  procedure_occurrence: "procedure_occurrence_id",
  observation: "observation_id",
  care_site: "care_site_id",
  provider: "provider_id",
  location: "location_id",
  cost: "cost_id",
  payer_plan_period: "payer_plan_period_id",
};

interface Row {
  table: string;
  row: Record<string, unknown>;
  from: string;
}

let cm: Crossmap;
const rows: Row[] = [];
const issues: MappingIssue[] = [];
const problems: string[] = [];

beforeAll(async () => {
  cm = await loadCrossmapFile(join(BUILTIN_DIR, "fhir_r4-to-omop_cdm_v5.4.yaml"));
  for (const bundle of sampleBundles()) {
    const made: Row[] = [];
    for (const r of bundle.resources) {
      if (!cm.hasEntity(r.resourceType)) continue;
      const from = `${bundle.file} ${r.resourceType}/${r.id}`;
      const { outputs, issues: found } = mapAll(cm.mapper(r.resourceType), r, from);
      issues.push(...found);
      for (const o of outputs) made.push({ table: o.entity, row: o.value, from });
    }
    // References resolve within the Bundle they came from.
    const persons = new Set(made.filter((m) => m.table === "person").map((m) => m.row.person_id));
    const visits = new Set(
      made.filter((m) => m.table === "visit_occurrence").map((m) => m.row.visit_occurrence_id),
    );
    for (const m of made) {
      if ("person_id" in m.row && !persons.has(m.row.person_id))
        problems.push(`${m.from}: person_id ${m.row.person_id} matches no Patient`);
      if (
        m.table !== "visit_occurrence" &&
        "visit_occurrence_id" in m.row &&
        !visits.has(m.row.visit_occurrence_id)
      )
        problems.push(`${m.from}: visit_occurrence_id ${m.row.visit_occurrence_id} matches no Encounter`);
    }
    rows.push(...made);
  }
});

describe("FHIR R4 -> OMOP CDM v5.4 on the Synthea sample Bundles", () => {
  it("maps every resource the crossmap covers into the tables the CDM's conventions name", () => {
    const byTable: Record<string, number> = {};
    for (const r of rows) byTable[r.table] = (byTable[r.table] ?? 0) + 1;
    // Without a vocabulary nothing routes by domain; Observations go by category: the 21 smoking-status surveys
    // to observation, the rest to measurement, where each of the 21 blood-pressure panels is its two components
    // (250 - 21 - 21 + 42 = 250 rows). Claims are costs (52), and so are EOB payments (43), each EOB with its
    // payer_plan_period; Organizations (9) and Patients (6) with an address give locations.
    expect(byTable).toEqual({
      person: 6,
      location: 15,
      visit_occurrence: 43,
      condition_occurrence: 24,
      drug_exposure: 46,
      measurement: 250,
      observation: 21,
      procedure_occurrence: 13,
      care_site: 9,
      provider: 9,
      cost: 95,
      payer_plan_period: 43,
    });
  });
  it("makes rows that fit the CDM v5.4 field list: known columns, required ones present, right types", () => {
    const bad = rows.flatMap((r) => omopRowProblems(r.table, r.row).map((p) => `${r.from}: ${p}`));
    expect(bad.slice(0, 10)).toEqual([]);
    expect(issues.slice(0, 10)).toEqual([]);
  });
  it("resolves every person_id and visit_occurrence_id to a row of the same run", () => {
    expect(problems.slice(0, 10)).toEqual([]);
    expect(
      rows.filter(
        (r) =>
          r.table !== "person" &&
          (typeof r.row.person_id === "number" || typeof r.row.person_id === "bigint"),
      ).length,
    ).toBe(440);
  });
  it("gives every row a unique primary key", () => {
    const seen = new Set<string>();
    for (const r of rows) {
      const key = `${r.table}:${r.row[PRIMARY_KEY[r.table] as string]}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
    }
  });
  it("maps a Synthea Patient to the person row a reader would expect", () => {
    const person = rows.find((r) => r.from.endsWith("Patient/4e8ed886-fd5f-40bb-8feb-f339b04d853a"));
    expect(person?.row).toEqual({
      person_id: 3198808480235023718n,
      person_source_value: "4e8ed886-fd5f-40bb-8feb-f339b04d853a",
      gender_concept_id: 8507,
      gender_source_value: "male",
      gender_source_concept_id: 0,
      location_id: 2458981708503375106n,
      year_of_birth: 1993,
      month_of_birth: 6,
      day_of_birth: 7,
      birth_datetime: "1993-06-07 00:00:00",
      // The race as US Core's text gives it (an "Other" race, which OMOP's OMB concepts lack: 0); no
      // ethnicity source value. The source concepts are left empty, not 0 (CDM convention for nullable
      // concept columns).
      race_concept_id: 0,
      race_source_value: "Other",
      ethnicity_concept_id: 38003564,
    });
  });

  it("maps a MedicationStatement and an AllergyIntolerance (absent from the samples) to valid rows", () => {
    const statement = cm.mapper("MedicationStatement").map({
      resourceType: "MedicationStatement",
      id: "ms-1",
      status: "active",
      medicationCodeableConcept: {
        coding: [{ system: "http://www.nlm.nih.gov/research/umls/rxnorm", code: "197361" }],
      },
      subject: { reference: "Patient/12" },
      effectivePeriod: { start: "2020-01-02T08:00:00+01:00" },
      dosage: [{ text: "1 tablet daily" }],
    });
    expect(statement).toEqual({
      value: {
        drug_type_concept_id: 32865,
        drug_concept_id: 0,
        drug_source_concept_id: 0,
        drug_exposure_id: statement.value.drug_exposure_id,
        person_id: 12,
        drug_exposure_start_date: "2020-01-02",
        drug_exposure_start_datetime: "2020-01-02 08:00:00",
        drug_exposure_end_date: "2020-01-02",
        drug_exposure_end_datetime: "2020-01-02 08:00:00",
        drug_source_value: "197361",
        sig: "1 tablet daily",
        // No route in the dosage: route_concept_id (nullable) stays empty rather than 0.
      },
      issues: [],
    });
    expect(omopRowProblems("drug_exposure", statement.value)).toEqual([]);
    const allergy = cm.mapper("AllergyIntolerance").map({
      resourceType: "AllergyIntolerance",
      id: "a-1",
      patient: { reference: "urn:uuid:4e8ed886-fd5f-40bb-8feb-f339b04d853a" },
      code: { coding: [{ system: "http://snomed.info/sct", code: "91935009" }] },
      recordedDate: "2019-03-01",
    });
    expect(allergy.issues).toEqual([]);
    expect(allergy.value.person_id).toBe(3198808480235023718n);
    expect(omopRowProblems("observation", allergy.value)).toEqual([]);
  });
});

describe("a condition's status (the IG's ConditionMap)", () => {
  const condition = (extra: Record<string, unknown>) =>
    mapAll(
      cm.mapper("Condition"),
      {
        resourceType: "Condition",
        id: "c1",
        subject: { reference: "Patient/p1" },
        code: { coding: [{ system: "http://snomed.info/sct", code: "44054006" }] },
        onsetDateTime: "2020-01-01",
        ...extra,
      },
      1,
    );
  const status = (code: string) => ({
    coding: [{ system: "http://terminology.hl7.org/CodeSystem/condition-clinical", code }],
  });
  const statusOf = (r: ReturnType<typeof condition>) => {
    const row = r.outputs.find((o) => o.entity === "condition_occurrence")?.value ?? {};
    return [row.condition_status_concept_id, row.condition_status_source_value];
  };
  const omopType = {
    url: "https://crossmap.dev/fhir/StructureDefinition/omop-type-concept",
    valueCoding: { system: "https://fhir-terminology.ohdsi.org", code: "32817" },
  };

  it("is clinicalStatus: resolved 32906, a status OMOP has no concept for 0 with its code, none empty", () => {
    expect(statusOf(condition({ clinicalStatus: status("resolved") }))).toEqual([32906, "resolved"]);
    expect(statusOf(condition({ clinicalStatus: status("active") }))).toEqual([0, "active"]);
    expect(statusOf(condition({ clinicalStatus: status("remission") }))).toEqual([0, "remission"]);
    expect(statusOf(condition({}))).toEqual([undefined, undefined]);
    expect(condition({ clinicalStatus: status("active") }).issues).toEqual([]);
  });
  it("of a Condition the OMOP -> FHIR crossmap wrote, is its extension's, not the resolved its end date gave", () => {
    const ext = {
      url: "https://crossmap.dev/fhir/StructureDefinition/omop-condition-status",
      valueCodeableConcept: {
        coding: [
          { system: "https://fhir-terminology.ohdsi.org", code: "32902" },
          { code: "primary", userSelected: true },
        ],
      },
    };
    const resolved = { clinicalStatus: status("resolved"), abatementDateTime: "2020-02-01" };
    expect(statusOf(condition({ extension: [omopType], ...resolved }))).toEqual([0, undefined]);
    expect(statusOf(condition({ extension: [omopType, ext], ...resolved }))).toEqual([32902, "primary"]);
  });
});

describe("race (CDM: mixed races are not supported)", () => {
  const race = (codes: string[], text: string) => ({
    url: "http://hl7.org/fhir/us/core/StructureDefinition/us-core-race",
    extension: [
      ...codes.map((code) => ({
        url: "ombCategory",
        valueCoding: { system: "urn:oid:2.16.840.1.113883.6.238", code },
      })),
      { url: "text", valueString: text },
    ],
  });
  const person = (extension: unknown[]) => {
    const r = mapAll(
      cm.mapper("Patient"),
      { resourceType: "Patient", id: "p1", gender: "male", birthDate: "1950-01-01", extension },
      1,
    );
    const row = r.outputs.find((o) => o.entity === "person")?.value ?? {};
    return [row.race_concept_id, row.race_source_value, r.issues.length];
  };
  it("is the OMB category of one race, and 0 for several, the race text kept as the source value", () => {
    expect(person([race(["2106-3"], "White")])).toEqual([8527, "White", 0]);
    expect(person([race(["2106-3", "2054-5"], "White and Black")])).toEqual([0, "White and Black", 0]);
    expect(person([])).toEqual([0, undefined, 0]);
  });
});

describe("a partial date of death (CDM convention for death_date)", () => {
  const death = (deceasedDateTime: string) => {
    const r = mapAll(
      cm.mapper("Patient"),
      { resourceType: "Patient", id: "p1", gender: "male", birthDate: "1950-01-01", deceasedDateTime },
      1,
    );
    const row = r.outputs.find((o) => o.entity === "death")?.value ?? {};
    return [row.death_date, row.death_datetime, r.issues.map((i) => [i.code, i.severity])];
  };
  it("is completed to its last day (December, the month's last), with a warning; no datetime without a time", () => {
    expect(death("2019")).toEqual(["2019-12-31", undefined, [["date_completed", "warning"]]]);
    expect(death("2019-02")).toEqual(["2019-02-28", undefined, [["date_completed", "warning"]]]);
    expect(death("2019-05-03")).toEqual(["2019-05-03", undefined, []]);
    expect(death("2019-05-03T10:11:12+02:00")).toEqual(["2019-05-03", "2019-05-03 10:11:12", []]);
  });
});

describe("an inpatient stay still going on (CDM convention for visit_end_date)", () => {
  const encounter = (c: Crossmap, extra: Record<string, unknown>) => {
    const r = mapAll(
      c.mapper("Encounter"),
      {
        resourceType: "Encounter",
        id: "e1",
        subject: { reference: "Patient/p1" },
        status: "in-progress",
        class: { code: "IMP" },
        period: { start: "2026-11-20T10:00:00Z" },
        ...extra,
      },
      1,
    );
    const row = r.outputs[0]?.value ?? {};
    return {
      row: [row.visit_type_concept_id, row.visit_end_date, row.visit_end_datetime],
      issues: r.issues.map((i) => [i.code, i.severity]),
    };
  };
  it("ends on the date of the data pull (--param extract_date), as type 32220 Still patient", async () => {
    const pulled = await loadCrossmapFile(join(BUILTIN_DIR, "fhir_r4-to-omop_cdm_v5.4.yaml"), {
      parameters: { extract_date: "2026-12-01" },
    });
    expect(encounter(pulled, {})).toEqual({
      row: [32220, "2026-12-01", "2026-12-01 00:00:00"],
      issues: [],
    });
    expect(encounter(pulled, { class: { code: "ACUTE" }, status: "onleave" }).row[1]).toBe("2026-12-01");
  });
  it("with an extract date that is no date ends on its start, and the record is told so", async () => {
    const typo = await loadCrossmapFile(join(BUILTIN_DIR, "fhir_r4-to-omop_cdm_v5.4.yaml"), {
      parameters: { extract_date: "2026-13-01" },
    });
    expect(encounter(typo, {})).toEqual({
      row: [32220, "2026-11-20", "2026-11-20 10:00:00"],
      issues: [["invalid_value", "warning"]],
    });
    expect(encounter(typo, { status: "finished" }).issues).toEqual([]);
  });
  it("without an extract date ends on its start, and the record is told so", () => {
    expect(encounter(cm, {})).toEqual({
      row: [32220, "2026-11-20", "2026-11-20 10:00:00"],
      issues: [["missing_value", "warning"]],
    });
  });
  it("leaves every other visit without an end ending on its start, as before", () => {
    const ended = { period: { start: "2026-11-20T10:00:00Z", end: "2026-11-22T09:00:00Z" } };
    for (const extra of [
      { status: "finished" },
      { class: { code: "AMB" } },
      { class: { code: "EMER" } },
      ended,
    ]) {
      const { row, issues } = encounter(cm, extra);
      expect(row[0], JSON.stringify(extra)).toBe(32817);
      expect(row[1]).toBe(extra === ended ? "2026-11-22" : "2026-11-20");
      expect(issues).toEqual([]);
    }
  });
});

describe("resources that record a mistake or something that did not happen", () => {
  const subject = { reference: "Patient/p1" };
  const code = { coding: [{ system: "http://snomed.info/sct", code: "44054006" }] };
  const verification = (c: string) => ({
    coding: [{ system: "http://terminology.hl7.org/CodeSystem/condition-ver-status", code: c }],
  });
  const base: Record<string, Record<string, unknown>> = {
    Encounter: { subject, class: { code: "AMB" }, period: { start: "2020-01-01" } },
    Condition: { subject, code, onsetDateTime: "2020-01-01" },
    Procedure: { subject, code, performedDateTime: "2020-01-01" },
    Observation: { subject, code, effectiveDateTime: "2020-01-01", valueString: "x" },
    MedicationStatement: { subject, medicationCodeableConcept: code, effectiveDateTime: "2020-01-01" },
    MedicationRequest: { subject, medicationCodeableConcept: code, authoredOn: "2020-01-01" },
    Immunization: { patient: subject, vaccineCode: code, occurrenceDateTime: "2020-01-01" },
    AllergyIntolerance: { patient: subject, code, recordedDate: "2020-01-01" },
  };
  const run = (type: string, extra: Record<string, unknown>) =>
    mapAll(cm.mapper(type), { resourceType: type, id: "x1", ...base[type], ...extra }, 1);

  it("leaves each out with one excluded warning, and keeps the statuses of what did happen", () => {
    const left: [string, Record<string, unknown>][] = [
      ["Encounter", { status: "entered-in-error" }],
      ["Condition", { verificationStatus: verification("entered-in-error") }],
      ["Condition", { verificationStatus: verification("refuted") }],
      ["Procedure", { status: "not-done" }],
      ["Procedure", { status: "entered-in-error" }],
      ["Observation", { status: "cancelled" }],
      ["Observation", { status: "entered-in-error" }],
      ["MedicationStatement", { status: "not-taken" }],
      ["MedicationRequest", { status: "entered-in-error" }],
      ["Immunization", { status: "not-done" }],
      ["AllergyIntolerance", { verificationStatus: verification("refuted") }],
    ];
    for (const [type, extra] of left) {
      const r = run(type, extra);
      expect(r.outputs, `${type} ${JSON.stringify(extra)}`).toEqual([]);
      expect(r.issues.map((i) => [i.code, i.severity, i.field])).toEqual([["excluded", "warning", type]]);
      expect(r.issues[0]?.message).toMatch(/^left out: (status|verificationStatus) /);
    }
    const kept: [string, Record<string, unknown>][] = [
      ["Encounter", { status: "finished" }],
      ["Encounter", { status: "cancelled" }],
      ["Condition", { verificationStatus: verification("provisional") }],
      ["Condition", {}],
      ["Procedure", { status: "completed" }],
      ["Observation", { status: "final" }],
      ["MedicationStatement", { status: "completed" }],
      ["MedicationRequest", { status: "cancelled" }],
      ["Immunization", { status: "completed" }],
      ["AllergyIntolerance", { verificationStatus: verification("unconfirmed") }],
    ];
    for (const [type, extra] of kept) {
      const r = run(type, extra);
      expect(r.outputs.length, `${type} ${JSON.stringify(extra)}`).toBe(1);
      expect(r.issues.filter((i) => i.code === "excluded")).toEqual([]);
    }
  });
});
