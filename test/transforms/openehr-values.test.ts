import { describe, expect, it } from "vitest";
import { transformer } from "../helpers.js";

describe("dv_text", () => {
  it("wraps a scalar as DV_TEXT", () => {
    expect(transformer("dv_text")("Asthma").out).toEqual({ _type: "DV_TEXT", value: "Asthma" });
    expect(transformer("dv_text")(12).out).toEqual({ _type: "DV_TEXT", value: "12" });
  });
});

describe("dv_date_time", () => {
  it("writes an ISO 8601 DV_DATE_TIME, using the assumed zone for a time without one", () => {
    const t = transformer("dv_date_time", { assume_timezone: "Z" });
    expect(t("2013-05-17 08:30:00").out).toEqual({ _type: "DV_DATE_TIME", value: "2013-05-17T08:30:00Z" });
    expect(t("2013-05-17").out).toEqual({ _type: "DV_DATE_TIME", value: "2013-05-17" });
  });
  it("writes DV_DATE for type date", () => {
    expect(transformer("dv_date_time", { type: "date" })("1998-04-09 00:00:00").out).toEqual({
      _type: "DV_DATE",
      value: "1998-04-09",
    });
  });
  it("keeps the source's precision: a date stays a date, a time without a zone a local time", () => {
    const t = transformer("dv_date_time");
    expect(t("2013-05-17T08:30:00")).toEqual({
      out: { _type: "DV_DATE_TIME", value: "2013-05-17T08:30:00" },
      issues: [],
    });
    expect(t("2013-05-17 08:30:00+02:00").out).toEqual({
      _type: "DV_DATE_TIME",
      value: "2013-05-17T08:30:00+02:00",
    });
    expect(t("2013-05").out).toEqual({ _type: "DV_DATE_TIME", value: "2013-05" });
  });
  it("reports an invalid date", () => {
    expect(transformer("dv_date_time")("yesterday").issues[0]?.code).toBe("invalid_date");
  });
});

describe("dv_coded_text_from_coding", () => {
  const terminologies = { "http://snomed.info/sct": "SNOMED-CT", "http://loinc.org": "LOINC" };
  const t = transformer("dv_coded_text_from_coding", { terminologies });
  it("uses the first coding of a listed system, with its display", () => {
    const concept = {
      coding: [
        { system: "urn:other", code: "x" },
        { system: "http://loinc.org", code: "8302-2", display: "Body Height" },
      ],
      text: "Height",
    };
    expect(t(concept).out).toEqual({
      _type: "DV_CODED_TEXT",
      value: "Body Height",
      defining_code: {
        _type: "CODE_PHRASE",
        terminology_id: { _type: "TERMINOLOGY_ID", value: "LOINC" },
        code_string: "8302-2",
      },
    });
  });
  it("accepts a bare coding and falls back to the code as text", () => {
    expect(t({ system: "http://snomed.info/sct", code: "44054006" }).out).toMatchObject({
      value: "44054006",
    });
  });
  it("reports a concept with no listed system, or keeps its text when text_fallback is set", () => {
    const concept = { coding: [{ system: "urn:other", code: "x" }], text: "Something" };
    expect(t(concept).issues[0]?.message).toBe("no coding of a known terminology (systems: urn:other)");
    const r = transformer("dv_coded_text_from_coding", { terminologies, text_fallback: true })(concept);
    expect(r.out).toEqual({ _type: "DV_TEXT", value: "Something" });
    expect(r.issues[0]?.severity).toBe("warning");
  });
});
