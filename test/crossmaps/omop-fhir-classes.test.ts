// Two things the issue found lost on the way OMOP -> FHIR and asks to keep: visit concepts beyond
// inpatient/outpatient/ER get their v3 ActCode class (and keep the concept in Encounter.type), and identifiers
// say which OMOP column they are (person_id and person_source_value could not be told apart).
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_DIR } from "../../src/crossmap/catalog.js";
import type { Crossmap } from "../../src/crossmap/crossmap.js";
import { loadCrossmapFile } from "../../src/crossmap/load.js";

const ACT = "http://terminology.hl7.org/CodeSystem/v3-ActCode";
const OHDSI = "https://fhir-terminology.ohdsi.org";

let cm: Crossmap;
beforeAll(async () => {
  cm = await loadCrossmapFile(join(BUILTIN_DIR, "omop_cdm_v5.4-to-fhir_r4.yaml"));
});

const visit = (concept: number) =>
  cm.mapper("visit_occurrence").map({
    visit_occurrence_id: 7,
    person_id: 1,
    visit_concept_id: concept,
    visit_start_date: "2020-01-02",
    visit_end_date: "2020-01-02",
    visit_type_concept_id: 32817,
  });

describe("OMOP visit concepts -> Encounter.class", () => {
  it.each([
    [9201, "IMP"],
    [9202, "AMB"],
    [9203, "EMER"],
    [8870, "EMER"], // Emergency Room - Hospital (CMS place of service)
    [38004207, "AMB"], // Ambulatory Clinic / Center
    [581385, "OBSENC"], // Observation Room
    [8883, "AMB"], // Ambulatory Surgical Center
    [262, "IMP"], // Emergency Room and Inpatient Visit
    [581476, "HH"], // Home Visit
    [722455, "VR"], // Telehealth
  ])("visit concept %i is class %s, and the concept stays in Encounter.type", (concept, code) => {
    const { value, issues } = visit(concept);
    expect(issues).toEqual([]);
    expect((value.class as { system: string; code: string }).system).toBe(ACT);
    expect((value.class as { code: string }).code).toBe(code);
    expect(value.type).toEqual([{ coding: [{ system: OHDSI, code: String(concept) }] }]);
  });

  it("gives a visit concept with no ActCode counterpart the class UNK, keeping the concept in type", () => {
    const { value } = visit(2000000123);
    expect(value.class).toEqual({
      system: "http://terminology.hl7.org/CodeSystem/v3-NullFlavor",
      code: "UNK",
      display: "unknown",
    });
    expect(value.type).toEqual([{ coding: [{ system: OHDSI, code: "2000000123" }] }]);
  });
});

describe("identifiers name the OMOP column they carry", () => {
  it("person_id and person_source_value are two identifiers with their own systems", () => {
    const { value } = cm.mapper("person").map({
      person_id: -9223372036854775807n,
      gender_concept_id: 8532,
      year_of_birth: 1961,
      person_source_value: "P-1",
    });
    expect(value.identifier).toEqual([
      { value: "-9223372036854775807", system: "https://crossmap.dev/fhir/NamingSystem/omop-person-id" },
      { value: "P-1", system: "https://crossmap.dev/fhir/NamingSystem/omop-person-source-value" },
    ]);
  });

  it("a provider's NPI, DEA number and source value each carry their system", () => {
    const { value } = cm.mapper("provider").map({
      provider_id: 5,
      npi: "1234567893",
      dea: "AB1234563",
      provider_source_value: "prov-5",
    });
    expect(value.identifier).toEqual([
      { value: "1234567893", system: "http://hl7.org/fhir/sid/us-npi" },
      { value: "AB1234563", system: "urn:oid:2.16.840.1.113883.4.814" },
      { value: "prov-5", system: "https://crossmap.dev/fhir/NamingSystem/omop-provider-source-value" },
    ]);
  });
});
