// Schema suggestions' parts: what a value looks like, a name's words, the rules' files, and the ranking of
// a profiled column against the OMOP CDM's and FHIR's columns.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ColumnProfiler, kindOf } from "../../../src/pipeline/schema/profile.js";
import { SchemaRanker } from "../../../src/pipeline/schema/rank.js";
import {
  loadFitRules,
  loadSchemaWords,
  loadTargetNames,
  nameWords,
  sourceAliases,
  targetColumns,
} from "../../../src/pipeline/schema/rules.js";

const dir = mkdtempSync(join(tmpdir(), "schema-rules-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("what a value looks like", () => {
  it.each([
    ["2024-01-03", "date"],
    ["03/01/2024", "date"],
    ["20240103", "date"],
    ["2024-01-03 09:14", "datetime"],
    ["2024-01-03T09:14:00Z", "datetime"],
    ["198808181126+0215", "datetime"],
    ["1821092833", "integer"], // an NPI, not a compact date-time
    ["162", "integer"],
    ["7.9", "decimal"],
    ["07030", "code"], // a leading zero: a zip, not a count
    ["E11.9", "code"],
    ["mg/dL", "code"],
    ["true", "boolean"],
    ["3f2504e0-4f89-11d3-9a0c-0305e82c3301", "id"],
    ["Type 2 diabetes mellitus", "text"],
  ])("%s is %s", (v, kind) => {
    expect(kindOf(v)).toBe(kind);
  });

  it("a column of whole numbers that never repeat is an id; one that repeats is a number", () => {
    const p = new ColumnProfiler();
    for (let i = 0; i < 6; i++) p.add("t", { key: String(100 + i), count: String(i % 2), empty: "" });
    expect(p.profiles()).toEqual([
      {
        table: "t",
        column: "key",
        records: 6,
        filled: 6,
        samples: ["100", "101", "102", "103", "104"],
        kind: "id",
        kind_share: 1,
      },
      {
        table: "t",
        column: "count",
        records: 6,
        filled: 6,
        samples: ["0", "1"],
        kind: "integer",
        kind_share: 1,
      },
    ]);
  });

  it("a FHIR resource's leaves are its columns, by path", () => {
    const p = new ColumnProfiler();
    p.add("Observation", {
      resourceType: "Observation",
      meta: { versionId: "1" },
      code: { coding: [{ system: "http://loinc.org", code: "4548-4" }] },
      valueQuantity: { value: 7.9, unit: "%" },
    });
    expect(p.profiles().map((c) => `${c.column} ${c.kind}`)).toEqual([
      "code.coding.system code",
      "code.coding.code code",
      "valueQuantity.value decimal",
      "valueQuantity.unit text",
    ]);
  });
});

describe("names and rules", () => {
  it("splits names at _, camelCase and digits, in lower case, plurals dropped", () => {
    expect(nameWords("birth_datetime")).toEqual(["birth", "datetime"]);
    expect(nameWords("valueQuantity")).toEqual(["value", "quantity"]);
    expect(nameWords("Labs2024")).toEqual(["lab"]);
    expect(nameWords("diagnoses")).toEqual(["diagnose"]);
  });

  it("refuses a words file that lists a word twice, saying where", () => {
    const file = join(dir, "words.tsv");
    writeFileSync(file, "# c\ndx\tdiagnosis\nDX\tcondition\n");
    expect(() => loadSchemaWords(file)).toThrow(`${file}:3: dx is listed twice`);
  });

  it("refuses a target the fit rules do not know, naming those they do", () => {
    expect(() => loadFitRules("openehr_1.0.4")).toThrow(
      "says nothing of openehr_1.0.4's column types (it knows omop_cdm_v5.4, fhir_r4, hl7v2_2.5.1)",
    );
  });

  it("reads a source standard's field aliases (HL7 v2 PID.7)", () => {
    expect(sourceAliases("hl7v2_2.5.1").get("PID.7")).toBe("date_time_of_birth");
  });
});

describe("ranking a column", () => {
  const omop = new SchemaRanker(
    targetColumns("omop_cdm_v5.4"),
    loadFitRules("omop_cdm_v5.4"),
    loadSchemaWords(),
  );
  const profile = (table: string, column: string, values: string[]) => {
    const p = new ColumnProfiler();
    for (const v of values) p.add(table, { [column]: v });
    return p.profiles()[0]!;
  };

  it("a site's date of birth is the person's birth_datetime", () => {
    expect(omop.rank(profile("patients", "dob", ["1954-03-12", "1987-11-02"]), 1)).toEqual([
      { target_table: "person", target_column: "birth_datetime", score: 0.924 },
    ]);
  });

  it("the same name goes to the table the source table means, and the values decide between columns", () => {
    const top = (table: string, column: string, values: string[]) => {
      const c = omop.rank(profile(table, column, values), 1)[0]!;
      return `${c.target_table}.${c.target_column}`;
    };
    expect(top("labs", "mrn", ["MRN1", "MRN1", "MRN2"])).toBe("measurement.person_id");
    expect(top("meds", "mrn", ["MRN1", "MRN1", "MRN2"])).toBe("drug_exposure.person_id");
    expect(top("labs", "result_num", ["7.9", "162"])).toBe("measurement.value_as_number");
    expect(top("labs", "result_unit", ["mg/dL", "%"])).toBe("measurement.unit_source_value");
    expect(top("diagnoses", "dx_code", ["E11.9", "I10"])).toBe("condition_occurrence.condition_source_value");
  });

  it("an HL7 v2 field is ranked by its alias's words", () => {
    const ranker = new SchemaRanker(
      targetColumns("omop_cdm_v5.4"),
      loadFitRules("omop_cdm_v5.4"),
      loadSchemaWords(),
      sourceAliases("hl7v2_2.5.1"),
    );
    expect(ranker.rank(profile("PID", "PID.7", ["19241010", "198808181126+0215"]), 1)).toEqual([
      { target_table: "person", target_column: "birth_datetime", score: 0.862 },
    ]);
  });

  it("a FHIR column named by its role is found through what it stands for (subject: the patient)", () => {
    const fhir = (names: Map<string, string[]>) =>
      new SchemaRanker(targetColumns("fhir_r4"), loadFitRules("fhir_r4"), loadSchemaWords(), new Map(), names)
        .rank(profile("labs", "mrn", ["MRN1", "MRN1", "MRN2"]), 2)
        .map((c) => `${c.target_table}.${c.target_column} ${c.score}`);
    expect(fhir(loadTargetNames("fhir_r4"))).toEqual([
      "Observation.identifier 0.899",
      "Observation.subject 0.899",
    ]);
    expect(fhir(new Map())).not.toContain("Observation.subject 0.899");
  });
});
