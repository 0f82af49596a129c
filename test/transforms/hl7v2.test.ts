import { describe, expect, it } from "vitest";
import { splitField, unescapeHl7 } from "../../src/transforms/hl7v2.js";
import { codes, transformer } from "../helpers.js";

describe("HL7 v2 field text", () => {
  it("unescapes every standard escape", () => {
    expect(unescapeHl7("a\\F\\b\\S\\c\\T\\d\\R\\e\\E\\f\\.br\\g\\X41\\")).toBe("a|b^c&d~e\\f\ngA");
  });
  it("splits repetitions, components and subcomponents before unescaping", () => {
    expect(splitField("a\\S\\b^c&d~e")).toEqual([[["a^b"], ["c", "d"]], [["e"]]]);
    expect(splitField(["x", ["y", "z"]])).toEqual([[["x"], ["y", "z"]]]);
    expect(splitField({})).toBeUndefined();
  });
});

describe("hl7v2_field", () => {
  it("ST picks a component and subcomponent", () => {
    expect(transformer("hl7v2_field", { format: "ST" })("12345^^^MRN").out).toBe("12345");
    expect(transformer("hl7v2_field", { format: "ST", component: 4 })("12345^^^MRN").out).toBe("MRN");
  });
  it("NM gives a number or an issue", () => {
    expect(transformer("hl7v2_field", { format: "NM" })("7.5").out).toBe(7.5);
    expect(codes(transformer("hl7v2_field", { format: "NM" })("high"))).toEqual(["invalid_value"]);
  });
  it("TS gives a dateTime with the sender's offset, DT a date", () => {
    expect(transformer("hl7v2_field", { format: "TS" })("20200102103000-0500").out).toBe(
      "2020-01-02T10:30:00-05:00",
    );
    expect(transformer("hl7v2_field", { format: "DT" })("19800304").out).toBe("1980-03-04");
  });
  it("CX gives an Identifier with assigning authority and type", () => {
    expect(
      transformer("hl7v2_field", { format: "CX" })("PID1234^5^M11^HOSP&2.16.840.1.113883.19&ISO^MR").out,
    ).toEqual({
      type: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0203", code: "MR" }] },
      system: "urn:oid:2.16.840.1.113883.19",
      value: "PID1234",
      assigner: { display: "HOSP" },
    });
  });
  it("XPN gives a HumanName", () => {
    expect(transformer("hl7v2_field", { format: "XPN" })("JONES^WILLIAM^A^III^DR^^L").out).toEqual({
      use: "official",
      family: "JONES",
      given: ["WILLIAM", "A"],
      prefix: ["DR"],
      suffix: ["III"],
    });
  });
  it("XAD gives an Address", () => {
    expect(
      transformer("hl7v2_field", { format: "XAD" })("1200 N ELM STREET^^GREENSBORO^NC^27401-1020^USA^H").out,
    ).toEqual({
      use: "home",
      line: ["1200 N ELM STREET"],
      city: "GREENSBORO",
      state: "NC",
      postalCode: "27401-1020",
      country: "USA",
    });
  });
  it("XTN gives a ContactPoint", () => {
    expect(transformer("hl7v2_field", { format: "XTN" })("(919)379-1212^PRN^PH").out).toEqual({
      system: "phone",
      value: "(919)379-1212",
      use: "home",
    });
    expect(transformer("hl7v2_field", { format: "XTN" })("^NET^Internet^a@b.org").out).toEqual({
      system: "email",
      value: "a@b.org",
    });
  });
  it("CWE gives a CodeableConcept, with systems from config and a warning for unknown ones", () => {
    const t = transformer("hl7v2_field", { format: "CWE", systems: { LN: "http://loinc.org" } });
    expect(t("8302-2^Body height^LN").out).toEqual({
      coding: [{ system: "http://loinc.org", code: "8302-2", display: "Body height" }],
    });
    const r = t("X1^Thing^LOCAL");
    expect(r.out).toEqual({ coding: [{ code: "X1", display: "Thing" }] });
    expect(r.issues[0]).toMatchObject({ code: "unmapped_value", severity: "warning" });
  });
  it("repetition picks one, or all", () => {
    expect(transformer("hl7v2_field", { format: "ST", repetition: 2 })("a~b").out).toBe("b");
    expect(transformer("hl7v2_field", { format: "ST", repetition: "all" })("a~~b").out).toEqual(["a", "b"]);
    expect(transformer("hl7v2_field", { format: "ST", repetition: 3 })("a~b")).toEqual({
      out: undefined,
      issues: [],
    });
  });
});
