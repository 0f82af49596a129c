// Batches and results through their NATS payloads and back, and batches cut to fit one message: what
// comes out must be exactly what the local stage gives for the whole batch.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { composePlan } from "../../src/pipeline/plan.js";
import { createBatchMapper } from "../../src/pipeline/stage.js";
import type { Batch, BatchResult, LinesBatch } from "../../src/pipeline/types.js";
import {
  decodeBatch,
  decodeResult,
  encodeBatch,
  encodeResult,
  joinPayload,
  splitPayload,
} from "../../src/scale/codec.js";
import { fitBatch, joinResults } from "../../src/scale/fit.js";
import { crossmapOf, personToPatient } from "../pipeline/fake-crossmap.js";

const plan = composePlan([crossmapOf("omop_cdm_v5.4", "fhir_r4", [personToPatient()])]);
const tenLines = readFileSync(new URL("../fixtures/map/ten-persons.ndjson", import.meta.url));
const text = (r: BatchResult) =>
  Object.fromEntries(
    Object.entries(r.output).map(([k, v]) => [
      k,
      typeof v === "string" ? v : Buffer.from(v).toString("utf8"),
    ]),
  );

function lines(bytes: Uint8Array, firstLine = 1): LinesBatch {
  return { kind: "lines", file: "in.ndjson", entity: "person", bundles: false, firstLine, text: bytes };
}

describe("codec", () => {
  it("carries a lines batch's bytes and place unchanged", () => {
    const batch = lines(new TextEncoder().encode('{"a":1}\n{"b":"é"}\n'), 41);
    const back = decodeBatch(encodeBatch(batch)) as LinesBatch;
    expect({ ...back, text: Buffer.from(back.text as Uint8Array).toString() }).toEqual({
      ...batch,
      text: '{"a":1}\n{"b":"é"}\n',
    });
  });

  it("keeps parsed CSV cells as they were, 64-bit integers included", () => {
    const batch: Batch = {
      kind: "records",
      file: "PERSON.csv",
      entity: undefined,
      records: [
        { record: { person_id: 17413510329302123n, x: "007", y: 1.5 }, line: 2 },
        { record: {}, line: 3, problem: "the row has 1 more cell(s) than the header" },
      ],
    };
    expect(decodeBatch(encodeBatch(batch))).toEqual(batch);
  });

  it("keeps every field of a records batch: a JSON array's elements stay array elements", () => {
    const batch: Batch = {
      kind: "records",
      file: "people.json",
      entity: "person",
      records: [{ record: { person_id: 1 }, entry: 0 }],
      array: true,
    };
    expect(decodeBatch(encodeBatch(batch))).toEqual(batch);
  });

  it("carries a result's output per entity, counts, issues and fatal issue", () => {
    const result = createBatchMapper(plan, { onError: "skip", perEntity: true })(lines(tenLines));
    const back = decodeResult(encodeResult(result));
    expect({ ...back, output: text(back) }).toEqual({ ...result, output: text(result) });
    expect(back.issues.map((i) => [i.line, i.code])).toEqual([
      [4, "malformed_json"],
      [7, "unmapped_value"],
    ]);
    const failed = createBatchMapper(plan, { onError: "fail", perEntity: false })(lines(tenLines));
    expect(decodeResult(encodeResult(failed)).fatal).toEqual(failed.fatal);
  });

  it("splits a payload into pieces of at most the given size and joins them again", () => {
    const data = new Uint8Array(10).map((_, i) => i);
    const parts = splitPayload(data, 4);
    expect(parts.map((p) => [...p])).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9],
    ]);
    expect([...joinPayload(parts)]).toEqual([...data]);
    expect(splitPayload(data, 10)).toHaveLength(1);
  });
});

describe("fitBatch", () => {
  const mapBatch = createBatchMapper(plan, { onError: "skip", perEntity: false });

  it("cuts a lines batch at newlines until every piece fits, with true line numbers, and maps to the same bytes", () => {
    const batch = lines(tenLines);
    const pieces = fitBatch(batch, 300);
    expect(pieces.length).toBeGreaterThan(2);
    for (const p of pieces) expect(p.payload!.length).toBeLessThanOrEqual(300);
    const whole = mapBatch(batch);
    const joined = joinResults(pieces.map((p) => mapBatch(decodeBatch(p.payload!))));
    expect({ ...joined, output: text(joined) }).toEqual({ ...whole, output: text(whole) });
  });

  it("leaves a single record that does not fit to be mapped locally", () => {
    const long = new TextEncoder().encode(`{"person_id": 1, "person_source_value": "${"x".repeat(500)}"}\n`);
    expect(fitBatch(lines(long), 300)).toEqual([{ batch: lines(long), payload: undefined }]);
  });

  it("halves record batches, and joins results only up to a fatal error as the stage does", () => {
    const records = Array.from({ length: 8 }, (_, i) => ({
      record: { person_id: i, gender_concept_id: i === 5 ? 1 : 8507 },
      line: i + 2,
    }));
    const batch: Batch = { kind: "records", file: "PERSON.csv", entity: "person", records };
    const pieces = fitBatch(batch, 200);
    expect(pieces.map((p) => (p.batch.kind === "records" ? p.batch.records.length : 0))).toEqual([
      2, 2, 2, 2,
    ]);
    const fail = createBatchMapper(plan, { onError: "fail", perEntity: false });
    const whole = fail(batch);
    const joined = joinResults(pieces.map((p) => fail(p.batch)));
    expect({ ...joined, output: text(joined) }).toEqual({ ...whole, output: text(whole) });
    expect(joined.fatal?.line).toBe(7);
  });
});
