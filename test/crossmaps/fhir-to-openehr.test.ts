// The built-in FHIR -> openEHR crossmap against every mapped resource of the six Synthea sample Bundles.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_DIR } from "../../src/crossmap/catalog.js";
import type { Crossmap } from "../../src/crossmap/crossmap.js";
import { loadCrossmapFile } from "../../src/crossmap/load.js";
import type { MappingIssue } from "../../src/crossmap/types.js";
import { sampleResources } from "../support/fhir-samples.js";
import { openehrProblems } from "../support/openehr.js";

const TYPES: Record<string, string> = {
  Patient: "PERSON",
  Encounter: "COMPOSITION",
  Condition: "EVALUATION",
  Observation: "OBSERVATION",
  MedicationRequest: "INSTRUCTION",
  Procedure: "ACTION",
};

let cm: Crossmap;
beforeAll(async () => {
  cm = await loadCrossmapFile(join(BUILTIN_DIR, "fhir_r4-to-openehr_1.0.4.yaml"));
});

describe("FHIR R4 -> openEHR 1.0.4 on the Synthea sample Bundles", () => {
  for (const [type, rmType] of Object.entries(TYPES)) {
    it(`maps every ${type} to an RM-valid ${rmType}`, () => {
      const resources = sampleResources(type);
      expect(resources.length).toBeGreaterThan(0);
      const invalid: string[] = [];
      const issues: MappingIssue[] = [];
      for (const r of resources) {
        const { value, issues: found } = cm.mapper(type).map(r, `${type}/${r.id}`);
        issues.push(...found);
        const problems = openehrProblems(value, rmType);
        if (problems.length > 0) invalid.push(`${type}/${r.id}: ${problems.join("; ")}`);
      }
      expect(invalid.slice(0, 5)).toEqual([]);
      expect(issues.slice(0, 5)).toEqual([]);
    });
  }

  it("keeps the SNOMED CT code, the onset and the urn:uuid subject of a Condition", () => {
    const condition = sampleResources("Condition").find(
      (c) => c.id === "0c230c71-0f5b-4bf5-b739-35706b2ca7b3",
    );
    const { value } = cm.mapper("Condition").map(condition as Record<string, unknown>);
    expect((value.subject as { external_ref: { id: unknown } }).external_ref.id).toEqual({
      _type: "GENERIC_ID",
      scheme: "fhir_reference",
      value: "urn:uuid:4e8ed886-fd5f-40bb-8feb-f339b04d853a",
    });
    expect((value.data as { items: unknown[] }).items).toEqual([
      {
        _type: "ELEMENT",
        archetype_node_id: "at0002",
        name: { _type: "DV_TEXT", value: "Problem/Diagnosis name" },
        value: {
          _type: "DV_CODED_TEXT",
          value: "Seizure disorder",
          defining_code: {
            _type: "CODE_PHRASE",
            terminology_id: { _type: "TERMINOLOGY_ID", value: "SNOMED-CT" },
            code_string: "128613002",
          },
        },
      },
      {
        _type: "ELEMENT",
        archetype_node_id: "at0077",
        name: { _type: "DV_TEXT", value: "Date/time of onset" },
        value: { _type: "DV_DATE_TIME", value: "2007-06-04T05:28:45+00:00" },
      },
    ]);
  });
});
