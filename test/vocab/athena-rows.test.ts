import { describe, expect, it } from "vitest";
import { normalizeDate } from "../../src/vocab/athena-files.js";
import {
  CONCEPT_COLUMNS,
  indexColumns,
  parseConceptId,
  RELATIONSHIP_COLUMNS,
  RowFault,
  readConceptRow,
  readRelationshipRow,
} from "../../src/vocab/athena-rows.js";
import { CONCEPT_HEADER, CONCEPTS } from "./fixtures.js";

const col = indexColumns("CONCEPT.csv", CONCEPT_HEADER, CONCEPT_COLUMNS);
const fault = (row: string[]) => {
  const r = readConceptRow(row, col);
  return r instanceof RowFault ? `${r.column ?? "-"}: ${r.message}` : "ok";
};

describe("parseConceptId", () => {
  it("accepts decimal integers up to 2^32-1, custom 2,000,000,000+ ids included", () => {
    expect(parseConceptId("0")).toBe(0);
    expect(parseConceptId("2000000001")).toBe(2000000001);
    expect(parseConceptId("4294967295")).toBe(4294967295);
  });

  it("rejects what Number() would quietly accept", () => {
    for (const bad of ["", " 7", "1e3", "0x10", "-1", "4294967296", "12.0", "99999999999"]) {
      expect(parseConceptId(bad)).toBe(-1);
    }
  });
});

describe("normalizeDate", () => {
  it("reads both Athena and ISO dates and guesses nothing else", () => {
    expect(normalizeDate("20991231")).toBe("2099-12-31");
    expect(normalizeDate("2099-12-31")).toBe("2099-12-31");
    expect(normalizeDate("31/12/2099")).toBeUndefined();
    expect(normalizeDate("2099123")).toBeUndefined();
  });
});

describe("readConceptRow", () => {
  it("keeps names as Athena has them, NA included, and turns empty flags into null", () => {
    const c = readConceptRow(CONCEPTS[5]!, col);
    expect(c).toEqual({
      concept_id: 2000000002,
      concept_name: "NA",
      domain_id: "Observation",
      vocabulary_id: "Local",
      concept_class_id: "Custom",
      standard_concept: null,
      concept_code: "NA-1",
      valid_start_date: "2020-01-01",
      valid_end_date: "2099-12-31",
      invalid_reason: null,
    });
  });

  it("names the column and the problem of a malformed row", () => {
    const good = CONCEPTS[0]!;
    const with_ = (i: number, v: string) => good.map((x, j) => (j === i ? v : x));
    expect(fault(good)).toBe("ok");
    expect(fault(with_(0, "12a"))).toBe(
      'concept_id: concept_id "12a" is not an integer from 0 to 4294967295',
    );
    expect(fault(with_(3, ""))).toBe("vocabulary_id: vocabulary_id is empty");
    expect(fault(with_(6, ""))).toBe("concept_code: concept_code is empty");
    expect(fault(with_(5, "X"))).toBe('standard_concept: standard_concept "X" is not S, C or empty');
    expect(fault(with_(7, "2002/01/31"))).toBe(
      'valid_start_date: valid_start_date "2002/01/31" is not a YYYYMMDD or YYYY-MM-DD date',
    );
    expect(fault(good.slice(0, 9))).toBe("-: expected 10 fields, found 9");
  });

  it("refuses a header without the Athena columns, naming them", () => {
    expect(() => indexColumns("x/CONCEPT.csv", ["concept_id", "concept_name"], CONCEPT_COLUMNS)).toThrow(
      "x/CONCEPT.csv is not an Athena table",
    );
    try {
      indexColumns("x/CONCEPT.csv", ["concept_id"], ["concept_id", "vocabulary_id"]);
    } catch (e) {
      expect((e as { problems: { message: string; line: number }[] }).problems[0]).toMatchObject({
        line: 1,
        message: "missing column(s): vocabulary_id",
      });
    }
  });
});

describe("R's NA in the flags of an R export", () => {
  it("reads standard_concept and invalid_reason NA as empty, and keeps a name NA as it is", () => {
    const row = [
      "45576876",
      "NA",
      "Condition",
      "ICD10CM",
      "5-char billing code",
      "NA",
      "E11.9",
      "2007-10-01",
      "2099-12-31",
      "NA",
    ];
    expect(readConceptRow(row, col)).toMatchObject({
      concept_name: "NA",
      standard_concept: null,
      invalid_reason: null,
    });
  });

  it("follows a relationship whose invalid_reason is NA", () => {
    const rcol = indexColumns(
      "CONCEPT_RELATIONSHIP.csv",
      [
        "concept_id_1",
        "concept_id_2",
        "relationship_id",
        "valid_start_date",
        "valid_end_date",
        "invalid_reason",
      ],
      RELATIONSHIP_COLUMNS,
    );
    const out = { c1: 0, c2: 0, relationship: "", invalid: true };
    readRelationshipRow(["45576876", "201826", "Maps to", "2007-10-01", "2099-12-31", "NA"], rcol, out);
    expect(out).toEqual({ c1: 45576876, c2: 201826, relationship: "Maps to", invalid: false });
  });
});
