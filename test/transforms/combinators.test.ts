// first_of and chain build their steps from named and built-in transforms at load, locate their mistakes at the
// field that holds them, and per record return the first value / the last step's value.

import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { parseCrossmap } from "../../src/crossmap/load.js";
import { codes, loadError, transformer } from "../helpers.js";

describe("first_of", () => {
  const doc = (alternatives: unknown[]) => ({
    source: "s",
    target: "t",
    entity_map: { e: "T" },
    transforms: { sex: { type: "value_map", mapping: { male: 8507, female: 8532 } } },
    field_map: { "e.a": { target: "T.out", transform: "first_of", config: { alternatives } } },
  });
  const mapper = (alternatives: unknown[]) =>
    parseCrossmap(stringify(doc(alternatives)), { file: "x.yaml" }).mapper("e");
  it("takes the first alternative that yields a value, each reading its own source", () => {
    const m = mapper([{ transform: "int" }, { source: "b", transform: "sex" }]);
    expect(m.map({ a: "12", b: "male" }).value).toEqual({ out: 12 });
    expect(m.map({ b: "female" }).value).toEqual({ out: 8532 });
    expect(m.map({}).value).toEqual({});
  });
  it("reports the first failure only when no alternative yields a value", () => {
    const m = mapper([{ transform: "int" }, { source: "b", transform: "sex" }]);
    expect(m.map({ a: "x", b: "male" })).toEqual({ value: { out: 8507 }, issues: [] });
    expect(m.map({ a: "x", b: "other" }).issues.map((i) => i.code)).toEqual(["invalid_value"]);
  });
  it("fails to load, at the field, for an unknown transform or a bad config inside it", () => {
    expect(loadError(stringify(doc([{ transform: "nope" }])))).toContain(
      'x.yaml:14:16: field_map["e.a"].transform: first_of: unknown transform "nope"',
    );
    expect(loadError(stringify(doc([{ transform: "format", config: {} }])))).toMatch(
      /first_of: format: "pattern"/,
    );
  });
  it("tries an alternative with a when only for the records it holds for", () => {
    const m = mapper([
      { when: { field: "kind", equals: "omop" }, transform: "int" },
      { when: { not: { field: "kind", equals: "omop" } }, source: "b", transform: "sex" },
    ]);
    expect(m.map({ kind: "omop", a: "12", b: "male" }).value).toEqual({ out: 12 });
    // The first alternative's when fails: its value is not read, even where it would convert.
    expect(m.map({ kind: "other", a: "12", b: "male" }).value).toEqual({ out: 8507 });
    // Neither applies to what the record has: nothing, not the other alternative's value.
    expect(m.map({ kind: "omop", b: "male" }).value).toEqual({});
    expect(m.map({ kind: "other", a: "12" }).value).toEqual({});
  });
  it("fails to load, at the field, for a bad when of an alternative", () => {
    expect(loadError(stringify(doc([{ when: { field: "kind", equal: 1 }, transform: "int" }])))).toMatch(
      /x\.yaml:\d+:\d+: field_map\["e\.a"\]\.transform: first_of: alternative 1: when: /,
    );
  });
  it("skips an alternative marked vocabulary_optional when there is no vocabulary", () => {
    const m = mapper([{ transform: "vocabulary_lookup", vocabulary_optional: true }, { transform: "str" }]);
    expect(m.map({ a: 5 }).value).toEqual({ out: "5" });
  });
});

describe("chain", () => {
  it("feeds each step the previous one's result and stops at a failure", () => {
    const t = transformer("chain", {
      steps: [
        { transform: "select", config: { where: { url: "u" }, get: "valueString" } },
        { transform: "int" },
      ],
    });
    expect(
      t([
        { url: "v", valueString: "1" },
        { url: "u", valueString: "42" },
      ]).out,
    ).toBe(42);
    expect(t([{ url: "v", valueString: "1" }])).toEqual({ out: undefined, issues: [] });
    expect(codes(t([{ url: "u", valueString: "x" }]))).toEqual(["invalid_value"]);
  });
});
