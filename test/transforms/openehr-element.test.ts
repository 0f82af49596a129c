// openehr_element and dv_proportion through the real loader and compiler.
import { describe, expect, it } from "vitest";
import { loadError, transformer } from "../helpers.js";

describe("openehr_element", () => {
  it("wraps the value of the named value transform in an ELEMENT of the node", () => {
    const t = transformer("openehr_element", {
      node_id: "at0004",
      name: "Weight",
      value: { type: "dv_quantity", unit_field: "unit" },
    });
    expect(t(72.5, { unit: "kg" })).toEqual({
      out: {
        _type: "ELEMENT",
        archetype_node_id: "at0004",
        name: { _type: "DV_TEXT", value: "Weight" },
        value: { _type: "DV_QUANTITY", magnitude: 72.5, units: "kg" },
      },
      issues: [],
    });
  });

  it("writes no ELEMENT when the value cannot be made, and reports why", () => {
    const r = transformer("openehr_element", {
      node_id: "at0004",
      name: "Weight",
      value: { type: "dv_quantity", unit_field: "unit" },
    })(72.5);
    expect(r.out).toBeUndefined();
    expect(r.issues.map((i) => [i.code, i.message])).toEqual([
      ["missing_value", "no units for 72.5: unit is absent and no default units"],
    ]);
  });

  it("keeps a degraded value inside the element, with its warning", () => {
    const t = transformer("openehr_element", {
      node_id: "at0005",
      name: "Test name",
      value: {
        type: "dv_coded_text_from_coding",
        terminologies: { "http://loinc.org": "LOINC" },
        text_fallback: true,
      },
    });
    const r = t({ coding: [{ system: "urn:x", code: "1" }], text: "Something" });
    expect(r.out).toEqual({
      _type: "ELEMENT",
      archetype_node_id: "at0005",
      name: { _type: "DV_TEXT", value: "Test name" },
      value: { _type: "DV_TEXT", value: "Something" },
    });
    expect(r.issues.map((i) => [i.code, i.severity])).toEqual([["unmapped_value", "warning"]]);
  });

  it("fails to load with a bad node id or a bad value config, naming the key", () => {
    const doc = (config: string) =>
      `source: s\ntarget: t\nentity_map: {e: T}\nfield_map:\n  e.x: {target: T.y, transform: openehr_element, config: ${config}}\n`;
    expect(loadError(doc("{node_id: x4, name: W, value: {type: dv_text}}"))).toBe(
      'crossmap x.yaml is invalid (1 problem)\n  x.yaml:5:68: field_map["e.x"].config.node_id: openehr_element: "node_id": an at-code such as at0004',
    );
    expect(loadError(doc("{node_id: at0004, name: W, value: {type: dv_quantity}}"))).toContain(
      "value (dv_quantity): config: give unit_field or units (DV_QUANTITY requires units)",
    );
  });
});

describe("dv_proportion", () => {
  it("writes a percent as numerator over 100 (type 2)", () => {
    expect(transformer("dv_proportion", { kind: "percent" })("97.5").out).toEqual({
      _type: "DV_PROPORTION",
      numerator: 97.5,
      denominator: 100,
      type: 2,
    });
  });
  it("reports a value that is not a number", () => {
    expect(transformer("dv_proportion", { kind: "percent" })("high").issues.map((i) => i.code)).toEqual([
      "invalid_value",
    ]);
  });
});
