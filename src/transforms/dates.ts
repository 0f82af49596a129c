// Date and time values without guessing: ISO 8601, YYYYMMDD and HL7 TS/DTM are recognised; any other
// form needs an explicit strftime-style `input_format`. Precision and the sender's offset are kept.

export interface DateParts {
  year: number;
  month?: number;
  day?: number;
  hour?: number;
  minute?: number;
  second?: number;
  /** Fraction-of-second digits as written ("5", "123456"). */
  fraction?: string;
  /** "Z" or "+hh:mm" / "-hh:mm". */
  offset?: string;
}

const ISO =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?)?)?$/;
const HL7 =
  /^(\d{4})(?:(\d{2})(?:(\d{2})(?:(\d{2})(?:(\d{2})(?:(\d{2})(?:\.(\d{1,4}))?)?)?)?)?)?([+-]\d{4})?$/;

export const pad = (n: number, w = 2): string => String(n).padStart(w, "0");

/** The number of days of a month (1-12) of a year, leap years counted. */
export function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

export function normalizeOffset(raw: string | undefined): string | undefined | null {
  if (raw === undefined || raw === "") return undefined;
  if (raw === "Z") return "Z";
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(raw);
  if (!m) return null;
  const h = Number(m[2]);
  const min = Number(m[3] ?? "0");
  if (h > 14 || min > 59) return null;
  return `${m[1]}${m[2]}:${m[3] ?? "00"}`;
}

/** Checks calendar and clock ranges; returns the parts or undefined. */
export function validParts(p: DateParts): DateParts | undefined {
  if (p.year < 1) return undefined;
  if (p.month !== undefined && (p.month < 1 || p.month > 12)) return undefined;
  if (p.day !== undefined && (p.month === undefined || p.day < 1 || p.day > daysIn(p.year, p.month)))
    return undefined;
  if (p.hour !== undefined && (p.day === undefined || p.hour > 23)) return undefined;
  if (p.minute !== undefined && p.minute > 59) return undefined;
  if (p.second !== undefined && p.second > 60) return undefined;
  return p;
}

function fromMatch(m: RegExpExecArray, offsetRaw: string | undefined): DateParts | undefined {
  const p: DateParts = { year: Number(m[1]) };
  if (m[2] !== undefined) p.month = Number(m[2]);
  if (m[3] !== undefined) p.day = Number(m[3]);
  if (m[4] !== undefined) p.hour = Number(m[4]);
  if (m[5] !== undefined) p.minute = Number(m[5]);
  if (m[6] !== undefined) p.second = Number(m[6]);
  if (m[7] !== undefined) p.fraction = m[7];
  const offset = normalizeOffset(offsetRaw);
  if (offset === null) return undefined;
  // An offset only means something with a time; "2020-01-01+0100" is treated as malformed.
  if (offset !== undefined) {
    if (p.hour === undefined) return undefined;
    p.offset = offset;
  }
  return validParts(p);
}

/** Reads n ASCII digits at i, or -1. */
function digits(s: string, i: number, n: number): number {
  let v = 0;
  for (let k = 0; k < n; k++) {
    const c = s.charCodeAt(i + k) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/**
 * The two forms almost every export uses, `YYYY-MM-DD` and `YYYY-MM-DD[T ]hh:mm:ss`, read without a regex
 * (dates dominate mapping time otherwise). Anything else goes through the full grammar.
 */
function parseCommon(s: string): DateParts | undefined | null {
  const len = s.length;
  if ((len !== 10 && len !== 19) || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return null;
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  if (year < 0 || month < 0 || day < 0) return null;
  if (len === 10) return validParts({ year, month, day });
  const sep = s.charCodeAt(10);
  if ((sep !== 84 && sep !== 32) || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return null;
  const hour = digits(s, 11, 2);
  const minute = digits(s, 14, 2);
  const second = digits(s, 17, 2);
  if (hour < 0 || minute < 0 || second < 0) return null;
  return validParts({ year, month, day, hour, minute, second });
}

/**
 * HL7 TS/DTM as senders write it (`YYYY[MM[DD[HH[MM[SS[.S[S[S[S]]]]]]]]][+/-ZZZZ]`, digits only), read
 * without a regex: an HL7 v2 message holds a dozen, and the ISO then HL7 grammars cost more than the rest
 * of converting one. Undefined when the shape is right and the value is not (month 13, offset +2500);
 * null when the text has another shape (the full grammar decides).
 */
function parseHl7(s: string): DateParts | undefined | null {
  const len = s.length;
  let n = 0;
  while (n < len && n < 14) {
    const c = s.charCodeAt(n);
    if (c < 48 || c > 57) break;
    n++;
  }
  if (n < 4 || n % 2 !== 0) return null;
  let i = n;
  let fraction: string | undefined;
  if (i < len && s.charCodeAt(i) === 46) {
    if (n !== 14) return null;
    let j = i + 1;
    while (j < len && j - i <= 4) {
      const c = s.charCodeAt(j);
      if (c < 48 || c > 57) break;
      j++;
    }
    if (j === i + 1) return null;
    fraction = s.slice(i + 1, j);
    i = j;
  }
  let offset: string | undefined;
  if (i < len) {
    const sign = s.charCodeAt(i);
    if ((sign !== 43 && sign !== 45) || len !== i + 5) return null;
    const h = digits(s, i + 1, 2);
    const m = digits(s, i + 3, 2);
    if (h < 0 || m < 0) return null;
    // As normalizeOffset: a clock offset beyond +-14:59, or an offset on a date without a time, is invalid.
    if (h > 14 || m > 59 || n < 10) return undefined;
    offset = `${s[i]}${s.slice(i + 1, i + 3)}:${s.slice(i + 3, i + 5)}`;
  }
  const p: DateParts = { year: digits(s, 0, 4) };
  if (n >= 6) p.month = digits(s, 4, 2);
  if (n >= 8) p.day = digits(s, 6, 2);
  if (n >= 10) p.hour = digits(s, 8, 2);
  if (n >= 12) p.minute = digits(s, 10, 2);
  if (n >= 14) p.second = digits(s, 12, 2);
  if (fraction !== undefined) p.fraction = fraction;
  if (offset !== undefined) p.offset = offset;
  return validParts(p);
}

/** True when `s` is already a canonical FHIR date at day precision (so it can be returned as is). */
export const isCanonicalDay = (s: string): boolean =>
  s.length === 10 && s.charCodeAt(4) === 45 && s.charCodeAt(7) === 45;

/** Parses ISO 8601, YYYYMMDD or HL7 TS/DTM, a Date, or an integer like 19900515. */
export function parseDate(v: unknown): DateParts | undefined {
  if (typeof v === "string") {
    const common = parseCommon(v);
    if (common !== null) return common;
    const hl7 = parseHl7(v);
    if (hl7 !== null) return hl7;
  }
  if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) return undefined;
    return parseDate(v.toISOString());
  }
  let s: string;
  if (typeof v === "string") s = v.trim();
  else if ((typeof v === "number" && Number.isInteger(v) && v > 0) || typeof v === "bigint") s = String(v);
  else return undefined;
  const iso = ISO.exec(s);
  if (iso) return fromMatch(iso, iso[8]);
  const hl7 = HL7.exec(s);
  if (hl7) return fromMatch(hl7, hl7[8]);
  return undefined;
}

export const DATE_FORMS = "ISO 8601, YYYYMMDD or HL7 TS (give input_format for other forms)";

export function formatDate(p: DateParts): string {
  let s = String(p.year).padStart(4, "0");
  if (p.month !== undefined) s += `-${pad(p.month)}`;
  if (p.day !== undefined) s += `-${pad(p.day)}`;
  return s;
}

/** `YYYY-MM-DDThh:mm:ss[.f]±hh:mm`; requires a time and an offset. */
export function formatDateTime(p: DateParts, offset: string): string {
  const frac = p.fraction ? `.${p.fraction.slice(0, 9)}` : "";
  return `${formatDate(p)}T${pad(p.hour ?? 0)}:${pad(p.minute ?? 0)}:${pad(p.second ?? 0)}${frac}${offset}`;
}

export function parseOffsetSetting(raw: string): string | undefined {
  const o = normalizeOffset(raw.trim() === "UTC" ? "Z" : raw.trim());
  return o ?? undefined;
}
