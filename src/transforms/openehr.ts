// openEHR Reference Model data values in canonical JSON: dv_quantity, dv_coded_text.
import { toFloat } from "./casts.js";
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { describeValue, scalarKey } from "./describe.js";
import { degrade, fail, type TransformDefinition } from "./types.js";

const qConfig = lazySchema((z) =>
  z
    .object({
      unit_field: z.string().min(1).optional(),
      units: z.string().min(1).optional(),
      /** `quantity`: the value is a FHIR Quantity ({value, unit, system, code}) and carries its own units. */
      input: z.enum(["number", "quantity"]).optional(),
      /**
       * Decimal places the archetype allows (its C_DV_QUANTITY precision): the magnitude is rounded to them
       * and DV_QUANTITY.precision set; a value that had more is written with a precision_reduced warning.
       */
      precision: z.number().int().min(0).max(15).optional(),
    })
    .strict()
    .refine((c) => c.input === "quantity" || c.unit_field !== undefined || c.units !== undefined, {
      message: "give unit_field or units (DV_QUANTITY requires units), or input: quantity",
    }),
);

const UCUM = "http://unitsofmeasure.org";

/** A FHIR Quantity's number and units: the UCUM code where the system is UCUM (or unnamed), else `unit`. */
function fromQuantity(v: unknown): { magnitude: unknown; units: string | undefined } {
  if (v === null || typeof v !== "object") return { magnitude: v, units: undefined };
  const q = v as { value?: unknown; unit?: unknown; code?: unknown; system?: unknown };
  const code =
    typeof q.code === "string" && q.code !== "" && (q.system === undefined || q.system === UCUM)
      ? q.code
      : undefined;
  const unit = typeof q.unit === "string" && q.unit !== "" ? q.unit : undefined;
  return { magnitude: q.value, units: code ?? unit };
}

export const dvQuantity: TransformDefinition<ConfigOf<typeof qConfig>> = {
  get config() {
    return qConfig();
  },
  description:
    "DV_QUANTITY with the value as magnitude and units from unit_field, else `units`; or of a FHIR Quantity (input: quantity).",
  create: (cfg, ctx) => {
    const unitOf = cfg.unit_field ? ctx.compileSourcePath(cfg.unit_field) : undefined;
    const quantity = cfg.input === "quantity";
    return (v, record) => {
      const q = quantity ? fromQuantity(v) : { magnitude: v, units: undefined };
      const magnitude = toFloat(q.magnitude);
      if (magnitude === undefined)
        return fail("invalid_value", `${describeValue(q.magnitude)} is not a number`);
      const fromField = unitOf ? scalarKey(unitOf(record)) : undefined;
      const units = q.units || fromField || cfg.units;
      if (!units)
        return fail(
          "missing_value",
          quantity && !unitOf && !cfg.units
            ? `no units for ${magnitude}: the quantity has neither a UCUM code nor a unit`
            : `no units for ${magnitude}: ${cfg.unit_field} is absent and no default units`,
        );
      if (cfg.precision === undefined) return { _type: "DV_QUANTITY", magnitude, units };
      const rounded = Number(magnitude.toFixed(cfg.precision));
      const value = { _type: "DV_QUANTITY", magnitude: rounded, units, precision: cfg.precision };
      return rounded === magnitude
        ? value
        : degrade(
            value,
            "precision_reduced",
            `${magnitude} ${units} rounded to ${rounded}: the archetype records ${cfg.precision} decimal place(s)`,
          );
    };
  },
};

const ctConfig = lazySchema((z) =>
  z.object({ terminology_id: z.string().min(1), display_field: z.string().min(1).optional() }).strict(),
);

export const dvCodedText: TransformDefinition<ConfigOf<typeof ctConfig>> = {
  get config() {
    return ctConfig();
  },
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
