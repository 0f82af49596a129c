// datetime_text: a date/time as zone-less wall-clock text "YYYY-MM-DD hh:mm:ss", as SQL-style targets store
// it. The offset is dropped (not converted). A value with only a date is completed per `missing_time`:
// "midnight" (00:00:00, the convention some targets document) or "omit" (nothing written, no issue).
// The year has four digits ("0950-03-04 00:00:00"), as the date forms do. A leap second (ISO 8601, FHIR and
// HL7 allow second 60) is written as second 59 with a warning: SQL timestamp columns refuse 60 (DuckDB) or
// roll it over into the next minute (PostgreSQL), so the text keeps the minute it was sent in.
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { DATE_FORMS, type DateParts, parseDate } from "./dates.js";
import { describeValue } from "./describe.js";
import { degrade, fail, type TransformDefinition, type Unmappable } from "./types.js";

const config = lazySchema((z) =>
  z
    .object({
      missing_time: z.enum(["midnight", "omit"]),
      /** A date without a day ("1990", "1990-05"): an issue (default), or nothing with "omit". */
      missing_day: z.enum(["fail", "omit"]).optional(),
    })
    .strict(),
);

const pad = (n: number | undefined): string => String(n ?? 0).padStart(2, "0");

/** "YYYY-MM-DD" of a date with a day, the year in four digits. */
export const sqlDay = (p: DateParts): string =>
  `${String(p.year).padStart(4, "0")}-${pad(p.month)}-${pad(p.day)}`;

/** "YYYY-MM-DD hh:mm:ss" of a date with a day (no time: midnight); a leap second as :59, said. */
export function sqlDateTime(p: DateParts, v: unknown): string | Unmappable {
  const day = sqlDay(p);
  if (p.second === 60) {
    return degrade(
      `${day} ${pad(p.hour)}:${pad(p.minute)}:59`,
      "precision_reduced",
      `${describeValue(v)} is a leap second, which SQL timestamps cannot hold; written as second 59`,
    );
  }
  return `${day} ${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
}

export const datetimeText: TransformDefinition<ConfigOf<typeof config>> = {
  get config() {
    return config();
  },
  description:
    'Zone-less "YYYY-MM-DD hh:mm:ss" text; a bare date becomes midnight or nothing, per missing_time.',
  create: (cfg) => (v) => {
    const p = parseDate(v);
    if (!p) return fail("invalid_date", `${describeValue(v)} is not a valid date: expected ${DATE_FORMS}`);
    if (p.day === undefined)
      return cfg.missing_day === "omit" ? undefined : fail("missing_value", `${describeValue(v)} has no day`);
    if (p.hour === undefined && cfg.missing_time === "omit") return undefined;
    return sqlDateTime(p, v);
  },
};
