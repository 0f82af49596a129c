// `crossmap map --format hl7v2` through the built binary, as a user runs it.
import { describe, expect, it } from "vitest";
import { runCli } from "../../cli/run-cli.js";

const MLLP = Buffer.from(
  "\u000bMSH|^~\\&|A|B|||20240101||ADT^A01|1|P|2.5.1\rPID|1||9||DOE^J\r\u001c\r" +
    "\u000bMSH|^~\\&|A|B|||20240101||ADT^A04|2|P|2.5.1\rPID|1||8||ROE^K\rPV1|1|O\r\u001c\r",
);

describe("crossmap map --format hl7v2", () => {
  it("reads MLLP-framed messages on stdin and writes one transaction Bundle per message", async () => {
    const r = await runCli(["map", "--from", "hl7v2_2.5.1", "--to", "fhir_r4", "--bundle", "transaction"], {
      stdin: MLLP,
    });
    expect(r.code).toBe(0);
    const bundles = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; entry: { resource: { resourceType: string } }[] });
    expect(bundles.map((b) => [b.type, b.entry.map((e) => e.resource.resourceType)])).toEqual([
      ["transaction", ["MessageHeader", "Patient"]],
      ["transaction", ["MessageHeader", "Patient", "Encounter"]],
    ]);
    expect(r.stderr).toMatch(
      /^crossmap map: 2 messages -> 2 Bundles, 0 malformed; 5 segments in, 5 resources out, 0 failed, 0 with errors, 0 warnings; \d+\.\d\d s\n$/,
    );
  });

  it("refuses an unwritable output with exit 2 before reading anything", async () => {
    const r = await runCli([
      "map",
      "--from",
      "hl7v2_2.5.1",
      "--to",
      "fhir_r4",
      "test/missing.hl7",
      "-o",
      "/nonexistent/dir/out.ndjson",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "crossmap: -o/--output /nonexistent/dir/out.ndjson: cannot write it: no such directory\n",
    );
  });

  it("names a missing input with exit 2", async () => {
    const r = await runCli(["map", "--from", "hl7v2_2.5.1", "--to", "fhir_r4", "test/missing.hl7"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("crossmap: cannot read test/missing.hl7: no such file\n");
  });
});

describe("crossmap map --format hl7v2 --via", () => {
  it("chains HL7 v2 -> FHIR -> OMOP, writing rows per table with 64-bit ids intact", async () => {
    const stdin = ["9^^^H^MR||DOE^J||19800101|M", "8^^^H^MR||ROE^K||19910202|F"]
      .map((pid, i) => `MSH|^~\\&|A|B|||20240101||ADT^A04|${i}|P|2.5.1\rPID|1||${pid}\r`)
      .join("");
    const r = await runCli(
      ["map", "--from", "hl7v2_2.5.1", "--via", "fhir_r4", "--to", "omop_cdm_v5.4", "-q"],
      { stdin },
    );
    expect(r.code).toBe(0);
    const persons = r.stdout
      .trim()
      .split("\n")
      .map((l) => /"person_id":(\d+)/.exec(l)?.[1]);
    expect(persons).toHaveLength(2);
    for (const id of persons) expect(id).toMatch(/^\d{6,19}$/);
  });
});
