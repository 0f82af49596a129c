// Issue 13 (F4) from the command line: a crossmap file that would cost without bound is a usage error
// (exit 2) with a located message, never an internal error with a stack trace (exit 70).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

const dir = mkdtempSync(join(tmpdir(), "crossmap-limits-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const head = "source: omop_cdm_v5.4\ntarget: fhir_r4\nentity_map: {person: Patient}\n";
let bomb = `${head}field_map: {}\nmetadata:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n`;
for (let i = 1; i < 9; i++)
  bomb += `  a${i}: &a${i} [${Array(10)
    .fill(`*a${i - 1}`)
    .join(", ")}]\n`;

describe("crossmap files over the document limits", () => {
  it("an alias bomb: check and map exit 2 naming the line and the limit", async () => {
    const file = join(dir, "bomb.yaml");
    writeFileSync(file, bomb);
    const message = `${file}:11:27: the document expands to more than 500,000 nodes (the limit; an alias counts as the nodes it repeats)`;
    const check = await runCli(["check", file]);
    expect(check.code).toBe(2);
    expect(check.stderr).toContain(message);
    expect(check.stderr).not.toContain("internal error");
    const map = await runCli(["map", "--crossmap", file, "--from", "omop_cdm_v5.4", "--to", "fhir_r4"], {
      stdin: '{"person_id":1}\n',
    });
    expect(map.code).toBe(2);
    expect(map.stderr).toBe(`crossmap: crossmap ${file} is invalid (1 problem)\n  ${message}\n`);
  });

  it("a target index over the limit and an input_format over its length", async () => {
    const file = join(dir, "index.yaml");
    writeFileSync(
      file,
      `${head}field_map:\n  person.person_id: {target: "Patient.id[99999999]"}\n  person.birth_datetime:\n    target: Patient.birthDate\n    transform: format\n    config: {pattern: "%Y-%m-%d", input_format: "${"%f".repeat(40)}%Y"}\n`,
    );
    const check = await runCli(["check", file]);
    expect(check.code).toBe(2);
    expect(check.stderr).toContain(
      `${file}:5:30: field_map["person.person_id"].target: path "Patient.id[99999999]": index 99999999 is over the limit of 1000`,
    );
    expect(check.stderr).toContain(
      `${file}:8:16: field_map["person.birth_datetime"].transform: format: input_format "%f%f%f%f%f%f%f%f%f%f..." is 82 characters long; the limit is 64`,
    );
  });
});
