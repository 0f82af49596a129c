import { describe, expect, it } from "vitest";
import { parseCrossmap } from "../../src/crossmap/load.js";
import { codes, loadError, transformer } from "../helpers.js";

const mapping = { 8507: "male", 8532: "female", 8551: "unknown", 8570: "other" };

describe("value_map", () => {
  const t = transformer("value_map", { mapping });
  it("matches YAML integer keys against numbers, strings and bigints", () => {
    expect(t(8507).out).toBe("male");
    expect(t("8532").out).toBe("female");
    expect(t(8570n).out).toBe("other");
  });
  it("leaves the field out and counts unmapped_value when nothing matches and there is no default", () => {
    const r = t(1234);
    expect(r.out).toBeUndefined();
    expect(r.issues).toEqual([
      {
        field: "e.in",
        target: "T.out",
        code: "unmapped_value",
        severity: "error",
        message: "1234 is not in the value map (8507, 8532, 8551, 8570)",
        value: 1234,
      },
    ]);
  });
  it("looks a value padded with spaces up without them when it matches no key as it is", () => {
    const g = transformer("value_map", { mapping: { F: "female", " X ": "spaced" } });
    expect(g("F   ").out).toBe("female");
    expect(g("\tF\r").out).toBe("female");
    expect(g(" X ").out).toBe("spaced");
    expect(codes(g("F F"))).toEqual(["unmapped_value"]);
  });
  it("uses the default when nothing matches", () => {
    const d = transformer("value_map", { mapping, default: "unknown" });
    expect(d(1).out).toBe("unknown");
    expect(d({}).out).toBe("unknown");
  });
  it("treats an explicit null as deliberately unmapped: left out, no issue", () => {
    const n = transformer("value_map", { mapping: { 0: null, 1: "a" } });
    expect(n(0)).toEqual({ out: undefined, issues: [] });
  });
  it("matches case-insensitively only when asked", () => {
    expect(codes(transformer("value_map", { mapping: { M: "male" } })("m"))).toEqual(["unmapped_value"]);
    expect(transformer("value_map", { mapping: { M: "male" }, case_insensitive: true })("m").out).toBe(
      "male",
    );
  });
  it("hands out a fresh copy of object values to every record", () => {
    const cm = parseCrossmap(`source: s
target: t
entity_map: {e: T}
field_map:
  e.g: {target: T.gender, transform: value_map, config: {mapping: {1: {code: m}}}}
  e.d: {target: T.gender.display}
`);
    const a = cm.mapper("e").map({ g: 1, d: "Male" }).value;
    const b = cm.mapper("e").map({ g: 1 }).value;
    expect(a).toEqual({ gender: { code: "m", display: "Male" } });
    expect(b).toEqual({ gender: { code: "m" } });
  });
  it("is rejected at load without mapping, naming file, line and key", () => {
    expect(
      loadError(
        "source: s\ntarget: t\nentity_map: {e: T}\nfield_map:\n  e.a:\n    target: T.b\n    transform: value_map\n",
      ),
    ).toBe(
      'crossmap x.yaml is invalid (1 problem)\n  x.yaml:6:5: field_map["e.a"].config.mapping: value_map: "mapping" is required',
    );
  });
});
