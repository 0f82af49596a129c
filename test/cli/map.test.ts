import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

const fixtures = "test/fixtures/map";
const omopToFhir = `${fixtures}/omop-to-fhir.yaml`;
const UNREAD =
  "not read by the omop_cdm_v5.4 -> fhir_r4 crossmap: the values in this file are not mapped (reported once per file and entity)";
const PERSON_UNREAD = [
  "year_of_birth",
  "month_of_birth",
  "day_of_birth",
  "race_concept_id",
  "ethnicity_concept_id",
  "person_source_value",
  "gender_source_value",
  "gender_source_concept_id",
  "race_source_value",
  "race_source_concept_id",
  "ethnicity_source_value",
  "ethnicity_source_concept_id",
]
  .map((c) => `person.${c}`)
  .join(", ");
const fhirToOmop = `${fixtures}/fhir-to-omop.yaml`;
const golden = (name: string) => readFileSync(join(fixtures, name), "utf8");
const tmp = () => mkdtempSync(join(tmpdir(), "crossmap-map-"));

/** The summary line with its timing figures (which vary) blanked out. */
const untimed = (stderr: string) => stderr.replace(/; [\d.]+ s, \d+ records\/s/g, "; T s, R records/s");

describe("crossmap map: the 10-line acceptance file (line 4 malformed, line 7 gender 'abc')", () => {
  it("with --on-error skip writes 9 records, reports lines 4 and 7, and exits 1", async () => {
    const r = await runCli([
      "map",
      "--crossmap",
      omopToFhir,
      "--entity",
      "person",
      `${fixtures}/ten-persons.ndjson`,
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(golden("ten-persons.expected.ndjson"));
    expect(untimed(r.stderr)).toBe(
      [
        `${fixtures}/ten-persons.ndjson:4: error malformed_json: malformed JSON: Expected ',' or '}' after property value in JSON at position 74`,
        `${fixtures}/ten-persons.ndjson:7: error unmapped_value at person.gender_concept_id -> Patient.gender: "abc" is not in the value map (8507, 8532, 8551, 8570)`,
        "crossmap map: 10 in, 9 out, 1 failed, 2 with errors, 0 warnings; issues: malformed_json 1, unmapped_value 1; T s, R records/s",
        "",
      ].join("\n"),
    );
  });

  it("gives the same output and issues with --workers 1 (mapping on the main thread)", async () => {
    const args = ["map", "--crossmap", omopToFhir, "--entity", "person", `${fixtures}/ten-persons.ndjson`];
    const one = await runCli([...args, "--workers", "1"]);
    const two = await runCli([...args, "--workers", "2"]);
    expect(one.code).toBe(1);
    expect(one.stdout).toBe(golden("ten-persons.expected.ndjson"));
    expect(untimed(one.stderr)).toBe(untimed(two.stderr));
  });

  it("writes issues to --errors and the summary to --summary", async () => {
    // Run from a folder holding a copy, so that `file` in the issues is the plain name.
    const dir = tmp();
    writeFileSync(join(dir, "ten-persons.ndjson"), golden("ten-persons.ndjson"));
    const run = await runCli(
      [
        "map",
        "-q",
        "--crossmap",
        join(process.cwd(), omopToFhir),
        "--entity",
        "person",
        "--errors",
        "errors.ndjson",
      ].concat(["--summary", "summary.json", "--workers", "2", "-o", "out.ndjson", "ten-persons.ndjson"]),
      { cwd: dir },
    );
    expect(run).toEqual({ code: 1, stdout: "", stderr: "" });
    expect(readFileSync(join(dir, "out.ndjson"), "utf8")).toBe(golden("ten-persons.expected.ndjson"));
    expect(readFileSync(join(dir, "errors.ndjson"), "utf8")).toBe(
      golden("ten-persons.expected-errors.ndjson"),
    );
    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
    expect({ ...summary, elapsed_ms: 0, records_per_s: 0 }).toEqual({
      records_in: 10,
      records_out: 9,
      records_failed: 1,
      errors: 2,
      warnings: 0,
      skipped: {},
      issues_by_code: { malformed_json: 1, unmapped_value: 1 },
      elapsed_ms: 0,
      records_per_s: 0,
      completed: true,
    });
  });

  it("with --on-error fail stops at line 4, names it, exits 1 and keeps lines 1-3 on stdout", async () => {
    const r = await runCli([
      "map",
      "--crossmap",
      omopToFhir,
      "--entity",
      "person",
      "--on-error",
      "fail",
      `${fixtures}/ten-persons.ndjson`,
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(golden("ten-persons.expected.ndjson").split("\n").slice(0, 3).join("\n") + "\n");
    expect(untimed(r.stderr)).toBe(
      [
        `${fixtures}/ten-persons.ndjson:4: error malformed_json: malformed JSON: Expected ',' or '}' after property value in JSON at position 74`,
        "crossmap map: 4 in, 3 out, 1 failed, 1 with errors, 0 warnings; issues: malformed_json 1; T s, R records/s; stopped early",
        `crossmap: stopped at the first error (--on-error fail): ${fixtures}/ten-persons.ndjson:4: error malformed_json: malformed JSON: Expected ',' or '}' after property value in JSON at position 74`,
        "",
      ].join("\n"),
    );
  });

  it("with --on-error fail and -o publishes nothing", async () => {
    const dir = tmp();
    const r = await runCli(
      [
        "map",
        "-q",
        "--crossmap",
        omopToFhir,
        "--entity",
        "person",
        "--on-error",
        "fail",
        "-o",
        join(dir, "o.ndjson"),
      ].concat([`${fixtures}/ten-persons.ndjson`]),
    );
    expect(r.code).toBe(1);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("crossmap map: OMOP tables from Synthea27Nj", () => {
  it("maps PERSON.csv from stdin-free file input with counts in = counts out", async () => {
    const r = await runCli(["map", "--crossmap", omopToFhir, `${fixtures}/synthea27nj/PERSON.csv`]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(28);
    expect(lines[0]).toBe('{"resourceType":"Patient","id":"1","gender":"male","birthDate":"1998-04-09"}');
    // The test crossmap reads 4 of PERSON.csv's columns: the others are named, once.
    expect(untimed(r.stderr)).toBe(
      [
        `${fixtures}/synthea27nj/PERSON.csv:2: warning unread_column at ${PERSON_UNREAD}: ${UNREAD}`,
        "crossmap map: 28 in, 28 out, 0 failed, 0 with errors, 1 warnings; issues: unread_column 1; T s, R records/s",
        "",
      ].join("\n"),
    );
  });

  it("maps the whole folder in one command into per-entity files", async () => {
    const dir = tmp();
    const r = await runCli([
      "map",
      "--crossmap",
      omopToFhir,
      "--out-dir",
      join(dir, "fhir"),
      `${fixtures}/synthea27nj`,
    ]);
    expect(r.code).toBe(0);
    expect(untimed(r.stderr)).toBe(
      [
        `${fixtures}/synthea27nj/VISIT_OCCURRENCE.csv: warning skipped_file: VISIT_OCCURRENCE.csv is left out: its name names no entity of the crossmap (person, condition_occurrence)`,
        `${fixtures}/synthea27nj/CONDITION_OCCURRENCE.csv:2: warning unread_column at ${[
          "condition_concept_id",
          "condition_start_datetime",
          "condition_end_datetime",
          "condition_type_concept_id",
          "condition_status_concept_id",
          "provider_id",
          "visit_occurrence_id",
          "visit_detail_id",
          "condition_source_concept_id",
        ]
          .map((c) => `condition_occurrence.${c}`)
          .join(", ")}: ${UNREAD}`,
        `${fixtures}/synthea27nj/PERSON.csv:2: warning unread_column at ${PERSON_UNREAD}: ${UNREAD}`,
        "crossmap map: 498 in, 498 out, 0 failed, 0 with errors, 3 warnings; issues: skipped_file 1, unread_column 2; T s, R records/s",
        "",
      ].join("\n"),
    );
    expect(readdirSync(join(dir, "fhir"))).toEqual(["Condition.ndjson", "Patient.ndjson"]);
    const conditions = readFileSync(join(dir, "fhir", "Condition.ndjson"), "utf8")
      .trimEnd()
      .split("\n");
    expect(conditions).toHaveLength(470);
    expect(conditions[1]).toBe(
      '{"resourceType":"Condition","id":"2","subject":{"reference":"Patient/1"},"code":{"coding":[{"system":"http://snomed.info/sct","code":"1121000119107"}]},"onsetDateTime":"2016-05-14"}',
    );
    expect(
      readFileSync(join(dir, "fhir", "Patient.ndjson"), "utf8")
        .trimEnd()
        .split("\n"),
    ).toHaveLength(28);
  });

  it("reads CSV on stdin with --entity, and refuses it without", async () => {
    const csv = "person_id,gender_concept_id,birth_datetime\n1741351032930224901,8532,\n";
    const ok = await runCli(
      ["map", "-q", "--crossmap", omopToFhir, "--format", "csv", "--entity", "person"],
      { stdin: csv },
    );
    expect(ok).toEqual({
      code: 0,
      stdout: '{"resourceType":"Patient","id":"1741351032930224901","gender":"female"}\n',
      stderr: "",
    });
    const bad = await runCli(["map", "-q", "--crossmap", omopToFhir, "--format", "csv"], { stdin: csv });
    expect(bad).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "crossmap: cannot tell the source entity of stdin; give --entity (one of: person, condition_occurrence)\n",
    });
  });
});

describe("crossmap map: numbers, Bundles, --via, configuration errors", () => {
  it("keeps integers beyond 2^53 digit for digit, in and passed through", async () => {
    const input = '{"person_id": 1741351032930224901, "gender_concept_id": 8507}\n';
    const r = await runCli(["map", "-q", "--crossmap", omopToFhir, "--entity", "person"], { stdin: input });
    expect(r.stdout).toBe('{"resourceType":"Patient","id":"1741351032930224901","gender":"male"}\n');
    const back = await runCli(["map", "-q", "--crossmap", fhirToOmop, "--entity", "Patient"], {
      stdin: '{"id": 9223372036854775807, "gender": "female"}\n',
    });
    expect(back.stdout).toBe('{"person_id":9223372036854775807,"gender_concept_id":8532}\n');
  });

  it("maps Bundle entries by resourceType, and counts and names the rest as skipped", async () => {
    const r = await runCli([
      "map",
      "--crossmap",
      fhirToOmop,
      "--format",
      "fhir-bundle",
      `${fixtures}/two-patients.bundle.json`,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      '{"person_id":"fc712d1f","gender_concept_id":8507,"birth_datetime":"1961-03-14"}\n{"person_id":"6d2eba67","gender_concept_id":8532,"birth_datetime":"1990-12-01"}\n',
    );
    expect(untimed(r.stderr)).toBe(
      `${fixtures}/two-patients.bundle.json entry[1]: warning unmapped_resource: Encounter/enc-1 is left out: the crossmap has no mapping for Encounter\n` +
        `${fixtures}/two-patients.bundle.json entry[3]: warning unmapped_resource: Condition/c-1 is left out: the crossmap has no mapping for Condition\n` +
        "crossmap map: 2 in, 2 out, 0 failed, 0 with errors, 2 warnings; issues: unmapped_resource 2; skipped: Encounter 1, Condition 1; T s, R records/s\n",
    );
  });

  it("maps a folder of Bundles with --format fhir-bundle: every JSON file in it, whatever its name", async () => {
    const dir = tmp();
    const bundle = readFileSync(`${fixtures}/two-patients.bundle.json`, "utf8");
    writeFileSync(join(dir, "Alberto_Atencio.json"), bundle);
    writeFileSync(join(dir, "README.md"), "not a Bundle\n");
    const r = await runCli(["map", "--crossmap", fhirToOmop, "--format", "fhir-bundle", dir]);
    expect([r.code, r.stdout]).toEqual([
      0,
      '{"person_id":"fc712d1f","gender_concept_id":8507,"birth_datetime":"1961-03-14"}\n{"person_id":"6d2eba67","gender_concept_id":8532,"birth_datetime":"1990-12-01"}\n',
    ]);
    expect(untimed(r.stderr).split("\n").at(-2)).toBe(
      "crossmap map: 2 in, 2 out, 0 failed, 0 with errors, 2 warnings; issues: unmapped_resource 2; skipped: Encounter 1, Condition 1; T s, R records/s",
    );
    const empty = tmp();
    writeFileSync(join(empty, "README.md"), "not a Bundle\n");
    const none = await runCli(["map", "--crossmap", fhirToOmop, "--format", "fhir-bundle", empty]);
    expect([none.code, none.stderr]).toEqual([
      2,
      `crossmap: ${empty} holds no JSON file (.json, .ndjson, .jsonl) of FHIR Bundles\n`,
    ]);
  });

  it("chains two crossmaps with --via in one pass", async () => {
    const r = await runCli(
      ["map", "-q", "--from", "omop_cdm_v5.4", "--via", "fhir_r4", "--to", "omop_cdm_v5.4"].concat([
        "--crossmap",
        omopToFhir,
        "--crossmap",
        fhirToOmop,
        "--entity",
        "person",
      ]),
      {
        stdin:
          '{"person_id": 1741351032930224901, "gender_concept_id": 8532, "birth_datetime": "1990-05-05 00:00:00"}\n',
      },
    );
    expect(r).toEqual({
      code: 0,
      stdout: '{"person_id":"1741351032930224901","gender_concept_id":8532,"birth_datetime":"1990-05-05"}\n',
      stderr: "",
    });
  });

  it("exits 2 for an unknown entity, a crossmap for another pair, or no built-in crossmap", async () => {
    const entity = await runCli(["map", "--crossmap", omopToFhir, "--entity", "visit"]);
    expect(entity).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "crossmap: --entity visit: the crossmap has no mapping for it (it maps: person, condition_occurrence)\n",
    });
    const pair = await runCli(["map", "--from", "fhir_r4", "--crossmap", omopToFhir]);
    expect(pair.code).toBe(2);
    expect(pair.stderr).toBe(
      "crossmap: the crossmap maps omop_cdm_v5.4 -> fhir_r4, not fhir_r4 -> fhir_r4\n",
    );
    const none = await runCli(["map", "--from", "openehr_1.0.4", "--to", "hl7v2.5.1"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /^crossmap: no built-in crossmap from openehr_1\.0\.4 to hl7v2\.5\.1 \(built-in: .*omop_cdm_v5\.4 -> fhir_r4.*\); give --crossmap FILE\n$/,
    );
  });

  it("exits 2 before reading when an output path cannot be written", async () => {
    const dir = tmp();
    writeFileSync(join(dir, "file"), "");
    const base = [
      "map",
      "-q",
      "--crossmap",
      omopToFhir,
      "--entity",
      "person",
      `${fixtures}/ten-persons.ndjson`,
    ];
    const errors = await runCli([...base, "--errors", join(dir, "missing", "e.ndjson")]);
    expect(errors).toEqual({
      code: 2,
      stdout: "",
      stderr: `crossmap: --errors ${join(dir, "missing", "e.ndjson")}: cannot write it: no such directory\n`,
    });
    const summary = await runCli([...base, "--summary", join(dir, "missing", "s.json")]);
    expect(summary.code).toBe(2);
    expect(summary.stderr).toBe(
      `crossmap: --summary ${join(dir, "missing", "s.json")}: cannot write it: no such directory\n`,
    );
    const outDir = await runCli([...base, "--out-dir", join(dir, "file", "out")]);
    expect(outDir.code).toBe(2);
    expect(outDir.stderr).toMatch(/^crossmap: cannot create directory .*file\/out: ENOTDIR/);
  });

  it("exits 2 naming the file and line of a broken crossmap", async () => {
    const dir = tmp();
    writeFileSync(
      join(dir, "bad.yaml"),
      "source: omop_cdm_v5.4\ntarget: fhir_r4\nentity_map:\n  person: Patient\nfield_map:\n  person.person_id:\n    target: Patient.id\n    transform: nope\n",
    );
    const r = await runCli(["map", "--crossmap", join(dir, "bad.yaml")], { stdin: "" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(dir, "bad.yaml")}:8:`);
    expect(r.stderr).toContain('"nope"');
  });
});
