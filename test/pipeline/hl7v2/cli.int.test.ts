// `crossmap map --format hl7v2` through the built binary, as a user runs it.
import { readFile } from "node:fs/promises";
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
    // The visit has no visit number (PV1-19): its Encounter keeps the message's id, said so.
    expect(r.stderr).toMatch(
      /^- message 2 segment 3 \(PV1\): warning no_identity at PV1 -> Encounter\.id: Encounter: no business identifier is present \(PV1\.19\.1 \+ PV1\.19\.4, PV1\.19\.1 \+ \$ctx\.msh\.4, PV1\.19\.1\); the id is the source record's own id instead\ncrossmap map: 2 messages -> 2 Bundles, 0 malformed; 5 segments in, 5 resources out, 0 failed, 0 with errors, 1 warnings; issues: no_identity 1; \d+\.\d\d s\n$/,
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

  // A document whose text is two OBX lines: the first crossmap gathers them into the DocumentReference.
  const MDM = [
    "MSH|^~\\&|A|B|||200801311600+0215||MDM^T02^MDM_T02|7|P|2.5.1",
    "PID|1||987654321^^^H^MR||PROSOLV^SAMPLE||19721201|M",
    "TXA|1|DI|TX|200801311555+0215||200801311600+0215||||||DOC-1|||||AU",
    "OBX|1|TX|||Toilet cylinder crackers||||||F",
    "OBX|2|TX|||Columnist draft inn||||||F",
  ].join("\r");

  it("gathers a message's text lines into its document before the next crossmap maps it: one note", async () => {
    const r = await runCli(
      ["map", "--from", "hl7v2_2.5.1", "--via", "fhir_r4", "--to", "omop_cdm_v5.4", "-q"],
      { stdin: `${MDM}\r` },
    );
    expect(r.code).toBe(0);
    const rows = (JSON.parse(r.stdout) as { entry: { resource: Record<string, unknown> }[] }).entry.map(
      (e) => e.resource,
    );
    const notes = rows.filter((row) => "note_id" in row);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({
      note_text: "Toilet cylinder crackers\nColumnist draft inn",
      note_title: "DOC-1",
      note_date: "2008-01-31",
    });
    // The lines are in the note, not left over as orphans or rows of their own.
    expect(r.stderr).not.toMatch(/orphan_record|unknown_entity/);
  });

  it("refuses a gathering first crossmap where the input has no message to gather within", async () => {
    const r = await runCli(
      ["map", "--from", "hl7v2_2.5.1", "--via", "fhir_r4", "--to", "omop_cdm_v5.4", "--format", "ndjson"],
      { stdin: "" },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "crossmap: crossmap hl7v2_2.5.1-to-fhir_r4.yaml gathers records into others; only the last crossmap of a --via chain may gather\n",
    );
  });
});

describe("crossmap map --format hl7v2: gathering within each message", () => {
  it("writes a document's TX lines into its DocumentReference, as the library does", async () => {
    const r = await runCli([
      "map",
      "--from",
      "hl7v2_2.5.1",
      "--to",
      "fhir_r4",
      "test/fixtures/hl7v2/samples/MDM-T02-02.hl7",
    ]);
    expect(r.stderr).not.toMatch(/orphan_record/);
    const bundle = JSON.parse(r.stdout) as { entry: { resource: Record<string, unknown> }[] };
    // The CLI writes the same Bundle as the library (the golden file).
    const golden = JSON.parse(await readFile("test/golden/hl7v2-samples/MDM-T02-02.json", "utf8")) as {
      bundle: unknown;
    }[];
    expect(bundle).toEqual(golden[0]?.bundle);
    const doc = bundle.entry.find((e) => e.resource.resourceType === "DocumentReference")?.resource as {
      content: { attachment: { data: string } }[];
    };
    expect(Buffer.from(doc.content[0]?.attachment.data ?? "", "base64").toString()).toBe(
      "Toilet cylinder crackers model step-mother visor opening communication\nColumnist draft inn brown income ikebana circulation prince",
    );
  });
});
