// date_part: one calendar or clock part of a date as an integer (year_of_birth from a birth date), for
// targets that store dates in pieces. A date without that part is an issue, never a guess.
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { DATE_FORMS, parseDate } from "./dates.js";
import { describeValue } from "./describe.js";
import { fail, type TransformDefinition } from "./types.js";

const config = lazySchema((z) =>
  z
    .object({
      part: z.enum(["year", "month", "day", "hour", "minute", "second"]),
      /** true: a date less precise than the part (a birthDate of "1990" has no month) yields nothing, no issue. */
      optional: z.boolean().optional(),
    })
    .strict(),
);

export const datePart: TransformDefinition<ConfigOf<typeof config>> = {
  get config() {
    return config();
  },
  description:
    "One part (year, month, day, hour, minute, second) of a date as an integer; `optional`: nothing when the date lacks it.",
  create: (cfg) => (v) => {
    const p = parseDate(v);
    if (!p) return fail("invalid_date", `${describeValue(v)} is not a valid date: expected ${DATE_FORMS}`);
    const n = p[cfg.part];
    if (n !== undefined) return n;
    return cfg.optional ? undefined : fail("missing_value", `${describeValue(v)} has no ${cfg.part}`);
  },
};
