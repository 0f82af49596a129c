// A field entry's `default`: written whenever the field yields nothing, so a target that must always be
// present (OMOP's *_concept_id, 0 = "no matching concept") is, while the reason is still reported.
import { describe, expect, it } from "vitest";
import { parseCrossmap } from "../../src/crossmap/load.js";
import { loadError } from "../helpers.js";

const doc = `source: s
target: t
entity_map: {e: T}
transforms:
  kind: {type: value_map, mapping: {a: 1, b: 2, x: null}}
field_map:
  e.code: {target: T.concept_id, transform: kind, default: 0, required: true}
  e.other: {target: T.other, transform: int}
`;
const map = (r: Record<string, unknown>) => parseCrossmap(doc).mapper("e").map(r, 1);

describe("field default", () => {
  it("does not replace a value the transform produced", () => {
    expect(map({ code: "b" })).toEqual({ value: { concept_id: 2 }, issues: [] });
  });
  it("fills an absent source, without a missing_required issue", () => {
    expect(map({})).toEqual({ value: { concept_id: 0 }, issues: [] });
  });
  it("takes a value of spaces only (a fixed-width export's) as absent, and is not fooled by one that has text", () => {
    expect(map({ code: "  \t" })).toEqual({ value: { concept_id: 0 }, issues: [] });
    expect(parseCrossmap(doc).mapper("e").map({ code: "a", other: " " }, 1)).toEqual({
      value: { concept_id: 1 },
      issues: [],
    });
    expect(map({ code: " b " }).value).toEqual({ concept_id: 2 });
  });
  it("fills a deliberately unmapped value (explicit null in the value map) silently", () => {
    expect(map({ code: "x" })).toEqual({ value: { concept_id: 0 }, issues: [] });
  });
  it("fills an unconvertible value and reports the reason as a warning", () => {
    expect(map({ code: "zz" })).toEqual({
      value: { concept_id: 0 },
      issues: [
        {
          record: 1,
          field: "e.code",
          target: "T.concept_id",
          code: "unmapped_value",
          severity: "warning",
          message: '"zz" is not in the value map (a, b, x)',
          value: "zz",
        },
      ],
    });
  });
  it("leaves fields without a default as before: an error and nothing written", () => {
    const r = map({ code: "a", other: "1.5" });
    expect(r.value).toEqual({ concept_id: 1 });
    expect(r.issues.map((i) => [i.code, i.severity])).toEqual([["invalid_value", "error"]]);
  });
});

describe("vocabulary_optional", () => {
  const withLookup = (extra: string) => `source: s
target: t
entity_map: {e: T}
field_map:
  e.code: {target: T.concept_id, transform: vocabulary_lookup, config: {output: concept_id}${extra}}
`;
  it("writes the default for every record when no vocabulary is configured", () => {
    const cm = parseCrossmap(withLookup(", default: 0, vocabulary_optional: true"));
    expect(cm.mapper("e").map({ code: 201826 })).toEqual({ value: { concept_id: 0 }, issues: [] });
  });
  it("uses the vocabulary when there is one", () => {
    const concept = { concept_id: 201826, vocabulary_id: "SNOMED", concept_code: "44054006" };
    const vocabulary = {
      getConcept: (id: number) => (id === 201826 ? concept : undefined),
    } as unknown as import("../../src/vocab/bridge.js").VocabularyBridge;
    const cm = parseCrossmap(withLookup(", default: 0, vocabulary_optional: true"), { vocabulary });
    expect(cm.mapper("e").map({ code: 201826 }).value).toEqual({ concept_id: 201826 });
    expect(cm.mapper("e").map({ code: 5 }).value).toEqual({ concept_id: 0 });
  });
  it("still fails to load without it, and needs a default", () => {
    expect(loadError(withLookup(""))).toContain("no vocabulary bridge configured");
    expect(loadError(withLookup(", vocabulary_optional: true"))).toContain(
      'x.yaml:5:115: field_map["e.code"].vocabulary_optional: vocabulary_optional needs a default',
    );
  });
});
