// What reading HL7 v2 text finds wrong is said, through the CLI as a user runs it: invalid UTF-8 is an
// error issue naming the field (not a silent U+FFFD), an escape that is no HL7 one is kept as written with
// a warning and does not shift the rest of the field, characters FHIR strings forbid (`\X00\`, a raw
// U+0001) are left out with a warning, and 2 MB of random bytes is one malformed stretch, not 15,000 failures.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../cli/run-cli.js";

const FHIR = ["map", "--from", "hl7v2_2.5.1", "--to", "fhir_r4"];
let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "crossmap-hl7v2-problems-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A small deterministic generator (mulberry32): the same "random" bytes on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("crossmap map --format hl7v2: problems in the text", () => {
  it("reports invalid UTF-8, a bad escape and forbidden characters on their fields, and keeps the rest", async () => {
    const message = Buffer.concat([
      Buffer.from("MSH|^~\\&|A|B|||20240101||ADT^A01|1|P|2.5.1\rPID|1||42^^^H^MR||DOE"),
      Buffer.from([0xff]),
      Buffer.from("^JO\\Xzz\\ \\F\\ X\\X00\\Y|||M\u0001\r"),
    ]);
    const errors = join(dir, "errors.ndjson");
    const r = await runCli([...FHIR, "--errors", errors], { stdin: message });
    expect(r.code).toBe(1);
    const issues = (await readFile(errors, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const where = { file: "-", message_index: 1, segment: 2, segment_type: "PID" };
    expect(issues).toEqual([
      {
        ...where,
        field: "PID.5",
        code: "invalid_utf8",
        severity: "error",
        message: "invalid UTF-8 (0xff); read as U+FFFD (the input must be UTF-8)",
      },
      {
        ...where,
        field: "PID.8",
        code: "invalid_character",
        severity: "warning",
        message: "U+0001, which FHIR strings may not hold, left out",
      },
      {
        ...where,
        field: "PID.5",
        code: "invalid_escape",
        severity: "warning",
        message: '"\\Xzz\\" is not an HL7 escape sequence; kept as written',
      },
      {
        ...where,
        field: "PID.5",
        code: "invalid_character",
        severity: "warning",
        message: "\\X00\\ stands for U+0000, which FHIR strings may not hold; left out",
      },
    ]);
    const bundle = JSON.parse(r.stdout) as { entry: { resource: Record<string, unknown> }[] };
    const patient = bundle.entry.map((e) => e.resource).find((x) => x.resourceType === "Patient");
    expect([patient?.name, patient?.gender]).toEqual([
      [{ family: "DOE\uFFFD", given: ["JO\\Xzz\\ | XY"] }],
      "male",
    ]);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may be written.
    expect(r.stdout).not.toMatch(/\\u000[01]|[\u0000-\u0008]/);
  });

  it("reads 2 MB of random bytes as one stretch of lines that is no message, not thousands of failures", async () => {
    const next = random(7);
    const bytes = Buffer.alloc(2_000_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(next() * 256);
    const summary = join(dir, "summary.json");
    const r = await runCli([...FHIR, "--summary", summary], { stdin: bytes });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    const s = JSON.parse(await readFile(summary, "utf8"));
    expect([s.messages, s.bundles, s.records_in, s.records_failed, s.issues_by_code]).toEqual([
      1,
      0,
      0,
      1,
      { malformed_message: 1 },
    ]);
    expect(s.malformed_messages).toHaveLength(1);
    expect(s.malformed_messages[0].message).toMatch(
      /^\d{4,} lines from line 1 are no HL7 v2 message: no MSH segment starts them \(the first begins ".*"\); not read$/,
    );
  });
});
