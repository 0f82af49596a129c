// date_from_parts: a date from separate year, month and day fields (OMOP person's year/month/day_of_birth), as
// precise as the fields allow: "1998", "1998-04" or "1998-04-09". An impossible date is an issue, never guessed.

import { isUnset } from "./absent.js";
import { toInteger } from "./casts.js";
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { validParts } from "./dates.js";
import { describeValue } from "./describe.js";
import { fail, type SourceRecord, type TransformDefinition } from "./types.js";

const config = lazySchema((z) =>
  z
    .object({
      /** Field with the month (1-12); default: none, the date is the year alone. */
      month_field: z.string().min(1).optional(),
      /** Field with the day of the month; used only with a month. */
      day_field: z.string().min(1).optional(),
    })
    .strict(),
);

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

export const dateFromParts: TransformDefinition<ConfigOf<typeof config>> = {
  get config() {
    return config();
  },
  description:
    "A date from the year (the value) and optional month_field / day_field: YYYY, YYYY-MM or YYYY-MM-DD.",
  create: (cfg, ctx) => {
    const monthOf = cfg.month_field ? ctx.compileSourcePath(cfg.month_field) : undefined;
    const dayOf = cfg.day_field ? ctx.compileSourcePath(cfg.day_field) : undefined;
    return (v: unknown, record: SourceRecord) => {
      const year = toInteger(v);
      if (typeof year !== "number" || year < 1 || year > 9999)
        return fail("invalid_value", `${describeValue(v)} is not a year`);
      const rawMonth = monthOf?.(record);
      if (isUnset(rawMonth)) return pad(year, 4);
      const month = toInteger(rawMonth);
      if (typeof month !== "number" || !validParts({ year, month }))
        return fail("invalid_date", `month ${describeValue(rawMonth)} of ${year} is not a month`);
      const rawDay = dayOf?.(record);
      if (isUnset(rawDay)) return `${pad(year, 4)}-${pad(month)}`;
      const day = toInteger(rawDay);
      if (typeof day !== "number" || !validParts({ year, month, day }))
        return fail("invalid_date", `day ${describeValue(rawDay)} of ${year}-${pad(month)} is not a date`);
      return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
    };
  },
};
