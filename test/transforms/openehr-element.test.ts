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

  it("picks one element of a list first: the systolic component of a blood pressure, as a FHIR Quantity", () => {
    const t = transformer("openehr_element", {
      node_id: "at0004",
      name: "Systolic",
      pick: { where: { "code.coding[0].code": "8480-6" }, get: "valueQuantity" },
      value: { type: "dv_quantity", input: "quantity" },
    });
    const component = [
      {
        code: { coding: [{ code: "8462-4" }] },
        valueQuantity: { value: 80, unit: "mmHg", system: "http://unitsofmeasure.org", code: "mm[Hg]" },
      },
      {
        code: { coding: [{ code: "8480-6" }] },
        valueQuantity: { value: 121, unit: "mmHg", system: "http://unitsofmeasure.org", code: "mm[Hg]" },
      },
    ];
    expect(t(component).out).toEqual({
      _type: "ELEMENT",
      archetype_node_id: "at0004",
      name: { _type: "DV_TEXT", value: "Systolic" },
      value: { _type: "DV_QUANTITY", magnitude: 121, units: "mm[Hg]" },
    });
    expect(t(component.slice(0, 1))).toEqual({ out: undefined, issues: [] });
  });

  it("fails to load with a bad node id or a bad value config, naming the key", () => {
    const doc = (config: string) =>
      `source: s\ntarget: t\nentity_map: {e: T}\nfield_map:\n  e.x: {target: T.y, transform: openehr_element, config: ${config}}\n`;
    expect(loadError(doc("{node_id: x4, name: W, value: {type: dv_text}}"))).toBe(
      'crossmap x.yaml is invalid (1 problem)\n  x.yaml:5:68: field_map["e.x"].config.node_id: openehr_element: "node_id": an at-code such as at0004',
    );
    expect(loadError(doc("{node_id: at0004, name: W, value: {type: dv_quantity}}"))).toContain(
      "value (dv_quantity): config: give unit_field or units (DV_QUANTITY requires units), or input: quantity",
    );
  });
});

describe("dv_quantity of a FHIR Quantity", () => {
  const t = transformer("dv_quantity", { input: "quantity" });
  it("takes the UCUM code as units, else the unit text", () => {
    expect(t({ value: 72.5, unit: "kilogram", system: "http://unitsofmeasure.org", code: "kg" }).out).toEqual(
      {
        _type: "DV_QUANTITY",
        magnitude: 72.5,
        units: "kg",
      },
    );
    expect(t({ value: 3, unit: "tablets", system: "http://example.org/units", code: "TAB" }).out).toEqual({
      _type: "DV_QUANTITY",
      magnitude: 3,
      units: "tablets",
    });
  });
  it("reports a quantity without units or without a number", () => {
    expect(t({ value: 3 }).issues.map((i) => i.message)).toEqual([
      "no units for 3: the quantity has neither a UCUM code nor a unit",
    ]);
    expect(t({ unit: "kg" }).issues.map((i) => i.code)).toEqual(["invalid_value"]);
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
