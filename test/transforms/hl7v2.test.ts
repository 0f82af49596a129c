import { describe, expect, it } from "vitest";
import { splitField, unescapeHl7 } from "../../src/transforms/hl7v2.js";
import { ER7, fieldValue } from "../../src/transforms/hl7v2-value.js";
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
  it("XTN as the IG's XTN[ContactPoint]: XTN-12 first, then the parts, then XTN-1; use from XTN-2, else the field's", () => {
    const t = transformer("hl7v2_field", { format: "XTN", use: "home" });
    expect(t("78788788^^CP^^^^1111^^^^^2222").out).toEqual({ system: "phone", value: "2222", use: "home" });
    expect(t("^WPN^PH^^1^919^3791212^42").out).toEqual({
      system: "phone",
      value: "+1 919 3791212 X42",
      use: "work",
    });
    expect(t("5551212^^CP").out).toEqual({ system: "phone", value: "5551212", use: "home" });
    expect(t("1111^^TDD").out).toEqual({ system: "other", value: "1111", use: "home" });
    expect(transformer("hl7v2_field", { format: "XTN" })("5551212^^CP").out).toEqual({
      system: "phone",
      value: "5551212",
      use: "mobile",
    });
  });
  it("CX with identifier_type writes the type the IG assigns, whatever CX-5 says", () => {
    const t = transformer("hl7v2_field", {
      format: "CX",
      identifier_type: { code: "VN", text: "visit number" },
    });
    expect(t("40007716^^^AccMng^AM").out).toEqual({
      type: {
        coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0203", code: "VN" }],
        text: "visit number",
      },
      value: "40007716",
      assigner: { display: "AccMng" },
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
  it("CWE writes a code's runs of whitespace (a padded local code, a tab) as one space, which FHIR's code allows, and says so", () => {
    const t = transformer("hl7v2_field", { format: "CWE", systems: { LN: "http://loinc.org" } });
    expect(t("CBC  PANEL^Blood count^LN")).toEqual({
      out: { coding: [{ system: "http://loinc.org", code: "CBC PANEL", display: "Blood count" }] },
      issues: [
        expect.objectContaining({
          code: "value_normalized",
          severity: "warning",
          message: 'code "CBC  PANEL" has whitespace FHIR\'s code type cannot hold; written as "CBC PANEL"',
        }),
      ],
    });
    expect(t("WBC\tCOUNT^WBC^L").issues.map((i) => i.message)).toEqual([
      'coding system "L" has no URI in systems; coding written without system; code "WBC\tCOUNT" has whitespace FHIR\'s code type cannot hold; written as "WBC COUNT"',
    ]);
    expect(t("CBC PANEL^Blood count^LN").issues).toEqual([]);
    // A single space other than U+0020 (NBSP, EM SPACE) does not fit FHIR's pattern either.
    expect(t("A\u00a0B^x^LN").out).toEqual({
      coding: [{ system: "http://loinc.org", code: "A B", display: "x" }],
    });
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

describe("hl7v2_field on records of the ER7 reader", () => {
  const er7 = { [ER7]: true };
  it("takes a reader's plain string as one unescaped value, never splitting it again", () => {
    const t = transformer("hl7v2_field", { format: "XPN" });
    expect(t("O^BRIEN", er7).out).toEqual({ family: "O^BRIEN" });
    expect(t("O^BRIEN").out).toEqual({ family: "O", given: ["BRIEN"] });
  });
  it("takes the reader's split of every repetition from a node", () => {
    const node = fieldValue([
      [["123"], [""], [""], ["HOSP", "1.2.3", "ISO"], ["MR"]],
      [["9"], [""], [""], ["SSA"], ["SS"]],
    ]);
    expect(transformer("hl7v2_field", { format: "CX", repetition: "all" })(node, er7).out).toEqual([
      {
        type: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0203", code: "MR" }] },
        system: "urn:oid:1.2.3",
        value: "123",
        assigner: { display: "HOSP" },
      },
      {
        type: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0203", code: "SS" }] },
        value: "9",
        assigner: { display: "SSA" },
      },
    ]);
  });
});

describe("hl7v2_field extensions", () => {
  const systems = {
    UCUM: "http://unitsofmeasure.org",
    LN: "http://loinc.org",
    "HL7*": "http://terminology.hl7.org/CodeSystem/v2-*",
  };
  it("NM with unit_field gives a Quantity, with a UCUM code only when the units name their system", () => {
    const t = transformer("hl7v2_field", { format: "NM", unit_field: "units", systems });
    expect(t("0.5", { units: "mL^milliliter^UCUM" }).out).toEqual({
      value: 0.5,
      unit: "milliliter",
      system: "http://unitsofmeasure.org",
      code: "mL",
    });
    expect(t("72", { units: "%" }).out).toEqual({ value: 72, unit: "%" });
    expect(t("72", {}).out).toEqual({ value: 72 });
    expect(codes(t("n/a", { units: "%" }))).toEqual(["invalid_value"]);
  });
  it("with ucum, units sent without a coding system that are valid UCUM are written as UCUM", () => {
    const t = transformer("hl7v2_field", { format: "NM", unit_field: "units", systems, ucum: true });
    const ucum = (unit: string) => ({ value: 1, unit, system: "http://unitsofmeasure.org", code: unit });
    expect(t("1", { units: "%" }).out).toEqual(ucum("%"));
    expect(t("1", { units: "mg/dL" }).out).toEqual(ucum("mg/dL"));
    expect(t("1", { units: "10*3/uL" }).out).toEqual(ucum("10*3/uL"));
    expect(t("1", { units: "mm[Hg]" }).out).toEqual(ucum("mm[Hg]"));
    expect(t("1", { units: "g/l-1" }).out).toEqual(ucum("g/l-1"));
    expect(t("1", { units: "{beats}/min" }).out).toEqual(ucum("{beats}/min"));
    // Not UCUM: the text only.
    expect(t("1", { units: "giga.l-1" }).out).toEqual({ value: 1, unit: "giga.l-1" });
    expect(t("1", { units: "beats/min" }).out).toEqual({ value: 1, unit: "beats/min" });
    expect(t("1", { units: "mg / dL" }).out).toEqual({ value: 1, unit: "mg / dL" });
    // A named system that is not UCUM: no code, whatever the units look like.
    expect(t("1", { units: "beats/min^^ISO" }).out).toEqual({ value: 1, unit: "beats/min" });
    expect(t("1", { units: "mg^milligram^UCUM" }).out).toEqual({ ...ucum("milligram"), code: "mg" });
    const cq = transformer("hl7v2_field", { format: "CQ", systems, ucum: true });
    expect(cq("40^mL").out).toEqual({
      value: 40,
      unit: "mL",
      system: "http://unitsofmeasure.org",
      code: "mL",
    });
    expect(cq("40^lbs").out).toEqual({ value: 40, unit: "lbs" });
  });
  it("SN gives a Quantity with its comparator, a bare number too, and reports ranges and ratios", () => {
    const t = transformer("hl7v2_field", { format: "SN", unit_field: "units", systems });
    expect(t(">^10", { units: "mg/dL^^UCUM" }).out).toEqual({
      value: 10,
      comparator: ">",
      unit: "mg/dL",
      system: "http://unitsofmeasure.org",
      code: "mg/dL",
    });
    expect(t("=^7.5", {}).out).toEqual({ value: 7.5 });
    expect(t("<=^0.1", {}).out).toEqual({ value: 0.1, comparator: "<=" });
    expect(t("72", { units: "%" }).out).toEqual({ value: 72, unit: "%" });
    expect(t("^1^:^2", {}).issues).toMatchObject([
      { code: "unmapped_value", message: 'SN "^1^:^2" is a range or ratio, not one Quantity' },
    ]);
    expect(t("!^5", {}).issues).toMatchObject([
      { code: "invalid_value", message: '"!" is not an SN comparator' },
    ]);
  });
  it("join renders every repetition and joins them (FT/TX text, line by line)", () => {
    const t = transformer("hl7v2_field", { format: "ST", join: "\n" });
    expect(t("line 1~~line 3").out).toBe("line 1\nline 3");
    expect(t("only").out).toBe("only");
  });
  it("when renders only if another field holds one of the listed values", () => {
    const t = transformer("hl7v2_field", { format: "ST", when: { field: "type", in: ["ST", "TX"] } });
    expect(t("hello", { type: "TX" }).out).toBe("hello");
    expect(t("hello", { type: "NM" })).toEqual({ out: undefined, issues: [] });
    expect(t("hello", {})).toEqual({ out: undefined, issues: [] });
  });
  it("systems keys ending in * match by prefix: HL70078 -> .../v2-0078", () => {
    const t = transformer("hl7v2_field", { format: "CWE", systems });
    expect(t("H^High^HL70078").out).toEqual({
      coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0078", code: "H", display: "High" }],
    });
    expect(codes(t("H^High^HL7"))).toEqual(["unmapped_value"]);
  });
  it("default_system names the system of codings sent without one", () => {
    const t = transformer("hl7v2_field", {
      format: "CWE",
      default_system: "http://terminology.hl7.org/CodeSystem/v2-0002",
    });
    expect(t("M^Married").out).toEqual({
      coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0002", code: "M", display: "Married" }],
    });
  });
  it("TS as an instant keeps a time to the minute with its offset, seconds padded", () => {
    const t = transformer("hl7v2_field", { format: "TS", type: "instant" });
    expect(t("20141006092900+0700").out).toBe("2014-10-06T09:29:00+07:00");
    expect(t("200203150730+0215").out).toBe("2002-03-15T07:30:00+02:15");
    expect(codes(t("2008013116+0215"))).toEqual(["invalid_date"]);
  });
  it("TS keeps the sender's offset and, without one, keeps only the date with a warning", () => {
    const t = transformer("hl7v2_field", { format: "TS" });
    expect(t("20290801070624+0115").out).toBe("2029-08-01T07:06:24+01:15");
    const r = t("20070725111624");
    expect(r.out).toBe("2007-07-25");
    expect(r.issues.map((i) => [i.code, i.severity, i.message])).toEqual([
      [
        "precision_reduced",
        "warning",
        '"20070725111624" has a time but no timezone offset, which FHIR requires; kept the date only (--assume-timezone keeps the time)',
      ],
    ]);
  });
  it("TS into an instant is never a date: without an offset (or --assume-timezone), or a date alone, it is left out", () => {
    const t = transformer("hl7v2_field", { format: "TS", type: "instant" });
    const noZone = t("20230814022400");
    expect(noZone.out).toBeUndefined();
    expect(noZone.issues.map((i) => [i.code, i.severity, i.message])).toEqual([
      [
        "invalid_date",
        "error",
        '"20230814022400" has a time but no timezone offset, and an instant needs one; left out (--assume-timezone gives the offset)',
      ],
    ]);
    for (const v of ["20230820", "202308", "2023", "202308140224", "2023081402"]) {
      expect(t(v).out, v).toBeUndefined();
      expect(codes(t(v)), v).toEqual(["invalid_date"]);
    }
    expect(t("20230814022400", { $ctx: { timezone: "Z" } }).out).toBe("2023-08-14T02:24:00Z");
    expect(t("20230814022400.5", { $ctx: { timezone: "-05:00" } }).out).toBe("2023-08-14T02:24:00.5-05:00");
    expect(t("20230814", { $ctx: { timezone: "Z" } }).out).toBeUndefined();
  });
  it("DR converts each half alone: a time without an offset is cut to its date and named, never written as a bare string", () => {
    const t = transformer("hl7v2_field", { format: "DR" });
    const r = t("2023081402^20230815");
    expect(r.out).toEqual({ start: "2023-08-14", end: "2023-08-15" });
    expect(r.issues.map((i) => [i.code, i.severity])).toEqual([["precision_reduced", "warning"]]);
    expect(t("2023081402").out).toEqual({ start: "2023-08-14" });
    // As fhir_period: an invalid half is left out with a warning; nothing valid, an error.
    const half = t("junk^20230815");
    expect(half.out).toEqual({ end: "2023-08-15" });
    expect(half.issues.map((i) => [i.code, i.severity])).toEqual([["invalid_date", "warning"]]);
    expect(t("junk^").issues.map((i) => [i.code, i.severity])).toEqual([["invalid_date", "error"]]);
  });
  it("DR takes the run's --assume-timezone too", () => {
    const t = transformer("hl7v2_field", { format: "DR" });
    expect(t("20230814022400^20230815", { $ctx: { timezone: "+01:00" } }).out).toEqual({
      start: "2023-08-14T02:24:00+01:00",
      end: "2023-08-15",
    });
  });
  it("CX-5 outside identifier_types keeps its text instead of a wrong v2-0203 coding", () => {
    const t = transformer("hl7v2_field", { format: "CX", identifier_types: ["MR", "SS"] });
    expect(t("123^^^^MR").out).toEqual({
      type: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0203", code: "MR" }] },
      value: "123",
    });
    expect(t("PSSN1^^^^Soc Sec").out).toEqual({ type: { text: "Soc Sec" }, value: "PSSN1" });
  });
  it("a TS without an offset takes the run's --assume-timezone from the record context", () => {
    const t = transformer("hl7v2_field", { format: "TS" });
    expect(t("20070725111624", { $ctx: { timezone: "+02:00" } }).out).toBe("2007-07-25T11:16:24+02:00");
    expect(t("20070725111624+0100", { $ctx: { timezone: "+02:00" } }).out).toBe("2007-07-25T11:16:24+01:00");
    const own = transformer("hl7v2_field", { format: "TS", assume_timezone: "Z" });
    expect(own("20070725111624", { $ctx: { timezone: "+02:00" } }).out).toBe("2007-07-25T11:16:24Z");
  });
  it("XAD writes street address, street name and dwelling number as lines (IG SAD) and trims padding", () => {
    expect(
      transformer("hl7v2_field", { format: "XAD" })("1000&Hospital Lane&Apt 2^Ste. 123^Ann Arbor ^MI").out,
    ).toEqual({
      line: ["1000", "Hospital Lane", "Apt 2", "Ste. 123"],
      city: "Ann Arbor",
      state: "MI",
    });
  });
  it("repetition all keeps the repetitions it could convert and names the ones it could not", () => {
    const r = transformer("hl7v2_field", { format: "NM", repetition: "all" })("1~x~3");
    expect(r.out).toEqual([1, 3]);
    expect(r.issues).toMatchObject([
      { code: "invalid_value", severity: "warning", message: 'repetition 2: "x" is not a number' },
    ]);
  });
});
