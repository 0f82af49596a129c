import { describe, expect, it } from "vitest";
import { transformer } from "../helpers.js";

describe("quantity", () => {
  const t = transformer("quantity", { unit_field: "unit", system: "http://unitsofmeasure.org" });
  it("writes value, unit, and the code under the configured system", () => {
    expect(t("48.1", { unit: "kg" })).toEqual({
      out: { value: 48.1, unit: "kg", system: "http://unitsofmeasure.org", code: "kg" },
      issues: [],
    });
  });
  it("writes the bare value when there is no unit, and no system without a code", () => {
    expect(t(1, { unit: "" }).out).toEqual({ value: 1 });
    expect(t(1).out).toEqual({ value: 1 });
  });
  it("writes nothing when the number is absent, even if a unit is there", () => {
    expect(t(undefined, { unit: "kg" })).toEqual({ out: undefined, issues: [] });
  });
  it("takes the code from code_field when the unit text differs", () => {
    const tc = transformer("quantity", { unit_field: "u", code_field: "c", system: "S" });
    expect(tc(2, { u: "milligram", c: "mg" }).out).toEqual({
      value: 2,
      unit: "milligram",
      system: "S",
      code: "mg",
    });
  });
  it("reports a value that is not a number", () => {
    const r = t("high", { unit: "kg" });
    expect(r.out).toBeUndefined();
    expect(r.issues[0]?.message).toBe('"high" is not a number');
  });
});
