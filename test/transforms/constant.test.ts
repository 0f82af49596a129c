import { describe, expect, it } from "vitest";
import { loadError, transformer } from "../helpers.js";

describe("constant", () => {
  const t = transformer("constant", { value: { system: "http://unitsofmeasure.org" } });
  it("writes the configured value whenever the source field is present, whatever it holds", () => {
    expect(t("mg/dL")).toEqual({ out: { system: "http://unitsofmeasure.org" }, issues: [] });
    expect(t(0).out).toEqual({ system: "http://unitsofmeasure.org" });
  });
  it("writes nothing when the source field is absent", () => {
    for (const v of [undefined, null, ""]) expect(t(v)).toEqual({ out: undefined, issues: [] });
  });
  it("hands out a fresh copy of an object value for every record", () => {
    const a = t("x").out as Record<string, unknown>;
    a.system = "changed";
    expect(t("y").out).toEqual({ system: "http://unitsofmeasure.org" });
  });
  it("refuses to load without a value", () => {
    const doc =
      "source: s\ntarget: t\nentity_map: {e: T}\nfield_map:\n  e.a: {target: T.b, transform: constant, config: {}}\n";
    expect(loadError(doc)).toContain(
      'x.yaml:5:51: field_map["e.a"].config.value: constant: "value" is required',
    );
    expect(loadError(doc.replace("{}", "{value: ''}"))).toContain("constant needs a non-empty `value`");
  });
});
