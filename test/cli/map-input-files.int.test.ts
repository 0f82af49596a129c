// `crossmap map` on input files as they come: gzip (by name or by its bytes, every format, stdin too), a
// cut gzip, a dangling symbolic link in an input folder, a one-line FHIR Bundle with a byte that is not
// UTF-8. Every case: the exact issue, the records around it mapped, the exact exit code.
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { repoRoot, runCli } from "./run-cli.js";

const fixtures = join(repoRoot, "test/fixtures/map");
const omopToFhir = join(fixtures, "omop-to-fhir.yaml");
const tmp = () => mkdtempSync(join(tmpdir(), "crossmap-files-"));
const untimed = (stderr: string) => stderr.replace(/; [\d.]+ s(, \d+ records\/s)?/g, "; T s");
const tenPersons = readFileSync(join(fixtures, "ten-persons.ndjson"));
const tenExpected = readFileSync(join(fixtures, "ten-persons.expected.ndjson"), "utf8");
const tenIssues = (file: string) =>
  `${file}:4: error malformed_json: malformed JSON: Expected ',' or '}' after property value in JSON at position 74\n` +
  `${file}:7: error unmapped_value at person.gender_concept_id -> Patient.gender: "abc" is not in the value map (8507, 8532, 8551, 8570)\n`;
const tenSummary =
  "crossmap map: 10 in, 9 out, 1 failed, 2 with errors, 0 warnings; issues: malformed_json 1, unmapped_value 1; T s\n";

describe("gzip input", () => {
  it("reads person.ndjson.gz as person.ndjson: same records, same issues", async () => {
    const dir = tmp();
    writeFileSync(join(dir, "person.ndjson.gz"), gzipSync(tenPersons));
    const r = await runCli(["map", "--crossmap", omopToFhir, "person.ndjson.gz"], { cwd: dir });
    expect([r.code, r.stdout, untimed(r.stderr)]).toEqual([
      1,
      tenExpected,
      tenIssues("person.ndjson.gz") + tenSummary,
    ]);
  });

  it("knows gzip by its bytes: a file without .gz, stdin, several gzip members", async () => {
    const dir = tmp();
    const half = tenPersons.indexOf("\n", 300) + 1;
    // Two members, as `cat a.gz b.gz` makes.
    const twoMembers = Buffer.concat([
      gzipSync(tenPersons.subarray(0, half)),
      gzipSync(tenPersons.subarray(half)),
    ]);
    writeFileSync(join(dir, "person.ndjson"), twoMembers);
    const file = await runCli(["map", "--crossmap", omopToFhir, "person.ndjson"], { cwd: dir });
    expect([file.code, file.stdout, untimed(file.stderr)]).toEqual([
      1,
      tenExpected,
      tenIssues("person.ndjson") + tenSummary,
    ]);
    const stdin = await runCli(["map", "--crossmap", omopToFhir, "--entity", "person", "-"], {
      stdin: gzipSync(tenPersons),
    });
    expect([stdin.code, stdin.stdout, untimed(stdin.stderr)]).toEqual([
      1,
      tenExpected,
      tenIssues("-") + tenSummary,
    ]);
  });

  it("maps a folder of .csv.gz tables and a gzip FHIR Bundle as their plain files", async () => {
    const dir = tmp();
    const plain = join(dir, "plain");
    const zipped = join(dir, "zipped");
    mkdirSync(plain);
    mkdirSync(zipped);
    for (const table of ["PERSON.csv", "CONDITION_OCCURRENCE.csv"]) {
      const bytes = readFileSync(join(fixtures, "synthea27nj", table));
      writeFileSync(join(plain, table), bytes);
      writeFileSync(join(zipped, `${table}.gz`), gzipSync(bytes));
    }
    const a = await runCli(["map", "--crossmap", omopToFhir, "plain"], { cwd: dir });
    const b = await runCli(["map", "--crossmap", omopToFhir, "zipped"], { cwd: dir });
    expect(a.code).toBe(0);
    expect(a.stdout.split("\n").length).toBe(499);
    // The same records and the same issues (the columns the small crossmap leaves unread), named by file.
    expect(a.stderr).toContain("plain/PERSON.csv:2: warning unread_column at person.year_of_birth");
    const untimedPaths = (stderr: string) =>
      untimed(stderr).replace(/(plain|zipped)\/(\w+)\.csv(\.gz)?:/g, "$2:");
    expect([b.code, b.stdout, untimedPaths(b.stderr)]).toEqual([0, a.stdout, untimedPaths(a.stderr)]);

    const bundle = readFileSync(join(fixtures, "two-patients.bundle.json"));
    writeFileSync(join(dir, "bundle.json"), bundle);
    writeFileSync(join(dir, "bundle.json.gz"), gzipSync(bundle));
    const fhir = ["map", "-q", "--crossmap", join(fixtures, "fhir-to-omop.yaml"), "--format", "fhir-bundle"];
    const c = await runCli([...fhir, "bundle.json"], { cwd: dir });
    const d = await runCli([...fhir, "bundle.json.gz"], { cwd: dir });
    expect(c.stdout).not.toBe("");
    expect([d.code, d.stdout, d.stderr]).toEqual([
      c.code,
      c.stdout,
      c.stderr.replaceAll("bundle.json entry", "bundle.json.gz entry"),
    ]);
  });

  it("reports gzip data cut short after the records read before it, exit 1", async () => {
    const dir = tmp();
    // Stored, not compressed (level 0): the cut falls after exactly 590 bytes of the text whatever zlib's
    // version (10 bytes of gzip header, 5 of block header), inside line 8.
    writeFileSync(join(dir, "person.ndjson.gz"), gzipSync(tenPersons, { level: 0 }).subarray(0, 15 + 590));
    const r = await runCli(["map", "--crossmap", omopToFhir, "person.ndjson.gz"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(`${tenExpected.split("\n").slice(0, 6).join("\n")}\n`);
    expect(untimed(r.stderr)).toBe(
      tenIssues("person.ndjson.gz") +
        "person.ndjson.gz:8: error malformed_json: malformed JSON: Unterminated string in JSON at position 72\n" +
        "person.ndjson.gz: error invalid_gzip: the gzip data is corrupt or cut short (unexpected end of file) after 590 bytes of decompressed input; the rest is not read\n" +
        "crossmap map: 9 in, 6 out, 3 failed, 4 with errors, 0 warnings; issues: malformed_json 2, unmapped_value 1, invalid_gzip 1; T s\n",
    );
  });

  it("reads gzip HL7 v2 files, named .hl7.gz or found in a folder", async () => {
    const dir = tmp();
    const sample = readFileSync(join(repoRoot, "test/fixtures/hl7v2/samples/ADT-A01-02.hl7"));
    mkdirSync(join(dir, "in"));
    writeFileSync(join(dir, "a.hl7"), sample);
    writeFileSync(join(dir, "in", "a.hl7.gz"), gzipSync(sample));
    const plain = await runCli(["map", "-q", "--from", "hl7v2_2.5.1", "--to", "fhir_r4", "a.hl7"], {
      cwd: dir,
    });
    const zipped = await runCli(["map", "-q", "--from", "hl7v2_2.5.1", "--to", "fhir_r4", "in/a.hl7.gz"], {
      cwd: dir,
    });
    const folder = await runCli(["map", "-q", "--to", "fhir_r4", "--from", "hl7v2_2.5.1", "in"], {
      cwd: dir,
    });
    expect(plain.stdout).toMatch(/^\{"resourceType":"Bundle"/);
    expect([zipped.code, zipped.stdout]).toEqual([plain.code, plain.stdout]);
    expect([folder.code, folder.stdout]).toEqual([plain.code, plain.stdout]);
  });
});

describe("a dangling symbolic link in an input folder", () => {
  it("is one unreadable_file issue; the other tables are mapped; exit 1", async () => {
    const dir = tmp();
    const input = join(dir, "omop");
    mkdirSync(input);
    writeFileSync(join(input, "PERSON.csv"), readFileSync(join(fixtures, "synthea27nj", "PERSON.csv")));
    symlinkSync(join(dir, "gone", "CONDITION_OCCURRENCE.csv"), join(input, "CONDITION_OCCURRENCE.csv"));
    const r = await runCli(["map", "--crossmap", omopToFhir, "--errors", "errors.ndjson", "omop"], {
      cwd: dir,
    });
    expect(r.code).toBe(1);
    expect(r.stdout.trimEnd().split("\n").length).toBe(28);
    expect(untimed(r.stderr)).toBe(
      "crossmap map: 29 in, 28 out, 1 failed, 1 with errors, 1 warnings; issues: unreadable_file 1, unread_column 1; T s\n",
    );
    const issues = readFileSync(join(dir, "errors.ndjson"), "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { code: string });
    // The other issue: PERSON.csv's columns the small crossmap does not read.
    expect(issues.map((i) => i.code)).toEqual(["unreadable_file", "unread_column"]);
    expect(issues[0]).toEqual({
      file: "omop/CONDITION_OCCURRENCE.csv",
      code: "unreadable_file",
      severity: "error",
      message: `CONDITION_OCCURRENCE.csv is a symbolic link to ${join(dir, "gone", "CONDITION_OCCURRENCE.csv")}, which does not exist; nothing of it is read`,
    });
  });

  it("in a folder of HL7 v2 files, likewise", async () => {
    const dir = tmp();
    mkdirSync(join(dir, "in"));
    writeFileSync(
      join(dir, "in", "a.hl7"),
      readFileSync(join(repoRoot, "test/fixtures/hl7v2/samples/ADT-A01-02.hl7")),
    );
    symlinkSync(join(dir, "gone.hl7"), join(dir, "in", "b.hl7"));
    const r = await runCli(["map", "--from", "hl7v2_2.5.1", "--to", "fhir_r4", "in"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^\{"resourceType":"Bundle".*\n$/);
    expect(untimed(r.stderr)).toContain(
      `in/b.hl7: error unreadable_file: cannot read in/b.hl7: ENOENT: no such file or directory, open 'in/b.hl7'; nothing of it is read\n`,
    );
  });
});

describe("one byte that is not UTF-8 in a FHIR Bundle", () => {
  /** Three Patients; the second one's name holds the byte 0xff unless `clean`. */
  const bundle = (space?: number, clean = false) =>
    Buffer.from(
      JSON.stringify(
        {
          resourceType: "Bundle",
          type: "collection",
          entry: [0, 1, 2].map((i) => ({
            resource: {
              resourceType: "Patient",
              id: `p${i}`,
              gender: "female",
              name: [{ family: `NAME${i}` }],
            },
          })),
        },
        null,
        space,
      ).replace("NAME1", clean ? "NAME1" : "NA\u00ffME1"),
      "latin1",
    );

  it("loses only that entry, on one line as when pretty-printed", async () => {
    const dir = tmp();
    writeFileSync(join(dir, "pretty.json"), bundle(2));
    // Two Bundles one per line, the first with the bad byte.
    writeFileSync(
      join(dir, "lines.ndjson"),
      Buffer.concat([bundle(), Buffer.from("\n"), bundle(undefined, true), Buffer.from("\n")]),
    );
    const args = ["map", "--crossmap", join(fixtures, "fhir-to-omop.yaml"), "--format", "fhir-bundle"];
    const pretty = await runCli([...args, "pretty.json"], { cwd: dir });
    const lines = await runCli([...args, "lines.ndjson"], { cwd: dir });
    const ids = (out: string) =>
      out
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l).person_id);
    expect([pretty.code, ids(pretty.stdout)]).toEqual([1, ["p0", "p2"]]);
    const unread = (where: string) =>
      `${where} entry[0]: warning unread_column at Patient.name: not read by the fhir_r4 -> omop_cdm_v5.4 crossmap: the values in this file are not mapped (reported once per file and entity)\n`;
    expect(untimed(pretty.stderr)).toBe(
      unread("pretty.json") +
        "pretty.json entry[1]: error invalid_utf8: invalid UTF-8 (0xff) in the element; the record is not read (the input must be UTF-8)\n" +
        "crossmap map: 3 in, 2 out, 1 failed, 1 with errors, 1 warnings; issues: unread_column 1, invalid_utf8 1; T s\n",
    );
    expect([lines.code, ids(lines.stdout)]).toEqual([1, ["p0", "p2", "p0", "p1", "p2"]]);
    expect(untimed(lines.stderr)).toBe(
      unread("lines.ndjson:1") +
        "lines.ndjson:1 entry[1]: error invalid_utf8: invalid UTF-8 (0xff) in the element; the record is not read (the input must be UTF-8)\n" +
        "crossmap map: 6 in, 5 out, 1 failed, 1 with errors, 1 warnings; issues: unread_column 1, invalid_utf8 1; T s\n",
    );
  });
});

describe("a transaction or batch Bundle as FHIR clients write it", () => {
  // New resources have no id: their fullUrl (urn:uuid) names them, and the other entries' references use it.
  const patient = "urn:uuid:11111111-1111-4111-8111-111111111111";
  const transaction = {
    resourceType: "Bundle",
    type: "transaction",
    entry: [
      { request: { method: "DELETE", url: "Patient/old" } },
      {
        fullUrl: patient,
        resource: { resourceType: "Patient", gender: "female", birthDate: "1990-01-01" },
        request: { method: "POST", url: "Patient" },
      },
      {
        fullUrl: "urn:uuid:22222222-2222-4222-8222-222222222222",
        resource: {
          resourceType: "Condition",
          subject: { reference: patient },
          code: { coding: [{ system: "http://snomed.info/sct", code: "44054006" }] },
          onsetDateTime: "2020-01-01",
        },
        request: { method: "POST", url: "Condition" },
      },
    ],
  };

  it("maps each resource with the id of its fullUrl, so the rows have keys and the references meet; a request without a resource is left out with a warning", async () => {
    const dir = tmp();
    writeFileSync(join(dir, "transaction.json"), JSON.stringify(transaction, null, 2));
    const r = await runCli(
      ["map", "--from", "fhir_r4", "--to", "omop_cdm_v5.4", "--format", "fhir-bundle", "transaction.json"],
      { cwd: dir },
    );
    expect(r.code).toBe(0);
    // The ids as written (64-bit: JSON.parse would round them).
    const [person, condition] = r.stdout.trimEnd().split("\n");
    const key = (line: string | undefined, name: string) =>
      new RegExp(`"${name}":(\\d+)`).exec(line ?? "")?.[1];
    expect(person).toContain('"person_source_value":"11111111-1111-4111-8111-111111111111"');
    expect(key(person, "person_id")).toMatch(/^\d+$/);
    expect(key(condition, "condition_occurrence_id")).toMatch(/^\d+$/);
    expect(key(condition, "person_id")).toBe(key(person, "person_id"));
    expect(untimed(r.stderr)).toBe(
      "transaction.json entry[0]: warning skipped_entry: a DELETE Patient/old request without a resource: nothing to map, left out\n" +
        "crossmap map: 2 in, 2 out, 0 failed, 0 with errors, 1 warnings; issues: skipped_entry 1; skipped: DELETE request 1; T s\n",
    );
  });
});
