// Shared by fhir_date, fhir_period and hl7v2_field: input value -> FHIR date / dateTime / instant string.

import {
  DATE_FORMS,
  type DateParts,
  formatDate,
  formatDateTime,
  isCanonicalDay,
  parseDate,
  parseOffsetSetting,
} from "./dates.js";
import { describeValue } from "./describe.js";
import { compileDateParser } from "./strftime.js";
import { degrade, fail, type Unmappable } from "./types.js";

export type FhirDateType = "date" | "dateTime" | "instant";

export interface DateConvertOptions {
  type?: FhirDateType;
  input_format?: string;
  /** Offset to use for a time written without one, e.g. "Z" or "+01:00". Without it such a time is cut to its date. */
  assume_timezone?: string;
  /**
   * How the user gives that offset, for the issue of a time without one: the HL7 v2 reader's
   * `--assume-timezone`, else the field's `assume_timezone` (the default).
   */
  timezone_hint?: string;
}

const FIELD_HINT = "the field's assume_timezone";

/** Compiles the options once; throws (a load error) for a bad input_format or assume_timezone. */
export function compileDateConverter(opts: DateConvertOptions): (v: unknown) => string | Unmappable {
  const type = opts.type ?? "date";
  const parseCustom = opts.input_format ? compileDateParser(opts.input_format) : undefined;
  const parse = parseCustom
    ? (v: unknown): DateParts | undefined => (typeof v === "string" ? parseCustom(v) : parseDate(v))
    : parseDate;
  let assumed: string | undefined;
  if (opts.assume_timezone !== undefined) {
    assumed = parseOffsetSetting(opts.assume_timezone);
    if (assumed === undefined)
      throw new Error(`assume_timezone "${opts.assume_timezone}" is not Z, UTC or ±hh:mm`);
  }
  const expected = parseCustom ? `the input_format "${opts.input_format}"` : DATE_FORMS;
  const hint = opts.timezone_hint ?? FIELD_HINT;
  return (v) => {
    const p = parse(v);
    if (!p) return fail("invalid_date", `${describeValue(v)} is not a valid date: expected ${expected}`);
    if (type === "date" || p.hour === undefined) {
      if (type === "instant")
        return fail("invalid_date", `${describeValue(v)} has no time; an instant needs one`);
      // A valid 10-character input parsed to day precision is already the canonical form.
      return typeof v === "string" && p.day !== undefined && isCanonicalDay(v) ? v : formatDate(p);
    }
    const offset = p.offset ?? assumed;
    if (offset === undefined) {
      // An instant is a moment: a date, or a clock reading of unknown offset, is none (FHIR R4 instant
      // needs the full time and its offset), so nothing is written. A dateTime may be a date alone.
      if (type === "instant") {
        return fail(
          "invalid_date",
          `${describeValue(v)} has a time but no timezone offset, and an instant needs one; left out (${hint} gives the offset)`,
        );
      }
      return degrade(
        formatDate(p),
        "precision_reduced",
        `${describeValue(v)} has a time but no timezone offset, which FHIR requires; kept the date only (${hint} keeps the time)`,
      );
    }
    // An instant is written to the second: a time sent to the minute gets ":00", which adds nothing
    // (HL7 TS "200203150730+0215" is 07:30:00+02:15). A time to the hour is too coarse to call an instant.
    if (type === "instant" && (p.day === undefined || p.minute === undefined)) {
      return fail("invalid_date", `${describeValue(v)} is not precise to the minute; an instant needs that`);
    }
    return formatDateTime(p, offset);
  };
}
