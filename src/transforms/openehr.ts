// openEHR Reference Model data values in canonical JSON: dv_quantity, dv_coded_text.
import { z } from "zod";
import { toFloat } from "./casts.js";
import { describeValue, scalarKey } from "./describe.js";
import { fail, type TransformDefinition } from "./types.js";

const qConfig = z
  .object({ unit_field: z.string().min(1).optional(), units: z.string().min(1).optional() })
  .strict()
  .refine((c) => c.unit_field !== undefined || c.units !== undefined, {
    message: "give unit_field or units (DV_QUANTITY requires units)",
  });

export const dvQuantity: TransformDefinition<z.infer<typeof qConfig>> = {
  config: qConfig,
  description: "DV_QUANTITY with the value as magnitude and units from unit_field, else `units`.",
  create: (cfg, ctx) => {
    const unitOf = cfg.unit_field ? ctx.compileSourcePath(cfg.unit_field) : undefined;
    return (v, record) => {
      const magnitude = toFloat(v);
      if (magnitude === undefined) return fail("invalid_value", `${describeValue(v)} is not a number`);
      const fromField = unitOf ? scalarKey(unitOf(record)) : undefined;
      const units = fromField || cfg.units;
      if (!units)
        return fail(
          "missing_value",
          `no units for ${magnitude}: ${cfg.unit_field} is absent and no default units`,
        );
      return { _type: "DV_QUANTITY", magnitude, units };
    };
  },
};

const ctConfig = z
  .object({ terminology_id: z.string().min(1), display_field: z.string().min(1).optional() })
  .strict();

export const dvCodedText: TransformDefinition<z.infer<typeof ctConfig>> = {
  config: ctConfig,
  description:
    "DV_CODED_TEXT with the value as code_string in terminology_id; text from display_field, else the code.",
  create: (cfg, ctx) => {
    const displayOf = cfg.display_field ? ctx.compileSourcePath(cfg.display_field) : undefined;
    return (v, record) => {
      const code = scalarKey(v);
      if (code === undefined) return fail("invalid_value", `${describeValue(v)} cannot be a code`);
      const display = displayOf ? scalarKey(displayOf(record)) : undefined;
      return {
        _type: "DV_CODED_TEXT",
        value: display || code,
        defining_code: {
          _type: "CODE_PHRASE",
          terminology_id: { _type: "TERMINOLOGY_ID", value: cfg.terminology_id },
          code_string: code,
        },
      };
    };
  },
};
