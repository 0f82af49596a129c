// date_part: one calendar or clock part of a date as an integer (year_of_birth from a birth date), for
// targets that store dates in pieces. A date without that part is an issue, never a guess.
import { z } from "zod";
import { DATE_FORMS, parseDate } from "./dates.js";
import { describeValue } from "./describe.js";
import { fail, type TransformDefinition } from "./types.js";

const config = z.object({ part: z.enum(["year", "month", "day", "hour", "minute", "second"]) }).strict();

export const datePart: TransformDefinition<z.infer<typeof config>> = {
  config,
  description: "One part (year, month, day, hour, minute, second) of a date as an integer.",
  create: (cfg) => (v) => {
    const p = parseDate(v);
    if (!p) return fail("invalid_date", `${describeValue(v)} is not a valid date: expected ${DATE_FORMS}`);
    const n = p[cfg.part];
    return n === undefined ? fail("missing_value", `${describeValue(v)} has no ${cfg.part}`) : n;
  },
};
