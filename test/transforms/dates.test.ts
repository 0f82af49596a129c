import { describe, expect, it } from "vitest";
import { parseDate } from "../../src/transforms/dates.js";
import { compileDateFormatter, compileDateParser } from "../../src/transforms/strftime.js";

describe("parseDate", () => {
  it("reads ISO 8601 dates and datetimes at every precision", () => {
    expect(parseDate("1990")).toEqual({ year: 1990 });
    expect(parseDate("1990-05")).toEqual({ year: 1990, month: 5 });
    expect(parseDate("1990-05-15")).toEqual({ year: 1990, month: 5, day: 15 });
    expect(parseDate("1990-05-15T10:30")).toEqual({ year: 1990, month: 5, day: 15, hour: 10, minute: 30 });
    expect(parseDate("1990-05-15 10:30:05.250+02:00")).toEqual({
      year: 1990,
      month: 5,
      day: 15,
      hour: 10,
      minute: 30,
      second: 5,
      fraction: "250",
      offset: "+02:00",
    });
    expect(parseDate("2020-01-01T00:00:00Z")?.offset).toBe("Z");
    expect(parseDate("2020-01-01 23:59:59")).toEqual({
      year: 2020,
      month: 1,
      day: 1,
      hour: 23,
      minute: 59,
      second: 59,
    });
    expect(parseDate("2020-01-01X23:59:59")).toBeUndefined();
    expect(parseDate("2020-02-30 10:00:00")).toBeUndefined();
  });
  it("reads YYYYMMDD and HL7 TS/DTM, with the sender's offset", () => {
    expect(parseDate("19900515")).toEqual({ year: 1990, month: 5, day: 15 });
    expect(parseDate(19900515)).toEqual({ year: 1990, month: 5, day: 15 });
    expect(parseDate("199005")).toEqual({ year: 1990, month: 5 });
    expect(parseDate("20200102103000.1234-0500")).toEqual({
      year: 2020,
      month: 1,
      day: 2,
      hour: 10,
      minute: 30,
      second: 0,
      fraction: "1234",
      offset: "-05:00",
    });
    expect(parseDate("2020010210")).toEqual({ year: 2020, month: 1, day: 2, hour: 10 });
  });
  it("never guesses day/month order or other forms", () => {
    for (const s of ["01/02/2020", "2020/01/02", "Jan 2 2020", "15-05-1990", "1990-5-15", "abc", "", "123"]) {
      expect(parseDate(s)).toBeUndefined();
    }
  });
  it("rejects impossible calendar and clock values", () => {
    for (const s of [
      "1990-13-01",
      "1990-02-30",
      "1900-02-29",
      "2021-04-31",
      "1990-05-15T24:00",
      "1990-05-15T10:60",
      "19900230",
    ]) {
      expect(parseDate(s)).toBeUndefined();
    }
    expect(parseDate("2000-02-29")).toEqual({ year: 2000, month: 2, day: 29 });
    expect(parseDate("1990-05-15T10:00+15:00")).toBeUndefined();
  });
  it("accepts Date objects as UTC instants and rejects invalid ones", () => {
    expect(parseDate(new Date("2020-01-02T03:04:05.000Z"))).toMatchObject({
      year: 2020,
      hour: 3,
      offset: "Z",
    });
    expect(parseDate(new Date("x"))).toBeUndefined();
  });
});

describe("parseDate of HL7 TS/DTM", () => {
  it("reads every precision, a fraction and an offset", () => {
    expect(parseDate("2024")).toEqual({ year: 2024 });
    expect(parseDate("202402")).toEqual({ year: 2024, month: 2 });
    expect(parseDate("20240229")).toEqual({ year: 2024, month: 2, day: 29 });
    expect(parseDate("2024022913")).toEqual({ year: 2024, month: 2, day: 29, hour: 13 });
    expect(parseDate("202402291305-0500")).toEqual({
      year: 2024,
      month: 2,
      day: 29,
      hour: 13,
      minute: 5,
      offset: "-05:00",
    });
    expect(parseDate("20240229130559.0123+1400")).toEqual({
      year: 2024,
      month: 2,
      day: 29,
      hour: 13,
      minute: 5,
      second: 59,
      fraction: "0123",
      offset: "+14:00",
    });
  });

  // A leading space takes the value through the full grammar (the trimmed text against the ISO and HL7
  // expressions); the quick reading of HL7 TS must agree with it on every shape, valid or not.
  it("agrees with the full grammar", () => {
    const shapes = [
      "2024",
      "202412",
      "20241231",
      "2024123123",
      "202412312359",
      "20241231235959",
      "20241231235960",
      "20241231235959.1",
      "20241231235959.1234",
      "20241231235959.12345",
      "20241231235959.",
      "2024123123.5",
      "20241231+0100",
      "2024123112+0100",
      "202412311200-1459",
      "202412311200+1500",
      "202412311200+0160",
      "202412311200Z",
      "202412311200+01",
      "202412311200+01000",
      "2024123112005",
      "20241331",
      "20230229",
      "00000101",
      "2024-12-31",
      "20241231 ",
      "202412311200-0000",
      "20241231120000+0530",
      "2024123112000",
      "202412311200+0a00",
      "x2024",
      "2024123112.5+0100",
      "20241231235959.5-0330",
    ];
    for (const s of shapes) expect([s, parseDate(s)]).toEqual([s, parseDate(` ${s}`)]);
  });
});

describe("strftime patterns", () => {
  it("parses with an explicit input_format", () => {
    const p = compileDateParser("%d/%m/%Y");
    expect(p("01/02/2020")).toEqual({ year: 2020, month: 2, day: 1 });
    expect(p("31/02/2020")).toBeUndefined();
    expect(compileDateParser("%b %d %Y %H:%M")("Jan 05 2021 14:30")).toEqual({
      year: 2021,
      month: 1,
      day: 5,
      hour: 14,
      minute: 30,
    });
    expect(compileDateParser("%y%m%d")("690101")?.year).toBe(1969);
  });
  it("refuses patterns it cannot honour", () => {
    expect(() => compileDateParser("%d/%m")).toThrow('input_format "%d/%m" has no year (%Y or %y)');
    expect(() => compileDateParser("%Q")).toThrow('unsupported directive "%Q"');
  });
  it("formats and says which part is missing", () => {
    const f = compileDateFormatter("%Y%m%d");
    expect(f({ year: 1990, month: 5, day: 15 })).toBe("19900515");
    expect(f({ year: 1990, month: 5 })).toEqual({ missing: "day" });
    expect(
      compileDateFormatter("%H:%M:%S%z %%")({
        year: 1,
        month: 1,
        day: 1,
        hour: 9,
        minute: 5,
        second: 0,
        offset: "Z",
      }),
    ).toBe("09:05:00+0000 %");
  });
});
