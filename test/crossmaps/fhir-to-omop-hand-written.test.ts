// The built-in FHIR -> OMOP crossmap on resources written by hand the way a hospital's FHIR server writes
// them (not Synthea's, not the OMOP -> FHIR crossmap's): each case is a shape the samples lack.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_DIR } from "../../src/crossmap/catalog.js";
import type { Crossmap } from "../../src/crossmap/crossmap.js";
import { loadCrossmapFile } from "../../src/crossmap/load.js";
import { mapAll } from "../support/map-all.js";

let cm: Crossmap;
beforeAll(async () => {
  cm = await loadCrossmapFile(join(BUILTIN_DIR, "fhir_r4-to-omop_cdm_v5.4.yaml"));
});

const map = (r: Record<string, unknown>) => mapAll(cm.mapper(r.resourceType as string), r);
const rowOf = (r: Record<string, unknown>, table: string) =>
  map(r).outputs.find((o) => o.entity === table)?.value;

const US_CORE = "http://hl7.org/fhir/us/core/StructureDefinition";
const OMB = "urn:oid:2.16.840.1.113883.6.238";

describe("Patient: US Core race and ethnicity", () => {
  it("reads the ombCategory sub-extension wherever it stands (US Core does not order them)", () => {
    const person = rowOf(
      {
        resourceType: "Patient",
        id: "p3",
        birthDate: "1980-07-15",
        extension: [
          {
            url: `${US_CORE}/us-core-race`,
            extension: [
              { url: "text", valueString: "Asian" },
              { url: "ombCategory", valueCoding: { system: OMB, code: "2028-9" } },
            ],
          },
          {
            url: `${US_CORE}/us-core-ethnicity`,
            extension: [
              { url: "detailed", valueCoding: { system: OMB, code: "2184-0" } },
              { url: "ombCategory", valueCoding: { system: OMB, code: "2135-2" } },
            ],
          },
        ],
      },
      "person",
    );
    expect(person?.race_concept_id).toBe(8515);
    expect(person?.ethnicity_concept_id).toBe(38003563);
  });
});

describe("Encounter: class", () => {
  const encounter = (code: string) => ({
    resourceType: "Encounter",
    id: "e1",
    status: "finished",
    class: { system: "http://terminology.hl7.org/CodeSystem/v3-ActCode", code },
    subject: { reference: "Patient/p1" },
    period: { start: "2024-06-01", end: "2024-06-02" },
  });

  it("maps the classes of the IG's EncounterClass ConceptMap without a word", () => {
    const made = map(encounter("EMER"));
    expect(made.outputs[0]?.value.visit_concept_id).toBe(9203);
    expect(made.issues).toEqual([]);
  });

  it("gives 0 to a class outside it (PRENC), and says so", () => {
    const made = map(encounter("PRENC"));
    expect(made.outputs[0]?.value.visit_concept_id).toBe(0);
    expect(made.issues.map((i) => [i.code, i.severity])).toEqual([["unmapped_value", "warning"]]);
    expect(made.issues[0]?.message).toContain('"PRENC"');
  });
});

describe("Observation: valueInteger", () => {
  const observation = (extra: Record<string, unknown>) => ({
    resourceType: "Observation",
    id: "o-int",
    status: "final",
    code: { coding: [{ system: "http://loinc.org", code: "2339-0" }] },
    subject: { reference: "Patient/p1" },
    effectiveDateTime: "2024-01-02",
    ...extra,
  });

  it("is the row's value_as_number, as a Quantity's value is (a zero too)", () => {
    const made = map(observation({ valueInteger: 0 }));
    expect(made.outputs[0]?.value).toMatchObject({ value_as_number: 0, value_source_value: "0" });
    expect(made.issues).toEqual([]);
  });

  it("is a component's value_as_number, and a panel of integers is its components' rows", () => {
    const made = map(
      observation({
        code: { coding: [{ system: "http://loinc.org", code: "85354-9" }] },
        component: [
          { code: { coding: [{ system: "http://loinc.org", code: "8480-6" }] }, valueInteger: 120 },
          { code: { coding: [{ system: "http://loinc.org", code: "8462-4" }] }, valueInteger: 80 },
        ],
      }),
    );
    expect(made.outputs.map((o) => [o.value.measurement_source_value, o.value.value_as_number])).toEqual([
      ["8480-6", 120],
      ["8462-4", 80],
    ]);
  });

  it("keeps an Observation with a value of its own beside its components", () => {
    const made = map(
      observation({
        valueInteger: 7,
        component: [
          { code: { coding: [{ system: "http://loinc.org", code: "8480-6" }] }, valueInteger: 120 },
        ],
      }),
    );
    expect(made.outputs.map((o) => o.value.value_as_number)).toEqual([7, 120]);
  });
});

describe("Observation: a component's value of a type OMOP has no column for", () => {
  it("writes the component's row without a value and says so in a warning, with the value", () => {
    const made = map({
      resourceType: "Observation",
      id: "o-bp",
      status: "final",
      code: { coding: [{ system: "http://loinc.org", code: "85354-9" }] },
      subject: { reference: "Patient/p1" },
      effectiveDateTime: "2024-01-02",
      component: [
        { code: { coding: [{ system: "http://loinc.org", code: "8480-6" }] }, valueQuantity: { value: 120 } },
        {
          code: { coding: [{ system: "http://loinc.org", code: "8462-4" }] },
          valueRange: { low: { value: 70 } },
        },
      ],
    });
    expect(made.outputs).toHaveLength(2);
    expect(made.outputs[1]?.value).not.toHaveProperty("value_as_number");
    expect(made.issues.map((i) => [i.code, i.severity, i.value])).toEqual([
      ["unmapped_value", "warning", { low: { value: 70 } }],
    ]);
  });
});

describe("Observation: a Quantity without a unit", () => {
  const observation = (extra: Record<string, unknown>) => ({
    resourceType: "Observation",
    id: "o-qty",
    status: "final",
    code: { coding: [{ system: "http://loinc.org", code: "29463-7" }] },
    subject: { reference: "Patient/p1" },
    effectiveDateTime: "2024-01-02",
    ...extra,
  });

  it("leaves unit_concept_id empty (nothing to map), as it does with no value at all", () => {
    const row = map(observation({ valueQuantity: { value: 72.5 } })).outputs[0]?.value;
    expect(row?.value_as_number).toBe(72.5);
    expect(row).not.toHaveProperty("unit_concept_id");
  });

  it("leaves a component's unit_concept_id empty too", () => {
    const made = map(
      observation({
        code: { coding: [{ system: "http://loinc.org", code: "85354-9" }] },
        component: [
          {
            code: { coding: [{ system: "http://loinc.org", code: "8480-6" }] },
            valueQuantity: { value: 120 },
          },
        ],
      }),
    );
    expect(made.outputs[0]?.value.value_as_number).toBe(120);
    expect(made.outputs[0]?.value).not.toHaveProperty("unit_concept_id");
  });

  it("still gives 0 to a unit it cannot map (no vocabulary here), with the unit as source value", () => {
    const row = map(
      observation({
        valueQuantity: { value: 72.5, unit: "kg", system: "http://unitsofmeasure.org", code: "kg" },
      }),
    ).outputs[0]?.value;
    expect(row).toMatchObject({ unit_concept_id: 0, unit_source_value: "kg" });
  });
});

describe("MedicationRequest / MedicationStatement: medicationReference", () => {
  const RXNORM = "http://www.nlm.nih.gov/research/umls/rxnorm";
  const request = (extra: Record<string, unknown>) => ({
    resourceType: "MedicationRequest",
    id: "mr-1",
    status: "active",
    intent: "order",
    subject: { reference: "Patient/p1" },
    authoredOn: "2024-04-01",
    ...extra,
  });

  it("reads the code of the contained Medication it names", () => {
    for (const resourceType of ["MedicationRequest", "MedicationStatement"]) {
      const made = map({
        ...request({
          contained: [
            {
              resourceType: "Medication",
              id: "med1",
              code: { coding: [{ system: RXNORM, code: "313988" }] },
            },
          ],
          medicationReference: { reference: "#med1" },
          effectiveDateTime: "2024-04-01",
        }),
        resourceType,
      });
      expect(made.outputs[0]?.value, resourceType).toMatchObject({
        drug_concept_id: 0, // no vocabulary in this test: the source value is what tells
        drug_source_value: "313988",
      });
      expect(made.issues.filter((i) => i.severity === "error")).toEqual([]);
    }
  });

  it("says so when the Medication it names is elsewhere (another Bundle entry): drug_concept_id 0", () => {
    const made = map(request({ medicationReference: { reference: "Medication/med2" } }));
    expect(made.outputs[0]?.value.drug_concept_id).toBe(0);
    expect(made.issues.map((i) => [i.code, i.severity])).toEqual([["unresolved_reference", "warning"]]);
  });
});
