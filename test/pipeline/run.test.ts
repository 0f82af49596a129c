import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { InputPlan } from "../../src/pipeline/inputs.js";
import { composePlan } from "../../src/pipeline/plan.js";
import { type MapRunOptions, runMap } from "../../src/pipeline/run.js";
import { crossmapOf, personToPatient } from "./fake-crossmap.js";

const plan = composePlan([crossmapOf("omop_cdm_v5.4", "fhir_r4", [personToPatient()])]);
const stdin: InputPlan = { file: "-", format: "ndjson", entity: "person", size: undefined };

function options(over: Partial<MapRunOptions>): MapRunOptions {
  const stderr = new PassThrough() as unknown as NodeJS.WriteStream;
  return {
    plan,
    planSpec: { crossmaps: [] },
    inputs: [stdin],
    workers: 1,
    onError: "skip",
    output: { kind: "stdout" },
    stdin: Readable.from([]),
    stdout: new PassThrough(),
    stderr,
    progress: false,
    ...over,
  };
}

function collector(): { stream: Writable; text: () => string } {
  const parts: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      parts.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => parts.join("") };
}

describe("runMap", () => {
  it("stops reading while the consumer does not drain, and finishes once it does", async () => {
    let pulled = 0;
    const input = Readable.from(
      (function* () {
        for (let i = 0; i < 2000; i++) {
          pulled++;
          yield Buffer.from(`{"person_id": ${i}, "gender_concept_id": 8507}\n`.repeat(100));
        }
      })(),
    );
    const release: (() => void)[] = [];
    let written = 0;
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk, _enc, done) {
        written += chunk.length;
        release.push(done);
      },
    });
    const run = runMap(options({ stdin: input, stdout: slow, batchBytes: 16 * 1024 }));
    await new Promise((r) => setTimeout(r, 300));
    expect(pulled).toBeLessThan(100);
    const stalledAt = pulled;
    await new Promise((r) => setTimeout(r, 100));
    expect(pulled).toBe(stalledAt);
    slow._write = (chunk, _enc, done) => {
      written += chunk.length;
      done();
    };
    for (const done of release.splice(0)) done();
    const { summary } = await run;
    expect(pulled).toBe(2000);
    expect(summary.records_out).toBe(200_000);
    expect(written).toBeGreaterThan(0);
  });

  it("publishes an empty table's file into --out-dir, replacing the one an earlier run wrote", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crossmap-run-"));
    writeFileSync(join(dir, "Patient.ndjson"), '{"resourceType":"Patient","id":"old"}\n');
    const { summary } = await runMap(
      options({ stdin: Readable.from([]), output: { kind: "dir", path: dir } }),
    );
    expect(summary).toMatchObject({ records_in: 0, completed: true });
    expect(readFileSync(join(dir, "Patient.ndjson"), "utf8")).toBe("");
  });

  it("writes one file per target entity into --out-dir only when the run succeeds", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crossmap-run-"));
    const input = Readable.from([
      Buffer.from('{"person_id": 1}\n{"person_id": 2, "gender_concept_id": 8532}\n'),
    ]);
    const { summary } = await runMap(
      options({ stdin: input, output: { kind: "dir", path: join(dir, "out") } }),
    );
    expect(summary).toMatchObject({ records_in: 2, records_out: 2, completed: true });
    expect(readdirSync(join(dir, "out"))).toEqual(["Patient.ndjson"]);
    expect(readFileSync(join(dir, "out", "Patient.ndjson"), "utf8")).toBe(
      '{"resourceType":"Patient","id":"1"}\n{"resourceType":"Patient","id":"2","gender":"female"}\n',
    );

    const failing = Readable.from([
      Buffer.from('{"person_id": 3}\n{"person_id": 4, "gender_concept_id": 1}\n'),
    ]);
    const outcome = await runMap(
      options({ stdin: failing, onError: "fail", output: { kind: "dir", path: join(dir, "failed") } }),
    );
    expect(outcome.fatal).toMatchObject({ line: 2, code: "unmapped_value" });
    expect(outcome.summary.completed).toBe(false);
    expect(readdirSync(join(dir, "failed"))).toEqual([]);
  });

  it("writes issues as NDJSON to --errors and keeps order", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crossmap-run-"));
    const out = collector();
    const input = Readable.from([
      Buffer.from('{"person_id": 1}\n{bad\n{"person_id": 3, "gender_concept_id": "x"}\n'),
    ]);
    const { summary } = await runMap(
      options({ stdin: input, stdout: out.stream, errorsFile: join(dir, "errors.ndjson") }),
    );
    expect(out.text()).toBe('{"resourceType":"Patient","id":"1"}\n{"resourceType":"Patient","id":"3"}\n');
    expect(readFileSync(join(dir, "errors.ndjson"), "utf8")).toBe(
      [
        '{"file":"-","line":2,"code":"malformed_json","severity":"error","message":"malformed JSON: Expected property name or \'}\' in JSON at position 1"}',
        '{"file":"-","line":3,"entity":"person","field":"person.gender_concept_id","target":"Patient.gender","code":"unmapped_value","severity":"error","message":"no value_map entry for \\"x\\"","value":"x"}',
        "",
      ].join("\n"),
    );
    expect(summary).toMatchObject({
      records_in: 3,
      records_out: 2,
      records_failed: 1,
      errors: 2,
      issues_by_code: { malformed_json: 1, unmapped_value: 1 },
    });
  });
});
