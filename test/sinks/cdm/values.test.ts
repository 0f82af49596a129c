// One value as CSV text for its CDM column: dates and date-times in the forms the crossmaps write (read
// without a regex) and in the other forms they may come in, real calendar days only.
import { describe, expect, it } from "vitest";
import type { DdlColumn } from "../../../src/sinks/cdm/ddl.js";
import { Bad, fieldText } from "../../../src/sinks/cdm/values.js";

const date: DdlColumn = { name: "d", type: "date", kind: "date", notNull: false };
const timestamp: DdlColumn = { name: "t", type: "TIMESTAMP", kind: "timestamp", notNull: false };
const text = (c: DdlColumn, v: unknown) => {
  const f = fieldText(c, v);
  return f instanceof Bad ? `Bad: ${f.message}` : f;
};

describe("fieldText dates", () => {
  it("keeps a real YYYY-MM-DD day and cuts a date-time to its day", () => {
    expect(
      ["2020-02-29", "2020-02-29T10:00:00", "1999-12-31 23:59", "0001-01-01"].map((v) => text(date, v)),
    ).toEqual(["2020-02-29", "2020-02-29", "1999-12-31", "0001-01-01"]);
  });

  it("refuses a day the calendar lacks and a malformed date", () => {
    expect(
      [
        "2019-02-29",
        "2100-02-29",
        "2020-04-31",
        "2020-13-01",
        "0000-01-01",
        "2020-1-01",
        "2020-01-0a",
        "2020/01/01",
      ].map((v) => text(date, v)),
    ).toEqual([
      'Bad: "2019-02-29" is not a date (YYYY-MM-DD)',
      'Bad: "2100-02-29" is not a date (YYYY-MM-DD)',
      'Bad: "2020-04-31" is not a date (YYYY-MM-DD)',
      'Bad: "2020-13-01" is not a date (YYYY-MM-DD)',
      'Bad: "0000-01-01" is not a date (YYYY-MM-DD)',
      'Bad: "2020-1-01" is not a date (YYYY-MM-DD)',
      'Bad: "2020-01-0a" is not a date (YYYY-MM-DD)',
      'Bad: "2020/01/01" is not a date (YYYY-MM-DD)',
    ]);
  });

  it("writes date-times as YYYY-MM-DD hh:mm:ss whatever form they came in", () => {
    expect(
      [
        "2020-02-29 10:20:30",
        "2020-02-29T10:20:30",
        "2020-02-29T10:20",
        "2020-02-29",
        "2020-02-29 10:20:30.5",
      ].map((v) => text(timestamp, v)),
    ).toEqual([
      "2020-02-29 10:20:30",
      "2020-02-29 10:20:30",
      "2020-02-29 10:20:00",
      "2020-02-29 00:00:00",
      "2020-02-29 10:20:30.5",
    ]);
    expect(
      [
        "2019-02-29 10:20:30",
        "2020-02-29 1a:20:30",
        "2020-02-29 10-20-30",
        "2020-02-29 10:20:3",
        // A leap second and hour 24 (DuckDB refuses them for the whole batch), a minute 60, in both forms.
        "2016-12-31 23:59:60",
        "2016-12-31T23:59:60Z",
        "2016-12-31 24:00:00",
        "2016-12-31T10:60",
      ].map((v) => text(timestamp, v)),
    ).toEqual([
      'Bad: "2019-02-29 10:20:30" is not a date-time (YYYY-MM-DD hh:mm:ss)',
      'Bad: "2020-02-29 1a:20:30" is not a date-time (YYYY-MM-DD hh:mm:ss)',
      'Bad: "2020-02-29 10-20-30" is not a date-time (YYYY-MM-DD hh:mm:ss)',
      'Bad: "2020-02-29 10:20:3" is not a date-time (YYYY-MM-DD hh:mm:ss)',
      'Bad: "2016-12-31 23:59:60" is not a date-time (YYYY-MM-DD hh:mm:ss)',
      'Bad: "2016-12-31T23:59:60Z" is not a date-time (YYYY-MM-DD hh:mm:ss)',
      'Bad: "2016-12-31 24:00:00" is not a date-time (YYYY-MM-DD hh:mm:ss)',
      'Bad: "2016-12-31T10:60" is not a date-time (YYYY-MM-DD hh:mm:ss)',
    ]);
  });
});
