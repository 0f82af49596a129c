// Mapped CDM records -> CSV lines for a table: DDL column order, registry ids, checked values, copies of
// rows already written left out and conflicting ones named.
import { describe, expect, it } from "vitest";
import type { RunIssue } from "../../../src/pipeline/types.js";
import { loadModel } from "../../../src/sinks/cdm/model.js";
import { IdRegistry } from "../../../src/sinks/cdm/registry.js";
import { type IdMode, RowConverter } from "../../../src/sinks/cdm/rows.js";

const model = loadModel("postgresql");

function converter(ids: IdMode = "registry") {
  const registry = new IdRegistry();
  const issues: RunIssue[] = [];
  const conv = new RowConverter(registry, (i) => issues.push(i), ids);
  const lines = (table: string, ...records: string[]) => {
    const out: string[] = [];
    conv.convert(model.tables.get(table)!, records.map((r) => `${r}\n`).join(""), (l) => out.push(l));
    return out;
  };
  return { registry, issues, conv, lines };
}

const person = (id: string, extra = "") =>
  `{"person_id":${id},"gender_concept_id":8507,"year_of_birth":1990,"race_concept_id":0,"ethnicity_concept_id":0${extra}}`;

describe("RowConverter", () => {
  it("writes a row in DDL column order: registry ids, empty for null, ISO date and date-time", () => {
    const { lines, issues } = converter();
    expect(
      lines(
        "person",
        person(
          "3198808480235023718",
          ',"birth_datetime":"1990-06-07T10:20","location_id":2458981708503375106,"person_source_value":"a, \\"b\\"\\nc"',
        ),
      ),
    ).toEqual(['1,8507,1990,,,1990-06-07 10:20:00,0,0,1,,,"a, ""b""\nc",,,,,,\n']);
    expect(issues).toEqual([]);
  });

  it("gives a foreign key the id of the row it points to, whichever comes first; ids beyond 2^53 keep every digit", () => {
    const { lines } = converter();
    const condition = (id: number, personId: string) =>
      `{"condition_occurrence_id":${id},"person_id":${personId},"condition_concept_id":0,"condition_start_date":"2020-01-02","condition_type_concept_id":32817}`;
    expect(
      lines("condition_occurrence", condition(7, "9007199254740993"), condition(8, "9007199254740992")),
    ).toEqual(["1,1,0,2020-01-02,,,,32817,,,,,,,,\n", "2,2,0,2020-01-02,,,,32817,,,,,,,,\n"]);
    expect(lines("person", person("9007199254740992"), person("9007199254740993"))).toEqual([
      "2,8507,1990,,,,0,0,,,,,,,,,,\n",
      "1,8507,1990,,,,0,0,,,,,,,,,,\n",
    ]);
    // Found by name in a flat line, and by a rewrite of the line when it nests values (an unknown column).
    expect(
      lines(
        "person",
        person("18446744073709551000", ',"person_source_value":"x\\":18446744073709551001,"'),
        person("18446744073709551001", ',"extra":{"person_id":18446744073709551000}'),
        person("18446744073709551002", ' , "provider_id" : 18446744073709551003 '),
      ),
    ).toEqual([
      '3,8507,1990,,,,0,0,,,,"x"":18446744073709551001,",,,,,,\n',
      "4,8507,1990,,,,0,0,,,,,,,,,,\n",
      "5,8507,1990,,,,0,0,,1,,,,,,,,\n",
    ]);
  });

  it("leaves out a copy of a row already written, and names a second row under the same key that differs", () => {
    const { lines, issues, conv } = converter();
    expect(lines("care_site", '{"care_site_id":55,"care_site_name":"A"}')).toEqual(["1,A,,,,\n"]);
    expect(
      lines(
        "care_site",
        '{"care_site_id":55,"care_site_name":"A"}',
        '{"care_site_id":55,"care_site_name":"B"}',
      ),
    ).toEqual([]);
    expect(conv.countsOf("care_site")).toEqual({ written: 1, duplicates: 1, conflicting: 1, rejected: 0 });
    expect(issues).toEqual([
      {
        file: "care_site",
        entity: "care_site",
        code: "duplicate_differs",
        severity: "warning",
        message:
          "care_site care_site_id 1 (source id 55) was written before with other values; the first is kept",
      },
    ]);
  });

  it("tells death rows apart by person: one death per person", () => {
    const { lines, issues } = converter();
    const death = (date: string) => `{"person_id":12,"death_date":"${date}","death_type_concept_id":32817}`;
    expect(lines("death", death("2020-01-01"), death("2020-01-01"), death("2021-01-01"))).toEqual([
      "1,2020-01-01,,32817,,,\n",
    ]);
    expect(issues.map((i) => i.message)).toEqual([
      "death the row of 12 (source id 12) was written before with other values; the first is kept",
    ]);
  });

  it("finds the table of a cost's event id by its cost_domain_id; an id of an unknown domain is left empty (and cost_event_id is required)", () => {
    const { lines, issues, registry } = converter();
    registry.idFor("visit_occurrence", "100");
    expect(
      lines(
        "cost",
        '{"cost_id":1,"cost_event_id":500,"cost_domain_id":"Drug","cost_type_concept_id":32810}',
        '{"cost_id":2,"cost_event_id":100,"cost_domain_id":"Visit","cost_type_concept_id":32810}',
        '{"cost_id":3,"cost_event_id":100,"cost_domain_id":"Metadata","cost_type_concept_id":32810}',
      ).map((l) => l.split(",").slice(0, 4).join(",")),
    ).toEqual(["1,1,Drug,32810", "2,1,Visit,32810"]);
    expect(issues).toEqual([
      {
        file: "cost",
        entity: "cost",
        field: "cost.cost_event_id",
        code: "unresolved_id",
        severity: "warning",
        message:
          'cost cost_id 3: cost_event_id 100 is left empty: cost_domain_id "Metadata" names no table the registry knows',
      },
      {
        file: "cost",
        entity: "cost",
        field: "cost.cost_event_id",
        code: "missing_required",
        severity: "error",
        message:
          "cost cost_id 3: cost_event_id is required (NOT NULL) and has no value; the row is not written",
      },
    ]);
  });

  it("rejects a row without a required value or with a value its column cannot hold, naming both", () => {
    const { lines, issues, conv } = converter();
    expect(
      lines(
        "person",
        '{"person_id":1,"gender_concept_id":8507,"race_concept_id":0,"ethnicity_concept_id":0}',
        person("2").replace('"year_of_birth":1990', '"year_of_birth":3000000000'),
        person("3").replace('"year_of_birth":1990', '"year_of_birth":"1990s"'),
        person("4", ',"birth_datetime":"2020-02-30 10:00:00"'),
      ),
    ).toEqual([]);
    expect(issues.map((i) => [i.severity, i.code, i.field, i.message])).toEqual([
      [
        "error",
        "missing_required",
        "person.year_of_birth",
        "person person_id 1: year_of_birth is required (NOT NULL) and has no value; the row is not written",
      ],
      [
        "error",
        "invalid_value",
        "person.year_of_birth",
        "person person_id 2: year_of_birth: 3000000000 does not fit the column's integer type; the row is not written",
      ],
      [
        "error",
        "invalid_value",
        "person.year_of_birth",
        'person person_id 3: year_of_birth: "1990s" is not an integer; the row is not written',
      ],
      [
        "error",
        "invalid_value",
        "person.birth_datetime",
        'person person_id 4: birth_datetime: "2020-02-30 10:00:00" is not a date-time (YYYY-MM-DD hh:mm:ss); the row is not written',
      ],
    ]);
    expect(conv.countsOf("person").rejected).toBe(4);
  });

  it("cuts a text longer than its varchar and says so; names a column the table lacks once", () => {
    const { lines, issues } = converter();
    const long = "x".repeat(60);
    expect(
      lines(
        "person",
        person("1", `,"person_source_value":"${long}","nickname":"a"`),
        person("2", ',"nickname":"b"'),
      ),
    ).toEqual([`1,8507,1990,,,,0,0,,,,${"x".repeat(50)},,,,,,\n`, "2,8507,1990,,,,0,0,,,,,,,,,,\n"]);
    expect(issues.map((i) => [i.code, i.message])).toEqual([
      ["unknown_column", "person has no column nickname in the CDM DDL; its values are left out"],
      [
        "value_truncated",
        "person person_id 1: person_source_value is longer than its varchar(50): cut to 50 characters",
      ],
    ]);
  });

  it("reads each record's names in its own order: the same names shuffled, fewer, or an unknown one in between", () => {
    const { lines, issues } = converter();
    expect(
      lines(
        "person",
        '{"person_id":1,"gender_concept_id":8507,"year_of_birth":1990,"race_concept_id":1,"ethnicity_concept_id":2}',
        '{"year_of_birth":1991,"person_id":2,"ethnicity_concept_id":3,"gender_concept_id":8532,"race_concept_id":4}',
        '{"person_id":3,"nickname":"c","gender_concept_id":8507,"year_of_birth":1992,"race_concept_id":5,"ethnicity_concept_id":6}',
        '{"person_id":4,"gender_concept_id":8507,"year_of_birth":1993,"race_concept_id":7,"ethnicity_concept_id":8,"nickname":"d"}',
        '{"person_id":5,"gender_concept_id":8532,"year_of_birth":1994,"race_concept_id":9,"ethnicity_concept_id":10}',
      ),
    ).toEqual([
      "1,8507,1990,,,,1,2,,,,,,,,,,\n",
      "2,8532,1991,,,,4,3,,,,,,,,,,\n",
      "3,8507,1992,,,,5,6,,,,,,,,,,\n",
      "4,8507,1993,,,,7,8,,,,,,,,,,\n",
      "5,8532,1994,,,,9,10,,,,,,,,,,\n",
    ]);
    expect(issues.map((i) => i.code)).toEqual(["unknown_column"]);
  });

  it("keeps the crossmap's own ids with --ids source (for a bigint DDL)", () => {
    const { lines } = converter("source");
    expect(lines("person", person("3198808480235023718", ',"location_id":2458981708503375106'))).toEqual([
      "3198808480235023718,8507,1990,,,,0,0,2458981708503375106,,,,,,,,,\n",
    ]);
  });
});
