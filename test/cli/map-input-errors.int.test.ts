// `crossmap map` on broken input, as a user meets it: a CSV quote left open, short rows, bytes that are
// not UTF-8, one enormous line, a signal mid-run, a --via chain with a gap, a Bundle read as NDJSON.
// Every case: the exact issue, the records around it mapped, the exact exit code.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot, runCli } from "./run-cli.js";

const fixtures = join(repoRoot, "test/fixtures/map");
const omopToFhir = join(fixtures, "omop-to-fhir.yaml");
const fhirToOmop = join(fixtures, "fhir-to-omop.yaml");
const tmp = () => mkdtempSync(join(tmpdir(), "crossmap-input-"));
const untimed = (stderr: string) => stderr.replace(/; [\d.]+ s, \d+ records\/s/g, "; T s, R records/s");
const map = ["map", "--crossmap", omopToFhir];
const UNREAD =
  "not read by the omop_cdm_v5.4 -> fhir_r4 crossmap: the values in this file are not mapped (reported once per file and entity)";

describe("F11: CSV quotes and short rows", () => {
  it("reports an unterminated quote at the line it opened on and maps the rows after it (4 in, 3 out)", async () => {
    const dir = tmp();
    writeFileSync(
      join(dir, "person.csv"),
      'person_id,gender_concept_id,person_source_value\n1,8507,"abc\n2,8532,def\n3,8507,ghi\n4,8532,jkl\n',
    );
    const r = await runCli([...map, "person.csv"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(
      r.stdout
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l).id),
    ).toEqual(["2", "3", "4"]);
    expect(untimed(r.stderr)).toBe(
      "person.csv:2: error unterminated_quote: the quote that opens a cell on line 2 is not closed where its row should end; that row is not read, and the lines after line 2 are read again\n" +
        // The test crossmap does not read person_source_value: named once, at the first row read.
        `person.csv:3: warning unread_column at person.person_source_value: ${UNREAD}\n` +
        "crossmap map: 4 in, 3 out, 1 failed, 1 with errors, 1 warnings; issues: unterminated_quote 1, unread_column 1; T s, R records/s\n",
    );
  });

  it("reports a row with fewer cells than the header, as it does one with more", async () => {
    const dir = tmp();
    writeFileSync(join(dir, "person.csv"), "person_id,gender_concept_id\n1,8507\n2\n3,8532,x\n4,8532\n");
    const r = await runCli([...map, "-q", "person.csv"], { cwd: dir });
    expect(r).toEqual({
      code: 1,
      stdout:
        '{"resourceType":"Patient","id":"1","gender":"male"}\n{"resourceType":"Patient","id":"4","gender":"female"}\n',
      stderr:
        "person.csv:3: error invalid_record: the row has 1 cell(s), the header 2\n" +
        "person.csv:4: error invalid_record: the row has 1 more cell(s) than the header\n",
    });
  });
});

describe("F12: bytes that are not UTF-8", () => {
  const latin1 = (text: string) => Buffer.from(text, "latin1");

  it("reports the NDJSON line, with the byte, and maps the others (also in a worker)", async () => {
    const input = Buffer.concat([
      Buffer.from('{"person_id": 1, "gender_concept_id": 8507}\n'),
      latin1('{"person_id": 2, "person_source_value": "Müller"}\n'),
      Buffer.from('{"person_id": 3, "person_source_value": "M\u00fcller \ufffd"}\n'),
    ]);
    for (const workers of ["1", "2"]) {
      const dir = tmp();
      const r = await runCli(
        [...map, "--entity", "person", "--workers", workers, "-q", "--errors", join(dir, "e.ndjson")],
        { stdin: input },
      );
      expect(r.code).toBe(1);
      expect(r.stdout).toBe(
        '{"resourceType":"Patient","id":"1","gender":"male"}\n{"resourceType":"Patient","id":"3"}\n',
      );
      expect(readFileSync(join(dir, "e.ndjson"), "utf8")).toBe(
        '{"file":"-","line":2,"code":"invalid_utf8","severity":"error","message":"invalid UTF-8 (0xfc) at byte 43 of the line; the record is not read (the input must be UTF-8)"}\n' +
          `{"file":"-","line":3,"entity":"person","field":"person.person_source_value","code":"unread_column","severity":"warning","message":"${UNREAD}"}\n`,
      );
    }
  });

  it("reports the CSV row", async () => {
    const dir = tmp();
    writeFileSync(join(dir, "person.csv"), latin1("person_id,person_source_value\n1,a\n2,Müller\n3,c\n"));
    const r = await runCli([...map, "-q", "person.csv"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(
      r.stdout
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l).id),
    ).toEqual(["1", "3"]);
    // -q: the error only (the unread person_source_value is a warning, counted, not printed).
    expect(r.stderr).toBe(
      "person.csv:3: error invalid_utf8: invalid UTF-8 (0xfc) in the row; the record is not read (the input must be UTF-8)\n",
    );
  });
});

describe("F13: a record over the per-record limit", () => {
  it("reports a 17 MB line (default limit 16 MiB), maps the lines after it, and completes the summary", async () => {
    const dir = tmp();
    const huge = `{"person_id": 2, "person_source_value": "${"x".repeat(17 * 2 ** 20)}"}\n`;
    const input = `{"person_id": 1}\n${huge}{"person_id": 3}\n`;
    const r = await runCli(
      [
        ...map,
        "--entity",
        "person",
        "--workers",
        "2",
        "--summary",
        join(dir, "s.json"),
        "--errors",
        join(dir, "e.ndjson"),
      ],
      { stdin: input },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('{"resourceType":"Patient","id":"1"}\n{"resourceType":"Patient","id":"3"}\n');
    expect(readFileSync(join(dir, "e.ndjson"), "utf8")).toBe(
      `{"file":"-","line":2,"code":"record_too_large","severity":"error","message":"the line is ${huge.length - 1} bytes long, over the limit of 16 MiB (--max-record-bytes) per record; it is not read"}\n`,
    );
    expect(JSON.parse(readFileSync(join(dir, "s.json"), "utf8"))).toMatchObject({
      records_in: 3,
      records_out: 2,
      records_failed: 1,
      issues_by_code: { record_too_large: 1 },
      completed: true,
    });
  });

  it("takes another limit from --max-record-bytes, and refuses a nonsense one", async () => {
    const r = await runCli([...map, "--entity", "person", "-q", "--max-record-bytes", "1k"], {
      stdin: `{"person_id": 1, "x": "${"y".repeat(2000)}"}\n{"person_id": 2}\n`,
    });
    expect(r).toEqual({
      code: 1,
      stdout: '{"resourceType":"Patient","id":"2"}\n',
      stderr:
        "-:1: error record_too_large: the line is 2025 bytes long, over the limit of 1024 bytes (--max-record-bytes) per record; it is not read\n",
    });
    const bad = await runCli([...map, "--max-record-bytes", "lots"]);
    expect(bad).toEqual({
      code: 2,
      stdout: "",
      stderr: 'crossmap: --max-record-bytes must be a size from 1K to 512M (e.g. 64M), got "lots"\n',
    });
  });
});

/** Starts a map that reads stdin, feeds it records until its output file exists, then sends `signal`. */
async function interrupted(signal: NodeJS.Signals, outArgs: (dir: string) => string[]) {
  const dir = tmp();
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [
      join(repoRoot, "bin/crossmap.js"),
      ...map,
      "--entity",
      "person",
      ...outArgs(dir),
      "--errors",
      join(dir, "errors.ndjson"),
      "--summary",
      join(dir, "summary.json"),
    ],
    { cwd: dir },
  );
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  child.stdout.resume();
  child.stdin.on("error", () => {});
  // Records keep coming (stdin stays open) until the output file exists: the run is mid-way.
  const rows = Array.from(
    { length: 2000 },
    (_, i) => `{"person_id": ${i}, "gender_concept_id": ${i % 2 ? 8507 : 0}}\n`,
  );
  const text = rows.join("");
  const feed = setInterval(() => child.stdin.write(text), 20);
  const code = await new Promise<number | null>((resolve) => {
    child.on("close", (c) => {
      clearInterval(feed);
      resolve(c);
    });
    const poll = setInterval(() => {
      const files = readdirSync(dir);
      const out = existsSync(join(dir, "out")) ? readdirSync(join(dir, "out")) : [];
      if (files.some((f) => f.endsWith(".tmp")) || out.length > 0) {
        clearInterval(poll);
        child.kill(signal);
      }
    }, 50);
  });
  return { code, stderr, dir };
}

describe("F14: SIGINT and SIGTERM", () => {
  it("on SIGINT removes the temporary files, completes summary and errors, says so, exits 130", async () => {
    const { code, stderr, dir } = await interrupted("SIGINT", (d) => ["--out-dir", join(d, "out")]);
    expect(code).toBe(130);
    expect(readdirSync(join(dir, "out"))).toEqual([]);
    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
    expect(summary).toMatchObject({ completed: false, interrupted: "SIGINT" });
    expect(summary.records_in).toBeGreaterThan(0);
    const issues = readFileSync(join(dir, "errors.ndjson"), "utf8").split("\n");
    expect(issues.pop()).toBe("");
    expect(issues.map((l) => JSON.parse(l).code)).toEqual(issues.map(() => "unmapped_value"));
    expect(issues).toHaveLength(summary.errors);
    expect(stderr.split("\n").at(-2)).toBe(
      `crossmap: interrupted by SIGINT after ${summary.records_in} records; output not published (temporary files removed); the summary and errors cover what was done`,
    );
  });

  it("on SIGTERM does the same for -o and exits 143", async () => {
    const { code, stderr, dir } = await interrupted("SIGTERM", (d) => ["-o", join(d, "out.ndjson"), "-q"]);
    expect(code).toBe(143);
    expect(readdirSync(dir).sort()).toEqual(["errors.ndjson", "summary.json"]);
    expect(JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"))).toMatchObject({
      interrupted: "SIGTERM",
    });
    expect(stderr).toMatch(/^crossmap: interrupted by SIGTERM after \d+ records; output not published/);
  });
});

describe("other things a new user hits", () => {
  it("--via maps what the second crossmap covers and reports, per record, what it does not", async () => {
    const dir = tmp();
    writeFileSync(join(dir, "person.ndjson"), '{"person_id": 1, "gender_concept_id": 8532}\n');
    writeFileSync(
      join(dir, "condition_occurrence.ndjson"),
      '{"condition_occurrence_id": 5, "person_id": 1}\n{"condition_occurrence_id": 6, "person_id": 1}\n',
    );
    const r = await runCli(
      ["map", "--crossmap", omopToFhir, "--crossmap", fhirToOmop, "--via", "fhir_r4", dir],
      { cwd: dir },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('{"person_id":"1","gender_concept_id":8532}\n');
    const gap =
      'crossmap fhir-to-omop.yaml has no mapping for fhir_r4 entity "Condition", which crossmap omop-to-fhir.yaml makes of omop_cdm_v5.4 entity "condition_occurrence"';
    expect(untimed(r.stderr)).toBe(
      `crossmap map: --via: ${gap}; records of condition_occurrence will be reported, not mapped\n` +
        `${dir}/condition_occurrence.ndjson:1: error unmapped_entity: ${gap}; the record is not mapped\n` +
        `${dir}/condition_occurrence.ndjson:2: error unmapped_entity: ${gap}; the record is not mapped\n` +
        "crossmap map: 3 in, 1 out, 2 failed, 2 with errors, 0 warnings; issues: unmapped_entity 2; T s, R records/s\n",
    );
  });

  it("gives one hint, not one malformed_json per line, for a Bundle or an array read as NDJSON", async () => {
    const bundle = join(fixtures, "two-patients.bundle.json");
    const r = await runCli(["map", "--crossmap", fhirToOmop, "-q", bundle]);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: `${bundle}:1: error not_ndjson: the input is one JSON document over several lines, not NDJSON (one record per line); it looks like a FHIR Bundle: give --format fhir-bundle to map its entries; nothing of it is read\n`,
    });
    const array = await runCli(["map", "--crossmap", fhirToOmop, "-q"], {
      stdin: '[\n  {"resourceType": "Patient", "id": "1"}\n]\n',
    });
    expect(array.stderr).toBe(
      "-:1: error not_ndjson: the input is one JSON document over several lines, not NDJSON (one record per line); it looks like a JSON array: give --format json-array to map its elements; nothing of it is read\n",
    );
  });

  it("gives one hint, not one malformed_json per row, for CSV read as NDJSON (stdin, or a name without .csv)", async () => {
    const csv = "person_id,gender_concept_id,year_of_birth\n1,8532,1970\n2,8507,1980\n";
    const r = await runCli(["map", "--crossmap", omopToFhir, "-q"], { stdin: csv });
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "-:1: error not_ndjson: the input is not NDJSON: its first line is a CSV header row (person_id,gender_concept_id,year_of_birth); give --format csv and --entity to map its rows; nothing of it is read\n",
    });
    const dir = tmp();
    writeFileSync(join(dir, "person.txt"), csv.replaceAll(",", "\t"));
    const named = await runCli([
      "map",
      "--crossmap",
      omopToFhir,
      "--entity",
      "person",
      "-q",
      join(dir, "person.txt"),
    ]);
    expect(named.stderr).toBe(
      `${join(dir, "person.txt")}:1: error not_ndjson: the input is not NDJSON: its first line is a CSV header row (person_id\tgender_concept_id\tyear_of_birth); give --format csv to map its rows; nothing of it is read\n`,
    );
    const mapped = await runCli(
      ["map", "--crossmap", omopToFhir, "--entity", "person", "--format", "csv", "-q"],
      {
        stdin: csv,
      },
    );
    expect(mapped.code).toBe(0);
    expect(mapped.stdout.split("\n").filter((l) => l !== "")).toHaveLength(2);
  });

  it("maps a JSON array with --format json-array, with each element's index in its issues", async () => {
    const r = await runCli(["map", "--crossmap", fhirToOmop, "--format", "json-array", "-q"], {
      stdin:
        '[\n {"resourceType": "Patient", "id": 9223372036854775807, "gender": "female"},\n 7,\n {"resourceType": "Patient", "id": "2"}\n]\n',
    });
    expect(r).toEqual({
      code: 1,
      stdout: '{"person_id":9223372036854775807,"gender_concept_id":8532}\n{"person_id":"2"}\n',
      stderr: "- entry[1]: error invalid_record: expected a JSON object, got a number\n",
    });
  });
});
