// datetime_text: a date/time as zone-less wall-clock text "YYYY-MM-DD hh:mm:ss", as SQL-style targets store
// it. The offset is dropped (not converted). A value with only a date is completed per `missing_time`:
// "midnight" (00:00:00, the convention some targets document) or "omit" (nothing written, no issue).
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { DATE_FORMS, parseDate } from "./dates.js";
import { describeValue } from "./describe.js";
import { fail, type TransformDefinition } from "./types.js";

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
    return `${p.year}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
  },
};
