// fhir_extension writes a value into {url, value[x]}; extension_value finds it by url and converts it back.
import { describe, expect, it } from "vitest";
import { codes, transformer } from "../helpers.js";

const URL = "https://example.org/x";
const write = (type: string, extra: Record<string, unknown> = {}) =>
  transformer("fhir_extension", { url: URL, value_type: type, ...extra });
const read = (as: string, extra: Record<string, unknown> = {}) =>
  transformer("extension_value", { url: URL, as, ...extra });

describe("fhir_extension", () => {
  it("writes each value type", () => {
    expect(write("string")("0").out).toEqual({ url: URL, valueString: "0" });
    expect(write("integer")("14").out).toEqual({ url: URL, valueInteger: 14 });
    expect(write("decimal")("0.5").out).toEqual({ url: URL, valueDecimal: 0.5 });
    expect(write("date")("2014-05-06").out).toEqual({ url: URL, valueDate: "2014-05-06" });
    expect(write("dateTime")("2014-05-06 10:00:00").out).toEqual({
      url: URL,
      valueDateTime: "2014-05-06T10:00:00Z",
    });
    expect(write("Coding", { system: "S" })("32869").out).toEqual({
      url: URL,
      valueCoding: { system: "S", code: "32869" },
    });
    expect(write("Reference", { resource_type: "Encounter", id_prefix: "visit-detail-" })("-12").out).toEqual(
      {
        url: URL,
        valueReference: { reference: "Encounter/visit-detail--12" },
      },
    );
  });
  it("refuses a value that does not fit its type", () => {
    expect(codes(write("integer")("3000000000"))).toEqual(["invalid_value"]);
    expect(codes(write("date")("May 6"))).toEqual(["invalid_date"]);
  });
});

describe("extension_value", () => {
  const list = [
    { url: "other", valueString: "no" },
    { url: URL, valueReference: { reference: "Encounter/visit-detail-9223372036854775807" } },
  ];
  it("reads the extension with its url and converts its value", () => {
    expect(read("id", { prefix: "visit-detail-" })(list).out).toBe(9223372036854775807n);
    expect(read("integer")([{ url: URL, valueCoding: { system: "S", code: "32869" } }]).out).toBe(32869);
    expect(read("string")([{ url: URL, valueString: "1.0" }]).out).toBe("1.0");
    expect(read("date")([{ url: URL, valueDateTime: "2014-05-06T10:00:00+02:00" }]).out).toBe("2014-05-06");
    expect(read("datetime")([{ url: URL, valueDate: "2014-05-06" }]).out).toBe("2014-05-06 00:00:00");
  });
  it("writes dates as datetime_text does: four-digit years, a leap second as :59 with a warning", () => {
    expect(read("date")([{ url: URL, valueDate: "0950-03-04" }]).out).toBe("0950-03-04");
    const leap = read("datetime")([{ url: URL, valueDateTime: "2016-12-31T23:59:60Z" }]);
    expect([leap.out, leap.issues.map((i) => [i.code, i.severity])]).toEqual([
      "2016-12-31 23:59:59",
      [["precision_reduced", "warning"]],
    ]);
  });
  it("writes no id for a contained or conditional reference, with a warning", () => {
    const r = read("id")([{ url: URL, valueReference: { reference: "#loc1" } }]);
    expect([r.out, r.issues.map((i) => [i.code, i.severity])]).toEqual([
      undefined,
      [["unresolved_reference", "warning"]],
    ]);
  });
  it("writes nothing when the extension is absent", () => {
    expect(read("string")([{ url: "other", valueString: "x" }])).toEqual({ out: undefined, issues: [] });
  });
});
