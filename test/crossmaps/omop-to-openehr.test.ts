// The built-in OMOP -> openEHR crossmap against every row of the six mapped Synthea27Nj tables: each result
// must be RM-valid canonical JSON of the expected type, with no mapping issue.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_DIR } from "../../src/crossmap/catalog.js";
import type { Crossmap } from "../../src/crossmap/crossmap.js";
import { loadCrossmapFile } from "../../src/crossmap/load.js";
import type { MappingIssue } from "../../src/crossmap/types.js";
import { omopRows } from "../support/omop.js";
import { openehrProblems } from "../support/openehr.js";

const TABLES: Record<string, string> = {
  person: "PERSON",
  visit_occurrence: "COMPOSITION",
  condition_occurrence: "EVALUATION",
  drug_exposure: "INSTRUCTION",
  measurement: "OBSERVATION",
  procedure_occurrence: "ACTION",
};

let cm: Crossmap;
beforeAll(async () => {
  cm = await loadCrossmapFile(join(BUILTIN_DIR, "omop_cdm_v5.4-to-openehr_1.0.4.yaml"));
});

describe("OMOP CDM v5.4 -> openEHR 1.0.4 on the Synthea27Nj sample", () => {
  for (const [table, rmType] of Object.entries(TABLES)) {
    it(`maps every ${table} row to an RM-valid ${rmType}`, () => {
      const mapper = cm.mapper(table);
      const invalid: string[] = [];
      const issues: MappingIssue[] = [];
      omopRows(table).forEach((row, i) => {
        const { value, issues: found } = mapper.map(row, i + 2);
        issues.push(...found);
        const problems = openehrProblems(value, rmType);
        if (problems.length > 0) invalid.push(`row ${i + 2}: ${problems.join("; ")}`);
      });
      expect(invalid.slice(0, 5)).toEqual([]);
      expect(issues.slice(0, 5)).toEqual([]);
    });
  }

  it("writes a condition as a problem/diagnosis with its OMOP concept, onset, resolution and row id", () => {
    const row = omopRows("condition_occurrence")[0] as Record<string, string>;
    const { value } = cm.mapper("condition_occurrence").map(row);
    expect(value.archetype_node_id).toBe("openEHR-EHR-EVALUATION.problem_diagnosis.v1");
    expect(value.subject).toEqual({
      _type: "PARTY_SELF",
      external_ref: {
        _type: "PARTY_REF",
        namespace: "omop_cdm_v5.4",
        type: "PERSON",
        id: { _type: "GENERIC_ID", scheme: "person_id", value: "1" },
      },
    });
    expect((value.data as { items: unknown[] }).items).toEqual([
      {
        _type: "ELEMENT",
        archetype_node_id: "at0002",
        name: { _type: "DV_TEXT", value: "Problem/Diagnosis name" },
        value: {
          _type: "DV_CODED_TEXT",
          value: "65363002",
          defining_code: {
            _type: "CODE_PHRASE",
            terminology_id: { _type: "TERMINOLOGY_ID", value: "OHDSI" },
            code_string: "372328",
          },
        },
      },
      {
        _type: "ELEMENT",
        archetype_node_id: "at0077",
        name: { _type: "DV_TEXT", value: "Date/time of onset" },
        value: { _type: "DV_DATE_TIME", value: "2002-10-15T00:00:00Z" },
      },
      {
        _type: "ELEMENT",
        archetype_node_id: "at0030",
        name: { _type: "DV_TEXT", value: "Date/time of resolution" },
        value: { _type: "DV_DATE_TIME", value: "2003-03-20T00:00:00Z" },
      },
    ]);
    expect(value.feeder_audit).toEqual({
      _type: "FEEDER_AUDIT",
      originating_system_audit: { _type: "FEEDER_AUDIT_DETAILS", system_id: "omop_cdm_v5.4" },
      originating_system_item_ids: [
        {
          _type: "DV_IDENTIFIER",
          issuer: "omop_cdm_v5.4",
          assigner: "omop_cdm_v5.4",
          type: "condition_occurrence_id",
          id: "1",
        },
      ],
    });
  });
});
