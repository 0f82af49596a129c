// `crossmap check` and `crossmap map` as a user runs them on a crossmap with typos in its names: located
// warnings with a suggestion (exit 0), errors with --strict (exit 2), every problem in one run, and the
// same warnings once on map's stderr while the records still map.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

let dir: string;
let typo: string;
let broken: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "crossmap-check-"));
  typo = join(dir, "typo.yaml");
  writeFileSync(
    typo,
    "source: omop_cdm_v5.4\ntarget: fhir_r4\nentity_map:\n  person: Patient\nfield_map:\n  person.person_id: {target: Patient.id, transform: str}\n  person.gender_concpt_id:\n    target: Patient.gendr\n",
  );
  broken = join(dir, "broken.yaml");
  writeFileSync(
    broken,
    "source: omop_cdm_v5.4\ntarget: fhir_r4\nentity_map:\n  person: Patient\nfield_map:\n  person.person_id: {target: Patient.id, transfrom: str}\n  person.year_of_birth: {target: Patient.birthDate, transform: nope}\n  person.gender_concpt_id: {target: Patient.gender}\n",
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const typoWarnings = (file: string, prefix = ""): string =>
  `${prefix}${file}:7:3: warning: field_map["person.gender_concpt_id"]: person has no field "gender_concpt_id" in omop_cdm_v5.4 (did you mean "gender_concept_id"?)\n` +
  `${prefix}${file}:8:13: warning: field_map["person.gender_concpt_id"].target: Patient has no field "gendr" in fhir_r4 (did you mean "gender"?)\n`;

describe("crossmap check against the standard definitions", () => {
  it("warns about names the standards lack, and still passes", async () => {
    const r = await runCli(["check", typo]);
    expect(r).toEqual({
      code: 0,
      stdout: `${typo}: ok (omop_cdm_v5.4 -> fhir_r4, 2 field mappings, 2 warnings)\n`,
      stderr: typoWarnings(typo),
    });
  });

  it("fails on them with --strict", async () => {
    const r = await runCli(["check", "--strict", typo]);
    expect(r).toEqual({
      code: 2,
      stdout: "",
      stderr:
        `crossmap ${typo} is invalid (2 problems)\n` +
        `  ${typo}:7:3: field_map["person.gender_concpt_id"]: person has no field "gender_concpt_id" in omop_cdm_v5.4 (did you mean "gender_concept_id"?)\n` +
        `  ${typo}:8:13: field_map["person.gender_concpt_id"].target: Patient has no field "gendr" in fhir_r4 (did you mean "gender"?)\n`,
    });
  });

  it("reports schema errors, compile errors and warnings of one file in one run", async () => {
    const r = await runCli(["check", broken, typo]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe(`${typo}: ok (omop_cdm_v5.4 -> fhir_r4, 2 field mappings, 2 warnings)\n`);
    expect(r.stderr.split("\n").map((l) => l.replace(/; known: .*/, ""))).toEqual([
      `crossmap ${broken} is invalid (2 problems)`,
      `  ${broken}:6:42: field_map["person.person_id"].transfrom: unknown key "transfrom"`,
      `  ${broken}:7:64: field_map["person.year_of_birth"].transform: unknown transform "nope"`,
      `  ${broken}:8:3: warning: field_map["person.gender_concpt_id"]: person has no field "gender_concpt_id" in omop_cdm_v5.4 (did you mean "gender_concept_id"?)`,
      ...typoWarnings(typo).trimEnd().split("\n"),
      "",
    ]);
  });

  it("passes every built-in crossmap without a warning", async () => {
    const files = [
      "crossmaps/fhir_r4-to-omop_cdm_v5.4.yaml",
      "crossmaps/hl7v2_2.5.1-to-fhir_r4.yaml",
      "crossmaps/omop_cdm_v5.4-to-fhir_r4.yaml",
    ];
    const r = await runCli(["check", "--strict", ...files]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });
});

describe("crossmap map with a crossmap whose names have typos", () => {
  it("prints the warnings once on stderr and maps (exit 0)", async () => {
    const r = await runCli(["map", "--crossmap", typo, "--entity", "person", "--workers", "2", "-q"], {
      stdin: '{"person_id":1,"gender_concept_id":8507}\n',
    });
    // The input's gender_concept_id, which the misspelt entry does not read, is a record's warning: with
    // --quiet it is counted, not printed (the crossmap's own warnings are).
    expect(r).toEqual({
      code: 0,
      stdout: '{"id":"1"}\n',
      stderr: typoWarnings(typo, "crossmap map: "),
    });
  });

  it("prints nothing for a built-in crossmap", async () => {
    const r = await runCli(
      ["map", "--from", "omop_cdm_v5.4", "--to", "fhir_r4", "--entity", "person", "-q"],
      {
        stdin: '{"person_id":1,"gender_concept_id":8507}\n',
      },
    );
    expect(r).toEqual({
      code: 0,
      stdout:
        '{"resourceType":"Patient","id":"1","identifier":[{"value":"1","system":"https://crossmap.dev/fhir/NamingSystem/omop-person-id"}],' +
        '"gender":"male","extension":[{"url":"https://crossmap.dev/fhir/StructureDefinition/omop-gender",' +
        '"valueCodeableConcept":{"coding":[{"system":"https://fhir-terminology.ohdsi.org","code":"8507"}]}}]}\n',
      stderr: "",
    });
  });
});

describe("crossmap check on the language's routing, conditions and gathering (issue 14)", () => {
  it("reports a condition on an unknown field, a route to an unknown entity and a gathering parent no output declares, located", async () => {
    const file = join(dir, "routes.yaml");
    writeFileSync(
      file,
      [
        "source: fhir_r4",
        "target: omop_cdm_v5.4",
        "entity_map:",
        "  Observation:",
        "    - choose:",
        "        - {target: measurement, when: {field: cod, equals: x}}",
        "        - {target: measuremnt}",
        '    - {target: observation, name: o, into: {parent: nowhere, key: encounter.reference, at: "x[+]"}}',
        "field_map:",
        "  Observation.id: {target: [measurement.measurement_id, o.observation_id]}",
        "",
      ].join("\n"),
    );
    const r = await runCli(["check", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `crossmap ${file} is invalid (1 problem)\n` +
        `  ${file}:6:47: warning: entity_map.Observation[0].choose[0].when.field: Observation has no field "cod" in fhir_r4 (did you mean "code"?)\n` +
        `  ${file}:7:20: warning: entity_map.Observation[0].choose[1].target: "measuremnt" is not an entity of omop_cdm_v5.4 (did you mean "measurement"?)\n` +
        `  ${file}:8:53: entity_map.Observation[1].into.parent: no output is named "nowhere" (outputs: measurement, measuremnt, o)\n`,
    );
    const strict = await runCli(["check", "--strict", file]);
    expect(strict.code).toBe(2);
    expect(strict.stderr).toContain("is invalid (3 problems)");
  });
});
