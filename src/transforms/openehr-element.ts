// openEHR ELEMENT and DV_PROPORTION: `openehr_element` wraps the data value another openEHR transform makes in
// the ELEMENT of an archetype node (node id and name from the template), so one field entry writes one
// element and nothing when the value is absent or cannot be converted (an ELEMENT without a value would need
// a null_flavour).
import { toFloat } from "./casts.js";
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { describeValue } from "./describe.js";
import { dvCodedText, dvQuantity } from "./openehr.js";
import { dvCodedTextFromCoding, dvDateTime, dvText } from "./openehr-values.js";
import { select } from "./select.js";
import { fail, type SourceRecord, type TransformDefinition, Unmappable } from "./types.js";
import { valueMap } from "./value-map.js";
import { vocabularyLookup } from "./vocabulary.js";

const propConfig = lazySchema((z) =>
  z
    .object({
      /** openEHR proportion kind: percent (numerator over 100, type 2), unitary (over 1, type 1), ratio (0). */
      kind: z.enum(["percent", "unitary"]),
    })
    .strict(),
);

export const dvProportion: TransformDefinition<ConfigOf<typeof propConfig>> = {
  get config() {
    return propConfig();
  },
  description:
    "DV_PROPORTION of the value: percent (type 2, denominator 100) or unitary (type 1, denominator 1).",
  create: (cfg) => {
    const [denominator, type] = cfg.kind === "percent" ? [100, 2] : [1, 1];
    return (v) => {
      const numerator = toFloat(v);
      if (numerator === undefined) return fail("invalid_value", `${describeValue(v)} is not a number`);
      return { _type: "DV_PROPORTION", numerator, denominator, type };
    };
  },
};

/** The transforms an element's value may come from (each with its own config). */
// Each definition validates its own config, so the table holds them config-agnostic.
const VALUE_TRANSFORMS = {
  dv_quantity: dvQuantity,
  dv_coded_text: dvCodedText,
  dv_coded_text_from_coding: dvCodedTextFromCoding,
  dv_text: dvText,
  dv_date_time: dvDateTime,
  dv_proportion: dvProportion,
  value_map: valueMap,
  vocabulary_lookup: vocabularyLookup,
} as unknown as Record<string, TransformDefinition<unknown>>;

const elementConfig = lazySchema((z) =>
  z
    .object({
      node_id: z.string().regex(/^at\d{4}(\.\d+)*$/, "an at-code such as at0004"),
      /** The node's name: its text in the template. */
      name: z.string().min(1),
      /** The value: `{type: <one of VALUE_TRANSFORMS>, ...its config}`. */
      value: z
        .object({ type: z.enum(Object.keys(VALUE_TRANSFORMS) as [string, ...string[]]) })
        .catchall(z.unknown()),
      /** First pick one element of a list, as `select` does (the systolic component of a blood pressure). */
      pick: z
        .object({
          where: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
          get: z.string().min(1).optional(),
        })
        .strict()
        .optional(),
    })
    .strict(),
);

export const openehrElement: TransformDefinition<ConfigOf<typeof elementConfig>> = {
  get config() {
    return elementConfig();
  },
  description:
    "An ELEMENT (node_id, name) holding the data value made by `value: {type: dv_quantity|dv_coded_text|..., <its config>}`, of the element `pick` selects.",
  create: (cfg, ctx) => {
    const { type, ...valueConfig } = cfg.value;
    const def = VALUE_TRANSFORMS[type] as TransformDefinition<unknown>;
    const parsed = def.config
      ? def.config.safeParse(valueConfig)
      : { success: true as const, data: valueConfig };
    if (!parsed.success)
      throw new Error(
        `value (${type}): ${parsed.error.issues.map((i) => `${i.path.join(".") || "config"}: ${i.message}`).join("; ")}`,
      );
    const inner = def.create(parsed.data, ctx);
    const picker = cfg.pick
      ? (select.create(cfg.pick, ctx) as (v: unknown, r: SourceRecord) => unknown)
      : undefined;
    const shell = { _type: "ELEMENT", archetype_node_id: cfg.node_id };
    const wrap = (value: unknown) => ({ ...shell, name: { _type: "DV_TEXT", value: cfg.name }, value });
    return (v, record) => {
      const input = picker ? picker(v, record) : v;
      if (input === undefined || input === null || input === "") return undefined;
      if (input instanceof Unmappable) return input;
      const r = inner(input, record);
      if (r === undefined || r === null) return undefined;
      if (r instanceof Unmappable)
        return r.fallback === undefined ? r : new Unmappable(r.code, r.message, wrap(r.fallback));
      return wrap(r);
    };
  },
};
