import { describe, expect, it } from "vitest";
import { codes, loadError, transformer } from "../helpers.js";

describe("fhir_date", () => {
  const t = transformer("fhir_date");
  it("gives a FHIR date keeping partial precision", () => {
    expect(t("1990-05-15").out).toBe("1990-05-15");
    expect(t("1990").out).toBe("1990");
    expect(t("199005").out).toBe("1990-05");
    expect(t("1990-05-15T23:30:00-05:00").out).toBe("1990-05-15");
    expect(t("2020010210").out).toBe("2020-01-02");
    expect(t(" 1990-05-15 ").out).toBe("1990-05-15");
  });
  it("reports unrecognised and impossible dates", () => {
    expect(codes(t("01/02/2020"))).toEqual(["invalid_date"]);
    expect(codes(t("2021-02-29"))).toEqual(["invalid_date"]);
    expect(codes(t(true))).toEqual(["invalid_date"]);
  });
  it("as a dateTime keeps the sender's offset", () => {
    const dt = transformer("fhir_date", { type: "dateTime" });
    expect(dt("20200102103000-0500").out).toBe("2020-01-02T10:30:00-05:00");
    expect(dt("2020-01-02T10:30:00.123Z").out).toBe("2020-01-02T10:30:00.123Z");
    expect(dt("2020-01-02").out).toBe("2020-01-02");
  });
  it("as a dateTime without an offset keeps the date and warns, unless a timezone is assumed", () => {
    const r = transformer("fhir_date", { type: "dateTime" })("2020-01-02 10:30:00");
    expect(r.out).toBe("2020-01-02");
    expect(r.issues[0]).toMatchObject({
      code: "precision_reduced",
      severity: "warning",
      message:
        '"2020-01-02 10:30:00" has a time but no timezone offset, which FHIR requires; kept the date only (the field\'s assume_timezone keeps the time)',
    });
    expect(
      transformer("fhir_date", { type: "dateTime", assume_timezone: "Z" })("2020-01-02 10:30:00").out,
    ).toBe("2020-01-02T10:30:00Z");
    expect(transformer("fhir_date", { type: "dateTime", assume_timezone: "+0100" })("2020010210").out).toBe(
      "2020-01-02T10:00:00+01:00",
    );
  });
  it("as an instant needs a time to the minute, and pads the seconds", () => {
    const i = transformer("fhir_date", { type: "instant", assume_timezone: "Z" });
    expect(i("2020-01-02T10:30:05").out).toBe("2020-01-02T10:30:05Z");
    expect(i("2020-01-02T10:30").out).toBe("2020-01-02T10:30:00Z");
    expect(codes(i("2020-01-02"))).toEqual(["invalid_date"]);
    expect(codes(i("2020010210"))).toEqual(["invalid_date"]);
  });
  it("as an instant without an offset or assume_timezone writes nothing, never a date", () => {
    const r = transformer("fhir_date", { type: "instant" })("2020-01-02T10:30:05");
    expect(r.out).toBeUndefined();
    expect(r.issues[0]).toMatchObject({
      code: "invalid_date",
      severity: "error",
      message:
        '"2020-01-02T10:30:05" has a time but no timezone offset, and an instant needs one; left out (the field\'s assume_timezone gives the offset)',
    });
  });
  it("rejects a bad assume_timezone at load", () => {
    expect(
      loadError(
        "source: s\ntarget: t\nentity_map: {e: T}\nfield_map:\n  e.a: {target: T.b, transform: fhir_date, config: {assume_timezone: Mars}}\n",
      ),
    ).toContain('fhir_date: assume_timezone "Mars" is not Z, UTC or ±hh:mm');
  });
});

describe("fhir_period", () => {
  it("builds start and end from two fields", () => {
    const t = transformer("fhir_period", { start_field: "s", end_field: "e", assume_timezone: "Z" });
    expect(t(null, { s: "2020-01-01 08:00:00", e: "2020-01-02" }).out).toEqual({
      start: "2020-01-01T08:00:00Z",
      end: "2020-01-02",
    });
    expect(t(null, { e: "2020-01-02" }).out).toEqual({ end: "2020-01-02" });
    expect(t(null, {})).toEqual({ out: undefined, issues: [] });
  });
  it("defaults start_field to the field itself", () => {
    expect(transformer("fhir_period", { end_field: "e" })("2020-01-01", { e: "2020-01-03" }).out).toEqual({
      start: "2020-01-01",
      end: "2020-01-03",
    });
  });
  it("drops an end before the start, with an issue", () => {
    const r = transformer("fhir_period", { end_field: "e" })("2020-01-05", { e: "2020-01-03" });
    expect(r.out).toEqual({ start: "2020-01-05" });
    expect(r.issues[0]).toMatchObject({ code: "invalid_period", severity: "warning" });
  });
  it("keeps the good half when one date is invalid", () => {
    const r = transformer("fhir_period", { end_field: "e" })("2020-01-05", { e: "garbage" });
    expect(r.out).toEqual({ start: "2020-01-05" });
    expect(r.issues[0]).toMatchObject({ code: "invalid_date", severity: "warning" });
  });
});

describe("codeable_concept", () => {
  it("puts the value as the code under the configured system, with display and text from fields", () => {
    const t = transformer("codeable_concept", {
      system: "http://loinc.org",
      display_field: "name",
      text_field: "src",
    });
    expect(t("8302-2", { name: "Body height", src: "HEIGHT" }).out).toEqual({
      coding: [{ system: "http://loinc.org", code: "8302-2", display: "Body height" }],
      text: "HEIGHT",
    });
    expect(t(201826).out).toEqual({ coding: [{ system: "http://loinc.org", code: "201826" }] });
  });
  it("requires a system: no coding is ever written under a false or missing one", () => {
    expect(
      loadError(
        "source: s\ntarget: t\nentity_map: {e: T}\nfield_map:\n  e.a: {target: T.b, transform: codeable_concept}\n",
      ),
    ).toContain('codeable_concept: "system" is required');
  });
  it("reports a non-scalar code", () => {
    expect(codes(transformer("codeable_concept", { system: "x" })({}))).toEqual(["invalid_value"]);
  });
});

describe("fhir_reference", () => {
  const t = transformer("fhir_reference", { resource_type: "Patient" });
  it("references resource_type/<id>", () => {
    expect(t(123).out).toEqual({ reference: "Patient/123" });
    expect(t(1741351032930224901n).out).toEqual({ reference: "Patient/1741351032930224901" });
    expect(t("Patient/abc").out).toEqual({ reference: "Patient/abc" });
    expect(t("urn:uuid:6d2eba67-5b4a-403f-a29f-e6da3f1ea963").out).toEqual({
      reference: "urn:uuid:6d2eba67-5b4a-403f-a29f-e6da3f1ea963",
    });
  });
  it("reports a value that is not a FHIR id", () => {
    expect(codes(t("has space"))).toEqual(["invalid_value"]);
    expect(codes(t("x".repeat(65)))).toEqual(["invalid_value"]);
  });
  it("rejects a resource_type that is not a type name at load", () => {
    expect(
      loadError(
        "source: s\ntarget: t\nentity_map: {e: T}\nfield_map:\n  e.a: {target: T.b, transform: fhir_reference, config: {resource_type: patient}}\n",
      ),
    ).toContain("must be a FHIR resource type such as Patient");
  });
});
