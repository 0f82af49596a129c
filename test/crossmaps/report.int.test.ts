// `crossmap report --from omop_cdm_v5.4 --to fhir_r4` through the real CLI: entity mappings, the field
// mapping count, and unmapped fields judged against the shipped standard definitions.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const bin = new URL("../../bin/crossmap.js", import.meta.url).pathname;
const run = (...args: string[]) => JSON.parse(execFileSync("node", [bin, ...args], { encoding: "utf8" }));

describe("crossmap report for the built-in OMOP -> FHIR crossmap", () => {
  const report = run("report", "--from", "omop_cdm_v5.4", "--to", "fhir_r4");
  it("lists the sixteen entity mappings and counts every field mapping", () => {
    expect(report.entity_mappings).toEqual([
      { source_entity: "person", target_entity: "Patient" },
      { source_entity: "death", target_entity: "Observation" },
      { source_entity: "visit_occurrence", target_entity: "Encounter" },
      { source_entity: "visit_detail", target_entity: "Encounter" },
      { source_entity: "condition_occurrence", target_entity: "Condition" },
      { source_entity: "drug_exposure", target_entity: "MedicationStatement" },
      { source_entity: "procedure_occurrence", target_entity: "Procedure" },
      { source_entity: "device_exposure", target_entity: "DeviceUseStatement" },
      { source_entity: "measurement", target_entity: "Observation" },
      { source_entity: "observation", target_entity: "Observation" },
      { source_entity: "specimen", target_entity: "Specimen" },
      { source_entity: "note", target_entity: "DocumentReference" },
      { source_entity: "observation_period", target_entity: "EpisodeOfCare" },
      { source_entity: "care_site", target_entity: "Organization" },
      { source_entity: "provider", target_entity: "Practitioner" },
      { source_entity: "location", target_entity: "Location" },
    ]);
    expect(report.field_mappings.count).toBe(report.field_mappings.items.length);
    expect(report.field_mappings.items).toContainEqual({
      source: "person.gender_concept_id",
      target: "Patient.gender",
      transform: "gender_map",
    });
    expect(report.definitions).toEqual({ source: true, target: true });
  });
  it("carries every CDM v5.4 column of the mapped tables, and names what FHIR has left over", () => {
    expect(report.unmapped_source_fields).toEqual([]);
    expect(report.unmapped_target_fields).toContain("Patient.name");
    expect(report.unmapped_target_fields).not.toContain("Patient.gender");
    expect(report.unmapped_target_fields).not.toContain("Observation.status");
  });
  it("lists the built-in crossmaps with their entities", () => {
    const list = run("list");
    const pairs = list.crossmaps.map((c: { source: string; target: string }) => `${c.source} -> ${c.target}`);
    for (const p of [
      "omop_cdm_v5.4 -> fhir_r4",
      "omop_cdm_v5.4 -> openehr_1.0.4",
      "fhir_r4 -> openehr_1.0.4",
    ])
      expect(pairs).toContain(p);
  });
});
