import { describe, expect, it } from "vitest";
import { composePlan } from "../../src/pipeline/plan.js";
import { crossmapOf, patientToParty, personToPatient } from "./fake-crossmap.js";

const omopToFhir = crossmapOf("omop_cdm_v5.4", "fhir_r4", [personToPatient()]);
const fhirToOpenehr = crossmapOf("fhir_r4", "openehr_1.0.4", [patientToParty()]);

describe("composePlan", () => {
  it("finds the entity a file name stands for, ignoring case and extensions", () => {
    const plan = composePlan([omopToFhir]);
    expect(plan.entityForFileName("/data/PERSON.csv")).toBe("person");
    expect(plan.entityForFileName("person.ndjson.gz")).toBe("person");
    expect(plan.entityForFileName("persons.csv")).toBeUndefined();
  });

  it("finds the entity of a schema-qualified or sharded export's file name", () => {
    const plan = composePlan([omopToFhir]);
    expect(plan.entityForFileName("cdm.PERSON.csv")).toBe("person");
    expect(plan.entityForFileName("/x/person-000000000001.csv.gz")).toBe("person");
    expect(plan.entityForFileName("person_02.csv")).toBe("person");
    expect(plan.entityForFileName("person_v2.csv")).toBeUndefined();
    expect(plan.entityForFileName("cdm.persons.csv")).toBeUndefined();
  });

  it("chains two crossmaps for --via, passing issues and the record position along", () => {
    const plan = composePlan([omopToFhir, fhirToOpenehr]);
    expect([plan.source, plan.target]).toEqual(["omop_cdm_v5.4", "openehr_1.0.4"]);
    const mapper = plan.mapperFor("person")!;
    expect(mapper.targetEntity).toBe("PERSON");
    const result = mapper.map({ person_id: 7, gender_concept_id: "abc" }, 12);
    expect(result.value).toEqual({ _type: "PERSON", uid: "7" });
    expect(result.issues.map((i) => [i.record, i.code])).toEqual([[12, "unmapped_value"]]);
  });

  it("refuses legs that do not meet", () => {
    expect(() => composePlan([omopToFhir, omopToFhir])).toThrow(
      "cannot chain crossmaps: crossmap omop_cdm_v5.4 -> fhir_r4 ends in fhir_r4 but crossmap omop_cdm_v5.4 -> fhir_r4 starts from omop_cdm_v5.4",
    );
  });

  it("has no mapper for an entity it does not know", () => {
    expect(composePlan([omopToFhir]).mapperFor("visit_occurrence")).toBeUndefined();
  });

  it("knows which source entities a --via chain cannot take through, and maps the others", () => {
    const conditions = crossmapOf("omop_cdm_v5.4", "fhir_r4", [
      personToPatient(),
      { ...personToPatient(), sourceEntity: "condition_occurrence", targetEntity: "Condition" },
    ]);
    const plan = composePlan([conditions, fhirToOpenehr]);
    expect([...plan.gaps]).toEqual([
      [
        "condition_occurrence",
        'crossmap fhir_r4 -> openehr_1.0.4 has no mapping for fhir_r4 entity "Condition", which crossmap omop_cdm_v5.4 -> fhir_r4 makes of omop_cdm_v5.4 entity "condition_occurrence"',
      ],
    ]);
    expect(plan.mapperFor("condition_occurrence")).toBeUndefined();
    expect(plan.mapperFor("person")?.targetEntity).toBe("PERSON");
  });
});

describe("composePlan with a gathering leg before the last", () => {
  // A first leg that gathers (text lines into their document): its parents are complete only at the end
  // of a unit, so the plan is cut into stages there, or refused when the input has no units.
  const gathering = {
    ...crossmapOf("omop_cdm_v5.4", "fhir_r4", [personToPatient()]),
    gatherPlan: {
      rules: new Map([["line.DocumentReference", []]]),
      parents: new Set(["doc.DocumentReference"]),
    },
  };

  it("refuses it where no unit boundary exists", () => {
    expect(() => composePlan([gathering, fhirToOpenehr])).toThrow(
      "crossmap omop_cdm_v5.4 -> fhir_r4 gathers records into others; only the last crossmap of a --via chain may gather",
    );
  });

  it("with units, cuts the chain after the gathering leg: the first stage maps, the next maps its records", () => {
    const plan = composePlan([gathering, fhirToOpenehr], { units: true });
    expect(plan.stages).toHaveLength(2);
    const [first, second] = plan.stages ?? [];
    expect(first?.gather).toBe(gathering.gatherPlan);
    expect(plan.mapperFor("person")?.targetEntity).toBe("Patient");
    expect(first?.mapperFor("person")?.targetEntity).toBe("Patient");
    expect(second?.mapperFor("Patient")?.map({ id: "7", gender: "female" }).value).toEqual({
      _type: "PERSON",
      uid: "7",
      sex: "female",
    });
    expect(second?.mapperFor("person")).toBeUndefined();
  });

  it("needs no stages when only the last leg gathers", () => {
    const last = { ...fhirToOpenehr, gatherPlan: gathering.gatherPlan };
    expect(composePlan([omopToFhir, last]).stages).toBeUndefined();
    expect(composePlan([omopToFhir, last], { units: true }).stages).toBeUndefined();
  });
});
