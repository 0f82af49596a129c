// format: re-formats a date with strftime directives (`pattern: "%Y%m%d"`), or fills a string template
// (`pattern: "Patient/{value}"`, `"{given} {family}"`) from the value and other fields of the record.
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { DATE_FORMS, type DateParts, daysIn, parseDate } from "./dates.js";
import { describeValue, scalarKey } from "./describe.js";
import { compileDateFormatter, compileDateParser, hasDirective } from "./strftime.js";
import { degrade, fail, type Getter, type TransformDefinition } from "./types.js";

const config = lazySchema((z) =>
  z
    .object({
      pattern: z.string().min(1),
      input_format: z.string().min(1).optional(),
      /**
       * `end`: a date without its month or day is completed to the last it can be (December, the month's
       * last day), with a warning, instead of failing (the CDM's convention for a partial death date).
       */
      partial: z.enum(["end"]).optional(),
    })
    .strict(),
);
type Config = ConfigOf<typeof config>;

export const format: TransformDefinition<Config> = {
  get config() {
    return config();
  },
  description: "Date re-formatting with strftime directives, or a {placeholder} string template.",
  create: (cfg, ctx) => {
    if (hasDirective(cfg.pattern)) {
      const out = compileDateFormatter(cfg.pattern);
      const custom = cfg.input_format ? compileDateParser(cfg.input_format) : undefined;
      const expected = custom ? `the input_format "${cfg.input_format}"` : DATE_FORMS;
      const toEnd = cfg.partial === "end";
      return (v) => {
        const p: DateParts | undefined = custom && typeof v === "string" ? custom(v) : parseDate(v);
        if (!p) return fail("invalid_date", `${describeValue(v)} is not a valid date: expected ${expected}`);
        if (toEnd && p.day === undefined) {
          const month = p.month ?? 12;
          const s = out({ year: p.year, month, day: daysIn(p.year, month) });
          if (typeof s === "string") {
            return degrade(
              s,
              "date_completed",
              `${describeValue(v)} has no ${p.month === undefined ? "month or day" : "day"}: completed to its last day, ${s}`,
            );
          }
        }
        const s = out(p);
        return typeof s === "string"
          ? s
          : fail(
              "invalid_date",
              `${describeValue(v)} has no ${s.missing}, which the pattern "${cfg.pattern}" needs`,
            );
      };
    }
    if (cfg.input_format) throw new Error("input_format needs a pattern with date directives such as %Y");
    const parts = compileTemplate(cfg.pattern, ctx.compileSourcePath);
    return (v, record) => {
      let s = "";
      for (const part of parts) {
        if (typeof part === "string") {
          s += part;
          continue;
        }
        const x = part.get === undefined ? v : part.get(record);
        const text = scalarKey(x);
        if (text === undefined || text === "") {
          return fail(
            "missing_value",
            `{${part.name}} is ${x === undefined || x === null || x === "" ? "absent" : "not a scalar"}`,
          );
        }
        s += text;
      }
      return s;
    };
  },
};

type TemplatePart = string | { name: string; get?: Getter };

function compileTemplate(pattern: string, compile: (p: string) => Getter): TemplatePart[] {
  const parts: TemplatePart[] = [];
  const re = /\{\{|\}\}|\{([^{}]*)\}/g;
  let last = 0;
  let sawPlaceholder = false;
  for (const m of pattern.matchAll(re)) {
    const lit = pattern.slice(last, m.index);
    if (lit.includes("{") || lit.includes("}")) throw new Error(`unbalanced brace in pattern "${pattern}"`);
    parts.push(lit);
    last = (m.index ?? 0) + m[0].length;
    if (m[0] === "{{" || m[0] === "}}") {
      parts.push(m[0][0] as string);
      continue;
    }
    const name = (m[1] ?? "").trim();
    if (!name) throw new Error(`empty placeholder {} in pattern "${pattern}" (use {value})`);
    sawPlaceholder = true;
    parts.push(name === "value" ? { name } : { name, get: compile(name) });
  }
  const tail = pattern.slice(last);
  if (tail.includes("{") || tail.includes("}")) throw new Error(`unbalanced brace in pattern "${pattern}"`);
  parts.push(tail);
  if (!sawPlaceholder) {
    throw new Error(`pattern "${pattern}" has neither date directives (%Y, %m, ...) nor {placeholders}`);
  }
  return parts.filter((p) => p !== "");
}
