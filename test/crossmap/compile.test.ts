import { describe, expect, it } from "vitest";
import { parseCrossmap } from "../../src/crossmap/load.js";

const map = (fieldMap: string, record: Record<string, unknown>, extra = "", position?: number) =>
  parseCrossmap(`source: s\ntarget: t\nentity_map: {e: T}\n${extra}field_map:\n${fieldMap}`)
    .mapper("e")
    .map(record, position);

describe("target paths", () => {
  it("[+] fed by two source fields yields two elements; [=] fills the same element", () => {
    const fm = `  e.mrn: {target: "T.identifier[+].value", transform: str}
  e.mrn_system: {target: "T.identifier[=].system"}
  e.ssn: {target: "T.identifier[+].value", transform: str}
`;
    expect(map(fm, { mrn: 1, mrn_system: "urn:mrn", ssn: "123-45" }).value).toEqual({
      identifier: [{ value: "1", system: "urn:mrn" }, { value: "123-45" }],
    });
  });
  it("compacts elements whose fields were absent, keeping [=] with its [+]", () => {
    const fm = `  e.a: {target: "T.identifier[+].value"}
  e.b: {target: "T.identifier[+].value"}
  e.b_sys: {target: "T.identifier[=].system"}
`;
    expect(map(fm, { b: "x", b_sys: "urn:b" }).value).toEqual({
      identifier: [{ value: "x", system: "urn:b" }],
    });
    expect(map(fm, {}).value).toEqual({});
  });
  it("code.coding[0].system and code.coding[0].code build one coding", () => {
    const fm = `  e.sys: {target: "T.code.coding[0].system"}\n  e.code: {target: "T.code.coding[0].code", transform: str}\n`;
    expect(map(fm, { sys: "http://loinc.org", code: 1234 }).value).toEqual({
      code: { coding: [{ system: "http://loinc.org", code: "1234" }] },
    });
  });
  it("compacts nested arrays innermost first", () => {
    const fm = `  e.a: {target: "T.x[0].y[0]"}\n  e.b: {target: "T.x[0].y[1]"}\n  e.c: {target: "T.x[1].y[0]"}\n  e.d: {target: "T.x[1].y[2]"}\n`;
    expect(map(fm, { b: 1, d: 2 }).value).toEqual({ x: [{ y: [1] }, { y: [2] }] });
    expect(map(fm, { d: 2 }).value).toEqual({ x: [{ y: [2] }] });
  });
  it("merges an object value with fields written into it by other entries", () => {
    const fm = `  e.c: {target: T.code, transform: codeable_concept, config: {system: "http://x"}}\n  e.t: {target: T.code.text}\n`;
    expect(map(fm, { c: "1", t: "one" }).value).toEqual({
      code: { coding: [{ system: "http://x", code: "1" }], text: "one" },
    });
  });
  it("reports a write through a primitive as target_conflict instead of clobbering", () => {
    const fm = `  e.a: {target: T.x}\n  e.b: {target: T.x.y}\n`;
    expect(map(fm, { a: "s", b: "t" }, "", 3)).toEqual({
      value: { x: "s" },
      issues: [
        {
          record: 3,
          field: "e.b",
          target: "T.x.y",
          code: "target_conflict",
          severity: "error",
          message: "T.x.y already holds a value of another kind; this one was not written",
          value: "t",
        },
      ],
    });
  });
});

describe("sources", () => {
  it("reads nested source paths", () => {
    const fm = `  e.code.coding[0].code: {target: T.c}\n  e.PID.3.1: {target: T.id}\n`;
    expect(map(fm, { code: { coding: [{ code: "x" }] }, PID: { 3: { 1: "mrn" } } }).value).toEqual({
      c: "x",
      id: "mrn",
    });
    expect(map(fm, { code: "flat" }).value).toEqual({});
  });
  it("source: a list is read in order until one is present (datetime before date)", () => {
    const fm = `  e.start:\n    target: T.onset\n    source: [start_datetime, start_date]\n    transform: fhir_date\n    config: {type: dateTime, assume_timezone: Z}\n`;
    expect(map(fm, { start_datetime: "2020-01-01 10:00:00", start_date: "2020-01-01" }).value).toEqual({
      onset: "2020-01-01T10:00:00Z",
    });
    expect(map(fm, { start_datetime: "", start_date: "2020-01-01" }).value).toEqual({ onset: "2020-01-01" });
  });
  it("one source field may feed several targets", () => {
    const fm = `  e.id:\n    - {target: T.id, transform: str}\n    - {target: "T.identifier[0].value", transform: str}\n`;
    expect(map(fm, { id: 7 }).value).toEqual({ id: "7", identifier: [{ value: "7" }] });
  });
  it("null_values are treated as absent", () => {
    const fm = `  e.unit: {target: T.u, transform: str, null_values: [0, "NA"]}\n`;
    expect(map(fm, { unit: 0 })).toEqual({ value: {}, issues: [] });
    expect(map(fm, { unit: "NA" })).toEqual({ value: {}, issues: [] });
    expect(map(fm, { unit: 8 }).value).toEqual({ u: "8" });
  });
  it("required fields count missing_required when absent", () => {
    const r = map(`  e.id: {target: T.id, required: true}\n`, { id: "" }, "", 9);
    expect(r).toEqual({
      value: {},
      issues: [
        {
          record: 9,
          field: "e.id",
          target: "T.id",
          code: "missing_required",
          severity: "error",
          message: "required field e.id is absent",
        },
      ],
    });
  });
  it("a required field whose transform reads other fields is missing only when it gives nothing, said once", () => {
    const fm = `  e.end:\n    target: T.end\n    required: true\n    transform: first_of\n    config: {alternatives: [{transform: str}, {source: start, transform: str}]}\n`;
    expect(map(fm, { start: "2020" })).toEqual({ value: { end: "2020" }, issues: [] });
    const r = map(fm, {}, "", 9);
    expect(r.value).toEqual({});
    expect(r.issues.map((i) => [i.code, i.message])).toEqual([
      ["missing_required", "required field e.end is absent"],
    ]);
  });
});

describe("constants", () => {
  it("writes per-target and per-entity constants, nested and indexed, never sharing objects", () => {
    const cm = parseCrossmap(`source: s
target: t
entity_map:
  m: {target: Observation, constants: {"category[0].coding[0].code": laboratory}}
  o: Observation
constants:
  Observation:
    resourceType: Observation
    status: final
    meta: {profile: ["http://example.org/p"]}
field_map:
  m.v: {target: Observation.valueString}
  o.v: {target: Observation.valueString}
`);
    const a = cm.mapper("m").map({ v: "x" }).value;
    expect(a).toEqual({
      resourceType: "Observation",
      status: "final",
      meta: { profile: ["http://example.org/p"] },
      category: [{ coding: [{ code: "laboratory" }] }],
      valueString: "x",
    });
    (a.meta as { profile: string[] }).profile.push("mutated");
    expect(cm.mapper("o").map({}).value).toEqual({
      resourceType: "Observation",
      status: "final",
      meta: { profile: ["http://example.org/p"] },
    });
  });
  it("per-entity constants override per-target ones of the same path", () => {
    const cm = parseCrossmap(`source: s
target: t
entity_map:
  a: {target: T, constants: {status: amended}}
constants:
  T: {status: final}
field_map: {}
`);
    expect(cm.mapper("a").map({}).value).toEqual({ status: "amended" });
  });
});

describe("the compiled mapper", () => {
  it("never emits null, undefined or empty strings", () => {
    const fm = `  e.a: {target: T.a}\n  e.b: {target: T.b, transform: str}\n  e.c: {target: "T.c[+]"}\n`;
    expect(map(fm, { a: null, b: "", c: undefined })).toEqual({ value: {}, issues: [] });
    expect(JSON.stringify(map(fm, { a: "", b: "x" }).value)).toBe('{"b":"x"}');
  });
  it("shares one empty issues array when nothing went wrong", () => {
    const fm = `  e.a: {target: T.a}\n`;
    expect(map(fm, { a: 1 }).issues).toBe(map(fm, { a: 2 }).issues);
  });
  it("exposes the compiled field mappings", () => {
    const cm = parseCrossmap(
      `source: s\ntarget: t\nentity_map: {e: T}\nfield_map:\n  e.a: {target: T.a, transform: str}\n  e.b: {target: T.b, source: [x, y]}\n  e.c: {target: T.c, transform: dv_coded_text, config: {terminology_id: X, display_field: d}}\n`,
    );
    expect(cm.fieldMappings()).toEqual([
      {
        key: "e.a",
        sourceEntity: "e",
        sources: ["a"],
        reads: [],
        target: "T.a",
        targetEntity: "T",
        transform: "str",
      },
      {
        key: "e.b",
        sourceEntity: "e",
        sources: ["x", "y"],
        reads: [],
        target: "T.b",
        targetEntity: "T",
        transform: "passthrough",
      },
      {
        key: "e.c",
        sourceEntity: "e",
        sources: ["c"],
        reads: ["d"],
        target: "T.c",
        targetEntity: "T",
        transform: "dv_coded_text",
      },
    ]);
  });
});
