import { describe, expect, it } from "vitest";
import { codes, loadError, transformer } from "../helpers.js";

describe("dv_quantity", () => {
  it("takes units from unit_field, else the configured units", () => {
    const t = transformer("dv_quantity", { unit_field: "unit", units: "1" });
    expect(t("7.2", { unit: "mmol/L" }).out).toEqual({
      _type: "DV_QUANTITY",
      magnitude: 7.2,
      units: "mmol/L",
    });
    expect(t(3).out).toEqual({ _type: "DV_QUANTITY", magnitude: 3, units: "1" });
  });
  it("reports a missing unit and a non-numeric magnitude", () => {
    const t = transformer("dv_quantity", { unit_field: "unit" });
    expect(t(3).issues[0]).toMatchObject({
      code: "missing_value",
      message: "no units for 3: unit is absent and no default units",
    });
    expect(codes(t("high", { unit: "mg" }))).toEqual(["invalid_value"]);
  });
  it("needs unit_field or units at load", () => {
    expect(
      loadError(
        "source: s\ntarget: t\nentity_map: {e: T}\nfield_map:\n  e.a: {target: T.b, transform: dv_quantity}\n",
      ),
    ).toContain("give unit_field or units (DV_QUANTITY requires units)");
  });
});

describe("dv_coded_text", () => {
  it("renders a CODE_PHRASE in the terminology, with text from display_field or the code", () => {
    const t = transformer("dv_coded_text", { terminology_id: "SNOMED-CT", display_field: "name" });
    expect(t(44054006, { name: "Diabetes mellitus type 2" }).out).toEqual({
      _type: "DV_CODED_TEXT",
      value: "Diabetes mellitus type 2",
      defining_code: {
        _type: "CODE_PHRASE",
        terminology_id: { _type: "TERMINOLOGY_ID", value: "SNOMED-CT" },
        code_string: "44054006",
      },
    });
    expect((t("x").out as { value: string }).value).toBe("x");
  });
});
