import { describe, expect, it } from "vitest";
import { listChecks } from "../../src/dq/checks.js";
import { loadDefinitions } from "../../src/dq/definitions.js";

const defs = loadDefinitions();
const schemas = { cdm: "cdm", vocab: "vocab" };

describe("listChecks: the checks DQD 2.8.4 runs on CDM v5.4 with its defaults", () => {
  it("enumerates every check of every level, vocabulary tables excluded, as DQD does", () => {
    const checks = listChecks(defs, schemas);
    const counts: Record<string, number> = {};
    for (const c of checks) counts[c.description.checkName] = (counts[c.description.checkName] ?? 0) + 1;
    expect(checks.length).toBe(2374);
    expect(counts).toEqual({
      cdmTable: 31,
      measurePersonCompleteness: 16,
      measureConditionEraCompleteness: 1,
      measureObservationPeriodOverlap: 1,
      cdmField: 391,
      isRequired: 145,
      cdmDatatype: 197,
      isPrimaryKey: 23,
      isForeignKey: 163,
      fkDomain: 43,
      fkClass: 3,
      isStandardValidConcept: 64,
      measureValueCompleteness: 391,
      standardConceptRecordCompleteness: 48,
      sourceConceptRecordCompleteness: 13,
      sourceValueCompleteness: 32,
      plausibleValueLow: 68,
      plausibleValueHigh: 60,
      plausibleTemporalAfter: 51,
      plausibleDuringLife: 34,
      withinVisitDates: 9,
      plausibleAfterBirth: 49,
      plausibleBeforeDeath: 47,
      plausibleStartBeforeEnd: 22,
      plausibleGender: 287,
      plausibleGenderUseDescendants: 4,
      plausibleUnitConceptIds: 181,
    });
    expect(checks.some((c) => c.cdmTableName === "CONCEPT")).toBe(false);
  });

  it("gives each check DQD's id and its description with the values filled in upper case", () => {
    const fk = listChecks(defs, schemas, { names: ["isForeignKey"] }).find(
      (c) => c.cdmTableName === "MEASUREMENT" && c.cdmFieldName === "UNIT_CONCEPT_ID",
    );
    expect(fk?.checkId).toBe("field_isforeignkey_measurement_unit_concept_id");
    expect(fk?.text).toBe(
      "The number and percent of records that have a value in the UNIT_CONCEPT_ID field in the MEASUREMENT table " +
        "that does not exist in the CONCEPT table.",
    );
    expect(fk?.row.schema).toBe("cdm");
    const unit = listChecks(defs, schemas, { names: ["plausibleUnitConceptIds"] })[0];
    expect(unit?.checkId).toBe("concept_plausibleunitconceptids_measurement_measurement_concept_id_3006315");
    expect(unit?.text).toBe(
      "The number and percent of records for a given CONCEPT_ID 3006315 (BASOPHILS [#/VOLUME] IN BLOOD) with " +
        "implausible units (i.e., UNIT_CONCEPT_ID NOT IN  (8784,8848,8961,9444,8785)).",
    );
  });

  it("selects by level, severity and name", () => {
    expect(listChecks(defs, schemas, { levels: ["TABLE"] }).length).toBe(49);
    expect(listChecks(defs, schemas, { severities: ["fatal"] }).length).toBe(
      31 + 1 + 391 + 145 + 197 + 23 + 163,
    );
  });
});
