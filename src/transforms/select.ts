// select: picks one element out of a list by matching fields (the extension with a given url, the coding
// of a given system), reads a path inside it and optionally looks the result up in a mapping. It also runs
// when the list is absent, so `default` can fill a target that must always be present.

import { isUnset } from "./absent.js";
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { describeValue, scalarKey } from "./describe.js";
import { fail, type Getter, type TransformDefinition } from "./types.js";

const config = lazySchema((z) =>
  z
    .object({
      /** Field -> value every picked element must have, e.g. {system: "http://loinc.org"}. Empty: the first. */
      where: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
      /** Path inside the picked element, e.g. `extension[0].valueCoding.code`. Default: the element itself. */
      get: z.string().min(1).optional(),
      /** Lookup of the picked value (string keys, as value_map); explicit null = deliberately unmapped. */
      mapping: z.record(z.string(), z.unknown()).optional(),
      /** Written when nothing is picked, or the picked value is not in `mapping`. */
      default: z.unknown().optional(),
      /**
       * When several elements match: `first` (the default) picks the first; `none` picks none, so `default`
       * is written (OMOP's race_concept_id for a person of several races: "mixed races are not supported").
       */
      several: z.enum(["first", "none"]).optional(),
    })
    .strict(),
);

export const select: TransformDefinition<ConfigOf<typeof config>> = {
  get config() {
    return config();
  },
  acceptsAbsent: true,
  description:
    "The first list element matching `where` (or, with `several: none`, the only one), the value at `get` inside it, looked up in `mapping`; else `default`.",
  create: (cfg, ctx) => {
    const where = Object.entries(cfg.where ?? {}).map(
      ([k, want]) => [ctx.compileRelativePath(k), String(want)] as const,
    );
    const get: Getter | undefined = cfg.get ? ctx.compileRelativePath(cfg.get) : undefined;
    const mapping = cfg.mapping ? new Map(Object.entries(cfg.mapping)) : undefined;
    const fallback = cfg.default;
    const orDefault = () => (fallback === undefined ? undefined : fallback);
    const matches = (el: unknown) =>
      el !== null &&
      typeof el === "object" &&
      where.every(([g, want]) => scalarKey(g(el as Record<string, unknown>)) === want);
    const onlyOne = cfg.several === "none";
    return (v) => {
      if (isUnset(v)) return orDefault();
      const list: unknown[] = Array.isArray(v) ? v : [v];
      const at = list.findIndex(matches);
      if (at < 0) return orDefault();
      if (onlyOne && list.some((el, i) => i > at && matches(el))) return orDefault();
      const picked = list[at];
      const value = get ? get(picked as Record<string, unknown>) : picked;
      if (isUnset(value)) return orDefault();
      if (!mapping) return value;
      const key = scalarKey(value);
      if (key !== undefined && mapping.has(key)) return mapping.get(key) ?? undefined;
      return fallback !== undefined
        ? fallback
        : fail("unmapped_value", `${describeValue(value)} is not in the mapping`);
    };
  },
};
