import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadCrossmapFile, parseCrossmap } from "../../src/crossmap/load.js";
import { AppError } from "../../src/errors.js";
import { loadError } from "../helpers.js";

const SPEC = readFileSync(new URL("../golden/spec-person/crossmap.yaml", import.meta.url), "utf8");

describe("loading the spec's sample person definition", () => {
  it("maps the spec's person record exactly", () => {
    const cm = parseCrossmap(SPEC, { file: "spec.yaml" });
    expect(cm.source).toBe("omop_cdm_v5.4");
    expect(cm.target).toBe("fhir_r4");
    expect(cm.targetEntity("person")).toBe("Patient");
    expect(
      cm.mapper("person").map({ person_id: 12345, gender_concept_id: 8507, birth_datetime: "1990-05-15" }),
    ).toEqual({
      value: { id: "12345", gender: "male", birthDate: "1990-05-15" },
      issues: [],
    });
  });
  it("keeps a 64-bit person_id digit for digit", () => {
    const r = parseCrossmap(SPEC).mapper("person").map({ person_id: 1741351032930224901n });
    expect(r.value).toEqual({ id: "1741351032930224901" });
  });
});

describe("load errors name the file, line, column and key", () => {
  const head = "source: s\ntarget: t\nentity_map: {e: T}\n";
  it("unknown transform, with a suggestion", () => {
    expect(loadError(`${head}field_map:\n  e.a:\n    target: T.b\n    transform: strr\n`)).toBe(
      'crossmap x.yaml is invalid (1 problem)\n  x.yaml:7:16: field_map["e.a"].transform: unknown transform "strr" (did you mean "str"?); known: base64, bool, chain, codeable_concept, components, constant, date_from_parts, date_part, datetime_text, derived_id, dv_coded_text, dv_coded_text_from_coding, dv_date_time, dv_proportion, dv_quantity, dv_text, extension_value, fhir_date, fhir_extension, fhir_period, fhir_reference, first_of, float, format, hl7v2_field, int, integer_id, omop_codeable_concept, omop_concept_of, omop_quantity, openehr_element, passthrough, quantity, report, select, str, value_map, vocabulary_lookup, vocabulary_reverse_lookup',
    );
  });
  it("unknown type of a named transform", () => {
    expect(
      loadError(
        `${head}field_map:\n  e.a: {target: T.b, transform: g}\ntransforms:\n  g:\n    type: value_mapp\n`,
      ),
    ).toContain(
      'x.yaml:8:11: transforms.g.type: unknown transform type "value_mapp" (did you mean "value_map"?)',
    );
  });
  it("bad config: unknown key and wrong type", () => {
    expect(loadError(`${head}field_map:\n  e.a: {target: T.b, transform: str, config: {x: 1}}\n`)).toContain(
      'x.yaml:5:47: field_map["e.a"].config.x: str: unknown config key "x"',
    );
    expect(
      loadError(`${head}field_map:\n  e.a: {target: T.b, transform: value_map, config: {mapping: 3}}\n`),
    ).toContain(
      'field_map["e.a"].config.mapping: value_map: "mapping": Invalid input: expected record, received number',
    );
  });
  it("malformed paths", () => {
    expect(loadError(`${head}field_map:\n  e.a: {target: "T.b[x]"}\n`)).toContain(
      'x.yaml:5:17: field_map["e.a"].target: malformed path "T.b[x]": bad segment "b[x]" (indexes are [0], [1], [+] or [=])',
    );
    expect(loadError(`${head}field_map:\n  e.a..b: {target: T.b}\n`)).toContain(
      'x.yaml:5:3: field_map["e.a..b"]: malformed path "a..b"',
    );
    expect(loadError(`${head}field_map:\n  e.a: {target: "T.b[=].c"}\n`)).toContain(
      "[=] before any [+] or [n] on b",
    );
    expect(loadError(`${head}field_map:\n  e.a: {target: T.__proto__}\n`)).toContain(
      '"__proto__" cannot be used as a name',
    );
  });
  it("unknown entity, and a target outside the entity's target", () => {
    expect(loadError(`${head}field_map:\n  p.a: {target: T.b}\n`)).toContain(
      'x.yaml:5:3: field_map["p.a"]: unknown entity "p": entity_map has e',
    );
    expect(loadError(`${head}field_map:\n  e.a: {target: U.b}\n`)).toContain(
      'target "U.b" must start with T (entity_map: e -> T)',
    );
    expect(loadError(`${head}field_map:\n  ea: {target: T.b}\n`)).toContain(
      'field_map key "ea" must be <entity>.<field>',
    );
  });
  it("duplicate targets, including through soft indexes", () => {
    expect(loadError(`${head}field_map:\n  e.a: {target: T.b}\n  e.c: {target: T.b}\n`)).toContain(
      'x.yaml:6:17: field_map["e.c"].target: T.b is already written by e.a',
    );
    expect(
      loadError(`${head}field_map:\n  e.a: {target: "T.x[+].v"}\n  e.c: {target: "T.x[=].v"}\n`),
    ).toContain("T.x[0].v is already written by e.a");
  });
  it("structure: missing and unknown top-level keys, YAML syntax, duplicate keys", () => {
    expect(loadError("source: s\nentity_map: {}\nfield_map: {}\nextra: 1\n")).toBe(
      'crossmap x.yaml is invalid (2 problems)\n  x.yaml:1:1: target: "target" is required\n  x.yaml:4:1: extra: unknown key "extra"',
    );
    expect(loadError("source: [\n")).toMatch(/^crossmap x.yaml is invalid \(1 problem\)\n {2}x.yaml:2:1: /);
    expect(loadError(`${head}field_map:\n  e.a: {target: T.b}\n  e.a: {target: T.c}\n`)).toContain(
      "x.yaml:6:3: Map keys must be unique",
    );
  });
  it("reports the first YAML syntax error only, with how many follow and the quoting hint", () => {
    expect(
      loadError(
        `${head}field_map:\n  e.a: {target: T.b, when: {field: c.d[0].e, equals: x}}\n  e.b: {target: T.c}\n`,
      ),
    ).toBe(
      "crossmap x.yaml is invalid (1 problem)\n" +
        '  x.yaml:5:39: Unexpected flow-seq-start at node end; inside { } or [ ], a value holding [ ] or a comma must be quoted, e.g. {field: "code.coding[0].code"} (11 more syntax errors after it, most likely caused by this one)',
    );
    expect(loadError("source: [\n")).not.toContain("must be quoted");
  });
  it("reports every problem of a document at once", () => {
    const e = loadError(
      `${head}field_map:\n  e.a: {target: T.b, transform: nope}\n  q.b: {target: T.c}\n  e.c: {target: "T.d[", transform: int}\n`,
    );
    expect(e.split("\n")[0]).toBe("crossmap x.yaml is invalid (3 problems)");
  });
  it("throws AppError with status 422 and structured problems", () => {
    try {
      parseCrossmap(`${head}field_map:\n  e.a: {target: T.b, transform: nope}\n`, { file: "f.yaml" });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      const e = err as AppError;
      expect(e.status).toBe(422);
      expect(e.problems).toEqual([
        expect.objectContaining({
          file: "f.yaml",
          line: 5,
          column: 33,
          path: ["field_map", "e.a", "transform"],
          code: "unknown_transform",
        }),
      ]);
    }
  });
  it("says so when the file cannot be read", async () => {
    await expect(loadCrossmapFile("/nonexistent/x.yaml")).rejects.toThrow(
      "cannot read crossmap /nonexistent/x.yaml: no such file",
    );
  });
  it("rejects an unknown source entity when asked for a mapper", () => {
    expect(() => parseCrossmap(SPEC).mapper("visit")).toThrow(
      'unknown source entity "visit" for omop_cdm_v5.4 -> fhir_r4; known: person',
    );
  });
});
