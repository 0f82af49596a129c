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
