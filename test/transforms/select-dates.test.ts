import { describe, expect, it } from "vitest";
import { transformer } from "../helpers.js";

const RACE = "http://hl7.org/fhir/us/core/StructureDefinition/us-core-race";
const extensions = [
  { url: "http://example.org/other", valueString: "x" },
  { url: RACE, extension: [{ url: "ombCategory", valueCoding: { code: "2106-3" } }] },
];

describe("select", () => {
  it("picks the element matching `where`, reads `get` and looks it up", () => {
    const t = transformer("select", {
      where: { url: RACE },
      get: "extension[0].valueCoding.code",
      mapping: { "2106-3": 8527 },
      default: 0,
    });
    expect(t(extensions)).toEqual({ out: 8527, issues: [] });
  });
  it("with several: none, picks only an element that is the one match, else writes the default", () => {
    const omb = (code: string) => ({ url: "ombCategory", valueCoding: { code } });
    const cfg = { where: { url: "ombCategory" }, get: "valueCoding.code", mapping: { "2106-3": 8527 } };
    const two = [omb("2106-3"), { url: "text", valueString: "x" }, omb("2054-5")];
    expect(transformer("select", { ...cfg, default: 0, several: "none" })(two).out).toBe(0);
    expect(transformer("select", { ...cfg, default: 0, several: "none" })([omb("2106-3")]).out).toBe(8527);
    expect(transformer("select", { ...cfg, default: 0 })(two).out).toBe(8527);
    expect(transformer("select", { ...cfg, several: "none" })(two)).toEqual({ out: undefined, issues: [] });
  });
  it("writes the default when the list is absent, nothing matches, or the value is not mapped", () => {
    const t = transformer("select", {
      where: { url: RACE },
      get: "extension[0].valueCoding.code",
      mapping: {},
      default: 0,
    });
    expect(t(undefined).out).toBe(0);
    expect(t([{ url: "x" }]).out).toBe(0);
    expect(t(extensions).out).toBe(0);
  });
  it("writes nothing without a default, and reports an unmapped value", () => {
    const t = transformer("select", {
      where: { system: "http://loinc.org" },
      get: "code",
      mapping: { a: 1 },
    });
    expect(t(undefined)).toEqual({ out: undefined, issues: [] });
    expect(t([{ system: "http://snomed.info/sct", code: "a" }])).toEqual({ out: undefined, issues: [] });
    const r = t([{ system: "http://loinc.org", code: "b" }]);
    expect(r.out).toBeUndefined();
    expect(r.issues[0]?.message).toBe('"b" is not in the mapping');
  });
  it("returns the picked element itself without `get`, from a list or a single object", () => {
    const t = transformer("select", { where: { system: "http://loinc.org" } });
    const coding = { system: "http://loinc.org", code: "8302-2" };
    expect(t([{ system: "s", code: "1" }, coding]).out).toEqual(coding);
    expect(t(coding).out).toEqual(coding);
  });
});

describe("date_part", () => {
  it("reads one part of a date as an integer", () => {
    expect(transformer("date_part", { part: "year" })("1993-06-07").out).toBe(1993);
    expect(transformer("date_part", { part: "month" })("1993-06-07").out).toBe(6);
    expect(transformer("date_part", { part: "hour" })("2007-06-04T05:28:45+00:00").out).toBe(5);
  });
  it("reports a missing part instead of guessing it", () => {
    expect(transformer("date_part", { part: "day" })("1993-06").issues[0]?.message).toBe(
      '"1993-06" has no day',
    );
  });
});

describe("datetime_text", () => {
  it("writes zone-less wall-clock text, dropping the offset without converting", () => {
    const t = transformer("datetime_text", { missing_time: "midnight" });
    expect(t("2007-06-04T05:28:45+02:00").out).toBe("2007-06-04 05:28:45");
    expect(t("2007-06-04T05:28Z").out).toBe("2007-06-04 05:28:00");
  });
  it("completes a bare date to midnight, or writes nothing, as configured", () => {
    expect(transformer("datetime_text", { missing_time: "midnight" })("2019-03-01").out).toBe(
      "2019-03-01 00:00:00",
    );
    expect(transformer("datetime_text", { missing_time: "omit" })("2019-03-01")).toEqual({
      out: undefined,
      issues: [],
    });
  });
  it("writes a year before 1000 with four digits", () => {
    const t = transformer("datetime_text", { missing_time: "midnight" });
    expect(t("0950-03-04").out).toBe("0950-03-04 00:00:00");
    expect(t("0001-01-01T10:00:00Z").out).toBe("0001-01-01 10:00:00");
  });
  it("writes a leap second as second 59, with a warning (SQL timestamps refuse or roll over second 60)", () => {
    expect(transformer("datetime_text", { missing_time: "midnight" })("2016-12-31T23:59:60Z")).toEqual({
      out: "2016-12-31 23:59:59",
      issues: [
        {
          field: "e.in",
          target: "T.out",
          code: "precision_reduced",
          severity: "warning",
          message:
            '"2016-12-31T23:59:60Z" is a leap second, which SQL timestamps cannot hold; written as second 59',
          value: "2016-12-31T23:59:60Z",
        },
      ],
    });
  });
  it("reports a value without a day", () => {
    expect(transformer("datetime_text", { missing_time: "midnight" })("2019-03").issues[0]?.message).toBe(
      '"2019-03" has no day',
    );
  });
});
