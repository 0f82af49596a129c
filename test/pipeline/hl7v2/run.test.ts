import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { beforeAll, describe, expect, it } from "vitest";
import { findBuiltinCrossmap } from "../../../src/crossmap/catalog.js";
import { defaultsToEr7 } from "../../../src/pipeline/hl7v2/command.js";
import { type Hl7v2RunOptions, runHl7v2 } from "../../../src/pipeline/hl7v2/run.js";
import { loadPlan, type PlanSpec } from "../../../src/pipeline/load-plan.js";
import type { MappingPlan } from "../../../src/pipeline/plan.js";
import { runCli } from "../../cli/run-cli.js";

const MSH = "MSH|^~\\&|APP|FAC|||20240101120000+0100||ORU^R01|1|P|2.5.1";
const GOOD = `${MSH}\rPID|1||42^^^H^MR||DOE^JO\rOBX|1|NM|8302-2^Height^LN||180|cm^^UCUM|||||F\rNTE|1||note\rZPI|1\r`;
const BAD = `${MSH}\rPID|1\rnot a segment\r`;
const NO_CODE = `${MSH}\rPID|1||7\rOBX|1|ST|||x||||||F\r`;

let planSpec: PlanSpec;
let plan: MappingPlan;
let dir: string;
beforeAll(async () => {
  planSpec = { crossmaps: [findBuiltinCrossmap("hl7v2_2.5.1", "fhir_r4")?.path ?? ""] };
  plan = await loadPlan(planSpec, undefined, () => true);
  dir = mkdtempSync(join(tmpdir(), "hl7run-"));
  writeFileSync(join(dir, "a.hl7"), `${GOOD}\n${BAD}\n${GOOD.replace("DOE", "ROE")}`);
  writeFileSync(join(dir, "b.hl7"), NO_CODE);
  writeFileSync(join(dir, "ignored.json"), "{}");
});

async function run(over: Partial<Hl7v2RunOptions>) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const chunks: string[] = [];
  const errs: string[] = [];
  stdout.on("data", (c) => chunks.push(String(c)));
  stderr.on("data", (c) => errs.push(String(c)));
  const result = await runHl7v2({
    plan,
    planSpec,
    inputs: [dir],
    bundle: "collection",
    output: { kind: "stdout" },
    onError: "skip",
    stdin: Readable.from([]),
    stdout,
    stderr,
    ...over,
  });
  return { ...result, stdout: chunks.join(""), stderr: errs.join("") };
}

describe("runHl7v2", () => {
  it("writes one Bundle per good message, reports the malformed one and goes on", async () => {
    const r = await run({});
    const bundles = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; entry: unknown[] });
    expect(bundles.map((b) => [b.type, b.entry.length])).toEqual([
      ["collection", 3],
      ["collection", 3],
      ["collection", 2],
    ]);
    expect(r.summary).toMatchObject({
      records_in: 13,
      records_out: 8,
      records_failed: 4,
      errors: 1,
      // The unmapped ZPIs, and two Observations without an identifier (they keep message ids).
      warnings: 4,
      skipped: { ZPI: 2 },
      issues_by_code: { malformed_message: 1, missing_required: 1, no_identity: 2, unmapped_segment: 2 },
      completed: true,
      messages: 4,
      bundles: 3,
    });
    expect(r.summary.malformed_messages).toEqual([
      {
        file: join(dir, "a.hl7"),
        index: 2,
        segment: 3,
        segmentType: "not",
        line: 8,
        message: '"not a segment" is not a segment: expected a 3-character id and "|"',
      },
    ]);
    const unmapped = (file: string, m: number, s: number, type: string) =>
      `${join(dir, file)} message ${m} segment ${s} (${type}): warning unmapped_segment: segment ${type} is not mapped by the crossmap; its content is not in the Bundle`;
    // Observations without an order, a visit number or a time: their ids are the message's, said so (not of
    // the one left out for its missing code).
    const noIdentity = (file: string, m: number) =>
      `${join(dir, file)} message ${m} segment 3 (OBX): warning no_identity at OBX -> Observation.id: Observation: no business identifier is present ($ctx.seg.ORC.3.1 + OBX.3.1, $ctx.seg.OBR.3.1 + OBX.3.1, $ctx.seg.ORC.2.1 + OBX.3.1, $ctx.seg.OBR.2.1 + OBX.3.1, $ctx.seg.PV1.19.1 + OBX.3.1, $ctx.seg.PID.3.1 + OBX.3.1 + OBX.14); the id is the source record's own id instead`;
    expect(r.stderr.split("\n")).toEqual([
      noIdentity("a.hl7", 1),
      unmapped("a.hl7", 1, 5, "ZPI"),
      `${join(dir, "a.hl7")} message 2 segment 3 (not) line 8: error malformed_message: "not a segment" is not a segment: expected a 3-character id and "|"`,
      noIdentity("a.hl7", 3),
      unmapped("a.hl7", 3, 5, "ZPI"),
      `${join(dir, "b.hl7")} message 1 segment 3 (OBX): error missing_required at OBX.3 -> Observation.code: required field OBX.3 is absent`,
      "",
    ]);
  });

  it("writes transaction Bundles", async () => {
    const r = await run({ bundle: "transaction", inputs: [join(dir, "b.hl7")] });
    const b = JSON.parse(r.stdout) as { type: string; entry: { request: { method: string; url: string } }[] };
    expect(b.type).toBe("transaction");
    expect(b.entry[1]?.request.method).toBe("PUT");
    expect(b.entry[1]?.request.url).toMatch(/^Patient\/[0-9a-f-]{36}$/);
  });

  it("writes NDJSON of resources per type into a folder, and issues as NDJSON", async () => {
    const out = join(dir, "out");
    const errorsFile = join(dir, "errors.ndjson");
    const r = await run({ output: { kind: "dir", path: out }, errorsFile });
    expect(readdirSync(out).sort()).toEqual(["MessageHeader.ndjson", "Observation.ndjson", "Patient.ndjson"]);
    expect(readFileSync(join(out, "Patient.ndjson"), "utf8").trim().split("\n")).toHaveLength(3);
    expect(r.stderr).toBe("");
    const issues = readFileSync(errorsFile, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(issues.find((i) => i.code === "missing_required")).toEqual({
      file: join(dir, "b.hl7"),
      message_index: 1,
      segment: 3,
      segment_type: "OBX",
      field: "OBX.3",
      target: "Observation.code",
      code: "missing_required",
      severity: "error",
      message: "required field OBX.3 is absent",
    });
  });

  it("stops at the first error with --on-error fail", async () => {
    const r = await run({ onError: "fail" });
    expect(r.fatal?.code).toBe("malformed_message");
    expect(r.summary).toMatchObject({ completed: false, messages: 2, bundles: 1 });
  });

  it("hands the identifier systems to worker threads as to this thread", async () => {
    const table = new Map([
      ["H", "http://h.example.org/mrn"],
      ["APP", "http://app.example.org/msg"],
    ]);
    // Batches of whole messages (~70 KB) coming slowly: the worker threads are up for the later ones.
    const chunk = Buffer.from(`${Array.from({ length: 500 }, () => GOOD).join("\n")}\n`);
    async function* slowly() {
      for (let i = 0; i < 8; i++) {
        yield chunk;
        await new Promise((resolve) => setTimeout(resolve, 400));
      }
    }
    const r = await run({
      inputs: ["-"],
      stdin: Readable.from(slowly()),
      workers: 2,
      workerUrl: new URL("../../../dist/pipeline/worker.js", import.meta.url),
      identifierSystems: table,
    });
    const bundles = r.stdout.trimEnd().split("\n");
    expect(bundles).toHaveLength(4000);
    const systems = new Set(
      bundles.map((line) => {
        const b = JSON.parse(line) as {
          identifier: { system: string };
          entry: { resource: { resourceType: string; identifier?: { system?: string }[] } }[];
        };
        const patient = b.entry.find((e) => e.resource.resourceType === "Patient")?.resource;
        return `${b.identifier.system} ${patient?.identifier?.[0]?.system}`;
      }),
    );
    expect([...systems]).toEqual(["http://app.example.org/msg http://h.example.org/mrn"]);
  });

  it("reads stdin", async () => {
    const r = await run({ inputs: ["-"], stdin: Readable.from([Buffer.from(GOOD)]) });
    expect(r.summary).toMatchObject({ messages: 1, bundles: 1, records_out: 3 });
  });
});

describe("crossmap map --format hl7v2 (the CLI)", () => {
  const MAP = ["map", "--from", "hl7v2_2.5.1", "--to", "fhir_r4"];
  it("prints the summary line and exits 1 when a message was malformed", async () => {
    const summaryFile = join(dir, "summary.json");
    const r = await runCli([...MAP, join(dir, "a.hl7"), "--summary", summaryFile, "--bundle", "transaction"]);
    expect(r.code).toBe(1);
    expect(r.stderr.split("\n").at(-2)).toMatch(
      /^crossmap map: 3 messages -> 2 Bundles, 1 malformed; 10 segments in, 6 resources out, 3 failed, 0 with errors, 4 warnings; issues: no_identity 2, unmapped_segment 2, malformed_message 1; unmapped segments: ZPI 2; \d+\.\d\d s$/,
    );
    expect(JSON.parse(readFileSync(summaryFile, "utf8"))).toMatchObject({ messages: 3, bundles: 2 });
  });
  it("makes unmapped segments errors with --strict-segments, and exits 1", async () => {
    const r = await runCli([...MAP, join(dir, "a.hl7"), "--strict-segments", "-q"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "message 1 segment 5 (ZPI): error unmapped_segment: segment ZPI is not mapped by the crossmap",
    );
  });
  it("keeps the time of a time without an offset with --assume-timezone, and refuses a bad one", async () => {
    const text = `${MSH}\rPID|1||7\rOBX|1|NM|8302-2^Height^LN||180|cm|||||F|||20240101083000\r`;
    const tz = join(mkdtempSync(join(tmpdir(), "hl7tz-")), "tz.hl7");
    writeFileSync(tz, text);
    const r = await runCli([...MAP, tz, "--assume-timezone", "+02:00", "-q"]);
    expect(r.stdout).toContain('"effectiveDateTime":"2024-01-01T08:30:00+02:00"');
    const bad = await runCli([...MAP, dir, "--assume-timezone", "CET"]);
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'crossmap: --assume-timezone must be Z, UTC or an offset such as +02:00, got "CET"\n',
    ]);
  });
  it("reads --identifier-systems", async () => {
    const sites = mkdtempSync(join(tmpdir(), "hl7ids-"));
    writeFileSync(
      join(sites, "sites.yaml"),
      "H: http://h.example.org/mrn\nAPP: http://app.example.org/msg\n",
    );
    const many = join(sites, "many.hl7");
    writeFileSync(many, Array.from({ length: 400 }, () => GOOD).join("\n"));
    const table = ["--identifier-systems", join(sites, "sites.yaml"), "-q"];
    const outputs: string[] = [];
    for (const workers of ["1", "2"]) {
      const r = await runCli([...MAP, many, ...table, "--workers", workers]);
      expect(r.code).toBe(0);
      const bundles = r.stdout.trimEnd().split("\n");
      expect(bundles).toHaveLength(400);
      for (const line of bundles) {
        const b = JSON.parse(line) as {
          identifier: { system: string; value: string };
          entry: { resource: { resourceType: string; identifier?: { system?: string }[] } }[];
        };
        expect(b.identifier).toEqual({ system: "http://app.example.org/msg", value: "1" });
        const patient = b.entry.find((e) => e.resource.resourceType === "Patient")?.resource;
        expect(patient?.identifier?.[0]?.system).toBe("http://h.example.org/mrn");
      }
      outputs.push(r.stdout);
    }
    expect(outputs[1]).toBe(outputs[0]);
  });
  it("refuses an unknown Bundle type, and batch without --fhir-server", async () => {
    const r = await runCli([...MAP, dir, "--bundle", "document"]);
    expect([r.code, r.stderr.split("\n")[0]]).toEqual([
      2,
      "error: option '--bundle <type>' argument 'document' is invalid. Allowed choices are collection, transaction, batch, message.",
    ]);
    const batch = await runCli([...MAP, dir, "--bundle", "batch"]);
    expect([batch.code, batch.stderr]).toEqual([2, "crossmap: --bundle batch goes with --fhir-server\n"]);
  });
});

describe("defaultsToEr7", () => {
  it("reads ER7 without --format for an HL7 v2 source standard or *.hl7 / *.er7 inputs", () => {
    expect(defaultsToEr7("hl7v2_2.5.1", [])).toBe(true);
    expect(defaultsToEr7("hl7v2", ["in.txt"])).toBe(true);
    expect(defaultsToEr7("fhir_r4", ["a.hl7", "b.ER7"])).toBe(true);
    expect(defaultsToEr7("fhir_r4", ["a.hl7", "b.ndjson"])).toBe(false);
    expect(defaultsToEr7("hl7v2x", [])).toBe(false);
    expect(defaultsToEr7("omop_cdm_v5.4", [])).toBe(false);
  });
});
