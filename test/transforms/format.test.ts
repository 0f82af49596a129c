import { describe, expect, it } from "vitest";
import { codes, loadError, transformer } from "../helpers.js";

describe("format (dates)", () => {
  it("re-formats recognised dates", () => {
    expect(transformer("format", { pattern: "%Y%m%d" })("1990-05-15").out).toBe("19900515");
    expect(transformer("format", { pattern: "%Y-%m-%d" })("19900515").out).toBe("1990-05-15");
  });
  it("parses other forms only with input_format", () => {
    const noFormat = transformer("format", { pattern: "%Y-%m-%d" })("01/02/2020");
    expect(noFormat.issues[0]?.message).toBe(
      '"01/02/2020" is not a valid date: expected ISO 8601, YYYYMMDD or HL7 TS (give input_format for other forms)',
    );
    expect(transformer("format", { pattern: "%Y-%m-%d", input_format: "%m/%d/%Y" })("01/02/2020").out).toBe(
      "2020-01-02",
    );
  });
  it("reports a value less precise than the pattern", () => {
    const r = transformer("format", { pattern: "%Y-%m-%d" })("1990-05");
    expect(r.issues[0]?.message).toBe('"1990-05" has no day, which the pattern "%Y-%m-%d" needs');
  });
  it("with partial: end, completes a date without month or day to its last day, with a warning", () => {
    const t = transformer("format", { pattern: "%Y-%m-%d", partial: "end" });
    expect(t("1990").out).toBe("1990-12-31");
    expect(t("1990-02").out).toBe("1990-02-28");
    expect(t("2000-02").out).toBe("2000-02-29");
    expect(t("1990-04").issues.map((i) => [i.code, i.severity, i.message])).toEqual([
      ["date_completed", "warning", '"1990-04" has no day: completed to its last day, 1990-04-30'],
    ]);
    expect(t("1990-05-15")).toEqual({ out: "1990-05-15", issues: [] });
  });
});

describe("format (templates)", () => {
  it("fills {value} and record fields", () => {
    expect(transformer("format", { pattern: "Patient/{value}" })(12).out).toBe("Patient/12");
    expect(transformer("format", { pattern: "{value}, {given} {{x}}" })("Smith", { given: "Ann" }).out).toBe(
      "Smith, Ann {x}",
    );
    expect(transformer("format", { pattern: "{value}-{a.b[0]}" })("x", { a: { b: ["y"] } }).out).toBe("x-y");
  });
  it("leaves the field out when a placeholder is absent", () => {
    const r = transformer("format", { pattern: "{value} {given}" })("Smith");
    expect(r.out).toBeUndefined();
    expect(r.issues[0]).toMatchObject({ code: "missing_value", message: "{given} is absent" });
  });
  it("rejects patterns with neither directives nor placeholders, and bad braces, at load", () => {
    const doc = (pattern: string) =>
      `source: s\ntarget: t\nentity_map: {e: T}\nfield_map:\n  e.a:\n    target: T.b\n    transform: format\n    config: {pattern: "${pattern}"}\n`;
    expect(loadError(doc("plain"))).toContain(
      'x.yaml:7:16: field_map["e.a"].transform: format: pattern "plain" has neither date directives (%Y, %m, ...) nor {placeholders}',
    );
    expect(loadError(doc("a{b"))).toContain('unbalanced brace in pattern "a{b"');
    expect(codes(transformer("format", { pattern: "{value}" })({}))).toEqual(["missing_value"]);
  });
});
