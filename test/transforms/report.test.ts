import { describe, expect, it } from "vitest";
import { transformer } from "../helpers.js";

describe("report", () => {
  it("writes nothing and reports the value as an error", () => {
    const t = transformer("report", { code: "unmapped_value", message: "cannot carry it" });
    expect(t("x")).toMatchObject({
      out: undefined,
      issues: [{ code: "unmapped_value", severity: "error", message: "cannot carry it" }],
    });
  });
  it("reports a warning with severity: warning (a value the record rightly holds, the target cannot)", () => {
    const t = transformer("report", {
      code: "unmapped_value",
      message: "no column for it",
      severity: "warning",
    });
    expect(t(true)).toMatchObject({
      out: undefined,
      issues: [{ code: "unmapped_value", severity: "warning", message: "no column for it" }],
    });
  });
});
