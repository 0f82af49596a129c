// quantity: a number with its unit as one object ({value, unit, system, code}), written only when the number
// is there, so a unit never appears without the value it qualifies. The unit's code system comes from config.
import { toFloat } from "./casts.js";
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { describeValue, scalarKey } from "./describe.js";
import { fail, type Getter, type TransformDefinition } from "./types.js";

const config = lazySchema((z) =>
  z
    .object({
      /** Field holding the human-readable unit. */
      unit_field: z.string().min(1).optional(),
      /** Field holding the unit's code; default: unit_field (UCUM units are their own codes). */
      code_field: z.string().min(1).optional(),
      /** System of the unit code, written only next to a code (e.g. http://unitsofmeasure.org). */
      system: z.string().min(1).optional(),
    })
    .strict(),
);

const text = (get: Getter | undefined, record: Record<string, unknown>): string | undefined => {
  const s = get ? scalarKey(get(record)) : undefined;
  return s === undefined || s.trim() === "" ? undefined : s;
};

export const quantity: TransformDefinition<ConfigOf<typeof config>> = {
  get config() {
    return config();
  },
  description: "{value, unit, system, code} from the number and unit fields; nothing without the number.",
  create: (cfg, ctx) => {
    const unitOf = cfg.unit_field ? ctx.compileSourcePath(cfg.unit_field) : undefined;
    const codeField = cfg.code_field ?? cfg.unit_field;
    const codeOf = codeField ? ctx.compileSourcePath(codeField) : undefined;
    return (v, record) => {
      const value = toFloat(v);
      if (value === undefined) return fail("invalid_value", `${describeValue(v)} is not a number`);
      const out: Record<string, unknown> = { value };
      const unit = text(unitOf, record);
      if (unit !== undefined) out.unit = unit;
      const code = text(codeOf, record);
      if (code !== undefined) {
        if (cfg.system) out.system = cfg.system;
        out.code = code;
      }
      return out;
    };
  },
};
