// Reading mapping files made elsewhere: the Usagi fixture (statuses, equivalence, comments, a second
// target, bad rows with their lines) and SOURCE_TO_CONCEPT_MAP rows.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkTargets, parseMappingFile } from "../../src/review/import-mappings.js";
import type { Concept, VocabularyBridge } from "../../src/vocab/bridge.js";

const usagi = readFileSync(new URL("../fixtures/usagi/lab-codes.usagi.csv", import.meta.url), "utf8");

describe("Usagi export", () => {
  const parsed = parseMappingFile(usagi, { sourceVocabularyId: "LOCAL_LAB" });

  it("keeps statuses, equivalence, comments, scores and frequencies", () => {
    expect(parsed.format).toBe("usagi");
    const by = Object.fromEntries(
      parsed.items.map((i) => [i.fields.source_code, { ...i.fields, line: i.line, reviewed: i.reviewed }]),
    );
    expect(Object.keys(by)).toEqual(["GLU", "K", "HB", "CHOL", "TRIG", "NA"]);
    expect(by.GLU).toEqual({
      line: 2,
      reviewed: true,
      source_column: null,
      source_code: "GLU",
      source_description: "Glucose, serum",
      target_concept_id: 3004501,
      target_concept_name: "Glucose [Mass/volume] in Serum or Plasma",
      target_vocabulary_id: null,
      confidence: 0.97,
      method: "auto",
      source_vocabulary_id: "LOCAL_LAB",
      source_frequency: 1200,
      equivalence: "equal",
      comment: null,
    });
    expect(by.K).toMatchObject({
      method: "override",
      equivalence: "narrower",
      comment: "The analyser reports whole blood",
      target_concept_id: 3005456,
      reviewed: true,
    });
    expect(by.HB).toMatchObject({
      method: "unmapped",
      equivalence: "unmatched",
      target_concept_id: null,
      reviewed: true,
      comment: "Point-of-care device, not a lab result",
    });
    expect(by.CHOL).toMatchObject({
      method: "review",
      equivalence: null,
      target_concept_id: 3027114,
      reviewed: false,
    });
    expect(by.TRIG).toMatchObject({
      method: "review",
      equivalence: "inexact",
      comment: "Fasting or not? Ask the lab",
      reviewed: false,
    });
    expect(by.NA).toMatchObject({
      line: 9,
      method: "auto",
      source_description: "Sodium,\r\n serum",
      equivalence: "equivalent",
    });
  });

  it("reports a bad row by line and leaves it out, and says what a further target loses", () => {
    expect(parsed.problems).toEqual([
      {
        line: 4,
        severity: "warning",
        message:
          'code "K" already imported from line 3; this further target (concept 8753, MAPS_TO_UNIT) is not kept: an item maps a code to one concept',
      },
      { line: 8, severity: "error", message: 'matchScore "high" is not a number' },
      {
        line: 11,
        severity: "error",
        message:
          'mappingStatus "MAYBE" is not one of APPROVED, UNCHECKED, AUTO_MAPPED, AUTO_MAPPED_TO_1, INVALID_TARGET, FLAGGED, IGNORED',
      },
    ]);
  });

  it("refuses a file that is neither format, naming line 1", () => {
    expect(() => parseMappingFile("code,name\nA,b\n")).toThrow(
      "line 1: the header is neither Usagi's (sourceCode, mappingStatus, conceptId, ...) nor SOURCE_TO_CONCEPT_MAP's (source_code, source_vocabulary_id, target_concept_id, ...)",
    );
    expect(() => parseMappingFile("sourceCode,sourceName\nA,b\n")).toThrow(
      "line 1: the usagi header lacks mappingStatus, conceptId",
    );
  });
});

describe("SOURCE_TO_CONCEPT_MAP", () => {
  it("imports valid rows as decided, target 0 as unmapped, invalidated rows for review", () => {
    const csv = [
      "source_code,source_concept_id,source_vocabulary_id,source_code_description,target_concept_id,target_vocabulary_id,valid_start_date,valid_end_date,invalid_reason",
      "GLU,0,LOCAL_LAB,Glucose,3004501,LOINC,2024-03-01,2099-12-31,",
      "HB,0,LOCAL_LAB,Haemoglobin,0,None,2024-03-01,2099-12-31,",
      "K,0,LOCAL_LAB,Potassium,3023103,LOINC,2020-01-01,2023-12-31,D",
      "X,0,LOCAL_LAB,Bad,three,LOINC,2024-03-01,2099-12-31,",
      "NA,0,LOCAL_LAB,Sodium,3019550,LOINC,2024-03-01,2099-12-31,",
    ].join("\n");
    const parsed = parseMappingFile(csv);
    expect(parsed.format).toBe("source-to-concept-map");
    expect(
      parsed.items.map((i) => [
        i.line,
        i.fields.source_code,
        i.fields.method,
        i.fields.target_concept_id,
        i.reviewed,
      ]),
    ).toEqual([
      [2, "GLU", "manual", 3004501, true],
      [3, "HB", "unmapped", null, true],
      [4, "K", "review", 3023103, false],
      [6, "NA", "manual", 3019550, true],
    ]);
    expect(parsed.problems).toEqual([
      { line: 5, severity: "error", message: 'target_concept_id "three" is not a whole number >= 0' },
    ]);
  });
});

describe("SOURCE_TO_CONCEPT_MAP exported from a database", () => {
  it("reads upper-case column names, as Oracle, Snowflake or SQL Server tools write them", () => {
    const csv = [
      "SOURCE_CODE,SOURCE_CONCEPT_ID,SOURCE_VOCABULARY_ID,SOURCE_CODE_DESCRIPTION,TARGET_CONCEPT_ID,TARGET_VOCABULARY_ID,VALID_START_DATE,VALID_END_DATE,INVALID_REASON",
      "GLU,0,LOCAL_LAB,Glucose,3004501,LOINC,2024-03-01,2099-12-31,",
      "K,0,LOCAL_LAB,Potassium,3023103,LOINC,2020-01-01,2023-12-31,D",
    ].join("\r\n");
    const parsed = parseMappingFile(csv);
    expect(parsed.format).toBe("source-to-concept-map");
    expect(parsed.problems).toEqual([]);
    expect(
      parsed.items.map((i) => [
        i.fields.source_code,
        i.fields.source_vocabulary_id,
        i.fields.source_description,
        i.fields.method,
        i.fields.target_concept_id,
        i.fields.target_vocabulary_id,
      ]),
    ).toEqual([
      ["GLU", "LOCAL_LAB", "Glucose", "manual", 3004501, "LOINC"],
      ["K", "LOCAL_LAB", "Potassium", "review", 3023103, "LOINC"],
    ]);
    expect(parseMappingFile(csv, { format: "source-to-concept-map" }).items).toHaveLength(2);
  });

  it("names both date forms it reads when valid_end_date is neither", () => {
    const csv = [
      "source_code,source_vocabulary_id,target_concept_id,valid_end_date",
      "GLU,LOCAL_LAB,3004501,20991231",
      "K,LOCAL_LAB,3023103,31/12/2099",
    ].join("\n");
    const parsed = parseMappingFile(csv);
    expect(parsed.items.map((i) => i.fields.source_code)).toEqual(["GLU"]);
    expect(parsed.problems).toEqual([
      {
        line: 3,
        severity: "error",
        message: 'valid_end_date "31/12/2099" is not a YYYY-MM-DD or YYYYMMDD date',
      },
    ]);
  });
});

describe("Usagi rows of one code", () => {
  it("keeps the main (MAPS_TO) target when a value's target comes first", () => {
    const csv = [
      "sourceCode,sourceName,sourceFrequency,matchScore,mappingStatus,equivalence,conceptId,conceptName,domainId,mappingType,comment,createdBy",
      "K1,Kalium,5,0.9,APPROVED,EQUAL,4328749,High,Meas Value,MAPS_TO_VALUE,,anna",
      "K1,Kalium,5,0.9,APPROVED,EQUAL,3023103,Potassium,Measurement,MAPS_TO,,anna",
      "K1,Kalium,5,0.9,APPROVED,EQUAL,8753,mmol/L,Unit,MAPS_TO_UNIT,,anna",
    ].join("\n");
    const parsed = parseMappingFile(csv);
    expect(parsed.items.map((i) => [i.line, i.fields.source_code, i.fields.target_concept_id])).toEqual([
      [3, "K1", 3023103],
    ]);
    expect(parsed.problems).toEqual([
      {
        line: 2,
        severity: "warning",
        message:
          'code "K1" imported from line 3, its main (MAPS_TO) target; this further target (concept 4328749, MAPS_TO_VALUE) is not kept: an item maps a code to one concept',
      },
      {
        line: 4,
        severity: "warning",
        message:
          'code "K1" already imported from line 3; this further target (concept 8753, MAPS_TO_UNIT) is not kept: an item maps a code to one concept',
      },
    ]);
  });
});

describe("checkTargets against the vocabulary given", () => {
  const concept = (id: number, name: string, standard: string | null, invalid: string | null): Concept => ({
    concept_id: id,
    concept_name: name,
    domain_id: "Condition",
    vocabulary_id: "SNOMED",
    concept_class_id: "Clinical Finding",
    standard_concept: standard,
    concept_code: String(id),
    valid_start_date: "2002-01-31",
    valid_end_date: invalid ? "2018-01-31" : "2099-12-31",
    invalid_reason: invalid,
  });
  const concepts = new Map([
    [320128, concept(320128, "Essential hypertension", "S", null)],
    [4200001, concept(4200001, "Old hypertension concept", null, "U")],
    [4300002, concept(4300002, "Hypertension (classification)", "C", null)],
  ]);
  const vocab = {
    getConcept: (id: number) => concepts.get(id),
    mapConcept: (id: number, o?: { relationships?: string[] }) =>
      id === 4200001 && o?.relationships?.includes("Concept replaced by") ? [concepts.get(320128)!] : [],
  } as unknown as VocabularyBridge;

  it("warns about each decision whose target is gone, invalid or not standard, naming a replacement", () => {
    const csv = [
      "source_code,source_vocabulary_id,target_concept_id",
      "A1,LOCAL_DX,320128",
      "A2,LOCAL_DX,4200001",
      "A3,LOCAL_DX,4300002",
      "A4,LOCAL_DX,999",
      "A5,LOCAL_DX,0",
    ].join("\n");
    const parsed = parseMappingFile(csv);
    expect(checkTargets(parsed.items, vocab)).toEqual([
      {
        line: 3,
        severity: "warning",
        message:
          'code "A2": target concept 4200001 is invalid (U) in the vocabulary; its replacement is 320128 "Essential hypertension" (Concept replaced by); imported as decided, but crossmap revalidate would reopen it',
      },
      {
        line: 4,
        severity: "warning",
        message:
          'code "A3": target concept 4300002 is not a standard concept; imported as decided, but crossmap revalidate would reopen it',
      },
      {
        line: 5,
        severity: "warning",
        message:
          'code "A4": target concept 999 is not in the vocabulary; imported as decided, but crossmap revalidate would reopen it',
      },
    ]);
  });
});
