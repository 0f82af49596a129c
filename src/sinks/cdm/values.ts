// One value of a mapped record as CSV text for its CDM column (the DDL's type), or why it cannot be one.
// CSV as COPY and the OHDSI loaders read it: RFC 4180 quoting, NULL as an empty unquoted field.
import type { DdlColumn } from "./ddl.js";

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;
const DECIMAL = /^-?\d+$/;
const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
const DATE = /^(\d{4}-\d{2}-\d{2})(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?$/;
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?)?$/;

/** A value's text, or a `Bad` saying why it does not fit the column. */
export class Bad {
  constructor(readonly message: string) {}
}

/** Quotes a text field when it must be (separators, quotes, line breaks, a leading backslash: COPY's `\.`). */
export function csvText(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 44 || c === 34 || c === 10 || c === 13 || (c === 92 && i === 0)) {
      return `"${s.replaceAll('"', '""')}"`;
    }
  }
  return s;
}

/** The key text of an id value (a number, the digits of a big one, or a string id); undefined when empty. */
export function keyText(value: unknown): string | undefined {
  switch (typeof value) {
    case "number":
      return Number.isFinite(value) ? String(value) : undefined;
    case "string":
      return value === "" ? undefined : value;
    case "bigint":
      return value.toString();
  }
  return undefined;
}

/** The CSV field of `value` for column `c` (not an id column); "" for null. */
export function fieldText(c: DdlColumn, value: unknown): string | Bad {
  if (value === null || value === undefined || value === "") return "";
  switch (c.kind) {
    case "integer":
    case "bigint": {
      let n: number | undefined;
      let text: string | undefined;
      if (typeof value === "number" && Number.isInteger(value)) {
        n = value;
        text = String(value);
      } else if (typeof value === "bigint") text = value.toString();
      else if (typeof value === "string" && DECIMAL.test(value)) text = value;
      if (text === undefined) return new Bad(`${describe(value)} is not an integer`);
      if (c.kind === "integer") {
        n ??= Number(text);
        if (n < INT_MIN || n > INT_MAX) return new Bad(`${text} does not fit the column's integer type`);
      }
      return text;
    }
    case "numeric":
      if (typeof value === "number" && Number.isFinite(value)) return String(value);
      if (typeof value === "bigint") return value.toString();
      if (typeof value === "string" && NUMBER.test(value)) return value;
      return new Bad(`${describe(value)} is not a number`);
    case "date": {
      if (typeof value === "string" && value.length === 10 && isIsoDay(value, 0)) return value;
      const m = typeof value === "string" ? DATE.exec(value) : null;
      return m && isCalendarDate(m[1]!) ? m[1]! : new Bad(`${describe(value)} is not a date (YYYY-MM-DD)`);
    }
    case "timestamp": {
      // The form the crossmaps write (and the CSV keeps as it is), checked without a regex: every row has some.
      if (typeof value === "string" && value.length === 19 && isIsoDay(value, 0) && isClock(value))
        return value;
      const m = typeof value === "string" ? TIMESTAMP.exec(value) : null;
      if (!m || !isCalendarDate(m[1]!) || !isClockText(m[2], m[3]))
        return new Bad(`${describe(value)} is not a date-time (YYYY-MM-DD hh:mm:ss)`);
      return `${m[1]} ${m[2] ?? "00:00"}${m[3] ?? ":00"}`;
    }
    case "text": {
      if (typeof value === "object") return new Bad(`${describe(value)} is not text`);
      let s = String(value);
      if (c.maxLength !== undefined && s.length > c.maxLength) s = truncate(s, c.maxLength);
      return csvText(s);
    }
  }
}

const digit = (s: string, i: number): number => {
  const d = s.charCodeAt(i) - 48;
  return d >= 0 && d <= 9 ? d : Number.NaN;
};

/** Whether `s` holds a real YYYY-MM-DD day at `at` (the same test as DATE and isCalendarDate). */
function isIsoDay(s: string, at: number): boolean {
  if (s.charCodeAt(at + 4) !== 45 || s.charCodeAt(at + 7) !== 45) return false;
  const y = digit(s, at) * 1000 + digit(s, at + 1) * 100 + digit(s, at + 2) * 10 + digit(s, at + 3);
  const m = digit(s, at + 5) * 10 + digit(s, at + 6);
  const d = digit(s, at + 8) * 10 + digit(s, at + 9);
  // NaN (a non-digit) fails every comparison.
  return y >= 1 && m >= 1 && m <= 12 && d >= 1 && d <= daysIn(y, m);
}

/**
 * " hh:mm:ss" at 10 of a 19-character date-time, a clock time from 00:00:00 to 23:59:59: DuckDB refuses a
 * leap second (second 60) and hour 24 for the whole batch, so they are refused here for the row.
 */
function isClock(s: string): boolean {
  return (
    s.charCodeAt(10) === 32 &&
    s.charCodeAt(13) === 58 &&
    s.charCodeAt(16) === 58 &&
    isTime(
      digit(s, 11) * 10 + digit(s, 12),
      digit(s, 14) * 10 + digit(s, 15),
      digit(s, 17) * 10 + digit(s, 18),
    )
  );
}

/** NaN (a non-digit) fails every comparison. */
const isTime = (h: number, m: number, sec: number): boolean =>
  h >= 0 && h <= 23 && m >= 0 && m <= 59 && sec >= 0 && sec <= 59;

/** "hh:mm" and ":ss[.f]" as TIMESTAMP captures them (absent parts are midnight). */
function isClockText(hm: string | undefined, ss: string | undefined): boolean {
  if (hm === undefined) return true;
  const sec = ss === undefined ? 0 : Number(ss.slice(1, 3));
  return isTime(Number(hm.slice(0, 2)), Number(hm.slice(3, 5)), sec);
}

function daysIn(y: number, m: number): number {
  if (m === 2) return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** A real day of the proleptic Gregorian calendar, year 1 or later (a database refuses 2020-02-30 for the whole batch). */
function isCalendarDate(ymd: string): boolean {
  const y = Number(ymd.slice(0, 4));
  const m = Number(ymd.slice(5, 7));
  const d = Number(ymd.slice(8, 10));
  if (y < 1 || m < 1 || m > 12 || d < 1) return false;
  return d <= daysIn(y, m);
}

/** The first `max` characters (code points, as PostgreSQL's varchar counts them). */
export function truncate(s: string, max: number): string {
  const points = Array.from(s);
  return points.length > max ? points.slice(0, max).join("") : s;
}

/** Whether fieldText shortened `value` for `c` (for the warning). */
export function isTooLong(c: DdlColumn, value: unknown): boolean {
  return (
    c.kind === "text" &&
    c.maxLength !== undefined &&
    typeof value === "string" &&
    value.length > c.maxLength &&
    Array.from(value).length > c.maxLength
  );
}

function describe(value: unknown): string {
  if (typeof value === "string")
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value);
  if (typeof value === "object") return Array.isArray(value) ? "an array" : "an object";
  return String(value);
}
