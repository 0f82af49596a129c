// The streaming reader of whole JSON documents (a FHIR Bundle, a JSON array): records with their index,
// exact 64-bit integers, one issue per bad element, constant memory however large the document.
import { describe, expect, it } from "vitest";
import { jsonDocumentBatches } from "../../src/pipeline/json-stream.js";
import type { ParsedRecord, RecordsBatch } from "../../src/pipeline/types.js";

async function read(
  chunks: (string | Buffer)[],
  mode: "bundle" | "array",
  options: { batchRecords?: number; maxRecordChars?: number } = {},
): Promise<RecordsBatch[]> {
  const input = (async function* () {
    for (const c of chunks) yield typeof c === "string" ? Buffer.from(c) : c;
  })();
  const out: RecordsBatch[] = [];
  for await (const b of jsonDocumentBatches(input, {
    file: "b.json",
    entity: undefined,
    mode,
    batchRecords: options.batchRecords ?? 100,
    maxRecordChars: options.maxRecordChars ?? 1 << 20,
    limitLabel: "L",
  })) {
    out.push(b);
  }
  return out;
}

const records = (batches: RecordsBatch[]): ParsedRecord[] => batches.flatMap((b) => b.records);

const BUNDLE = `{
  "resourceType": "Bundle",
  "type": "searchset",
  "meta": {"tag": [{"code": "x"}]},
  "entry": [
    {"fullUrl": "urn:1", "resource": {"resourceType": "Patient", "id": "1", "extension": [{"valueInteger": 1741351032930224901}]}},
    {"fullUrl": "urn:2"},
    {"resource": {"resourceType": "Condition", "id": "c", "onsetAge": {"value": 1.5}, "x": [true, null, -0.25e2]}},
    {"request": {"method": "DELETE", "url": "Patient/9"}},
    {"fullUrl": "urn:uuid:0c2a5e52-55a4-4f7b-8a55-6e0a4b0f2a11", "resource": {"resourceType": "Patient"}}
  ],
  "total": 2
}`;

describe("jsonDocumentBatches", () => {
  it("hands on each entry's resource with its index (its fullUrl's id when it has none); entries without one are issues or, requests, skipped", async () => {
    // Cut into 7-byte reads: every token is split somewhere.
    const chunks = BUNDLE.match(/[\s\S]{1,7}/g) ?? [];
    expect(records(await read(chunks, "bundle"))).toEqual([
      {
        record: { resourceType: "Patient", id: "1", extension: [{ valueInteger: 1741351032930224901n }] },
        entry: 0,
      },
      { record: {}, entry: 1, problem: "entry has no resource object", problemCode: "invalid_record" },
      {
        record: { resourceType: "Condition", id: "c", onsetAge: { value: 1.5 }, x: [true, null, -25] },
        entry: 2,
      },
      {
        record: {},
        entry: 3,
        skipped: "a DELETE Patient/9 request without a resource: nothing to map, left out",
        skippedKind: "DELETE",
      },
      { record: { resourceType: "Patient", id: "0c2a5e52-55a4-4f7b-8a55-6e0a4b0f2a11" }, entry: 4 },
    ]);
  });

  it("reads the elements of a JSON array, one batch per batchRecords, keeping __proto__ as data", async () => {
    const batches = await read(['[{"a":1},{"__proto__":{"b":2}},', '3,{"c":[]}]'], "array", {
      batchRecords: 2,
    });
    expect(batches.map((b) => b.array)).toEqual([true, true]);
    const got = records(batches);
    expect(got[1]!.record).toEqual(JSON.parse('{"__proto__":{"b":2}}'));
    expect(Object.getPrototypeOf(got[1]!.record)).toBe(Object.prototype);
    expect(got.map((r) => [r.entry, r.problemCode ?? null])).toEqual([
      [0, null],
      [1, null],
      [2, "invalid_record"],
      [3, null],
    ]);
    expect(got[2]!.problem).toBe("expected a JSON object, got a number");
  });

  it("says what the document is when it is not a Bundle, or not an array", async () => {
    expect(records(await read(['{"resourceType":"Patient","entry":[{"resource":{}}]}'], "bundle"))).toEqual([
      {
        record: {},
        problem: 'expected a FHIR Bundle, got resourceType "Patient"',
        problemCode: "invalid_record",
      },
    ]);
    expect(records(await read(['{"a":1}'], "array"))).toEqual([
      { record: {}, problem: "expected a JSON array, got an object", problemCode: "invalid_record" },
    ]);
  });

  it("reports an element over the limit without holding it, and reads on", async () => {
    const big = `{"resource":{"resourceType":"Patient","text":"${"x".repeat(200_000)}","n":[${"1,".repeat(50_000)}1]}}`;
    const got = records(
      await read([`{"resourceType":"Bundle","entry":[${big},{"resource":{"id":"2"}}]}`], "bundle", {
        maxRecordChars: 100_000,
      }),
    );
    expect(got).toEqual([
      {
        record: {},
        entry: 0,
        problem: "the element is over L of JSON text, the limit per record; it is not read",
        problemCode: "record_too_large",
      },
      { record: { id: "2" }, entry: 1 },
    ]);
  });

  it("reports an entry that is not UTF-8, and reads the others", async () => {
    const bad = Buffer.concat([
      Buffer.from('{"resourceType":"Bundle","entry":[{"resource":{"id":"caf'),
      Buffer.from([0xc3]),
      Buffer.from('"}},{"resource":{"id":"ok"}}]}'),
    ]);
    expect(records(await read([bad], "bundle"))).toEqual([
      {
        record: {},
        entry: 0,
        problem: "invalid UTF-8 (0xc3) in the element; the record is not read (the input must be UTF-8)",
        problemCode: "invalid_utf8",
      },
      { record: { id: "ok" }, entry: 1 },
    ]);
  });

  it("keeps what it read before a syntax error and says where reading stopped", async () => {
    const got = records(
      await read(['{"resourceType":"Bundle","entry":[{"resource":{"id":"1"}},', "{oops}]}"], "bundle"),
    );
    expect(got).toEqual([
      { record: { id: "1" }, entry: 0 },
      {
        record: {},
        problem: "malformed JSON: expected an object key; reading stopped there (entries read: 1)",
        problemCode: "malformed_json",
      },
    ]);
    expect(records(await read(['[{"a":1},{"b":'], "array")).at(-1)).toEqual({
      record: {},
      entry: 1,
      problem: "malformed JSON: the input ends inside a value",
      problemCode: "malformed_json",
    });
  });

  it("reads one Bundle after another (concatenated or one per line), counting entries per Bundle", async () => {
    const one = '{"resourceType":"Bundle","entry":[{"resource":{"id":"a"}},{"resource":{"id":"b"}}]}';
    const got = records(await read([`${one}\n${one}`], "bundle"));
    expect(got.map((r) => [r.record.id, r.entry])).toEqual([
      ["a", 0],
      ["b", 1],
      ["a", 0],
      ["b", 1],
    ]);
  });
});
