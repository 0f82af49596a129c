// components: one object per repetition of a repeating value, each with the same `code` and the value under
// the key its type names. For a value whose target holds one (FHIR's value[x]) when the source repeats it:
// the v2-to-FHIR IG's OBX[Observation-Component] map makes each repetition of OBX-5 a `component` with
// OBX-3 as its code and the value by OBX-2. The per-type transforms are the document's own (or built-ins);
// they are asked for every repetition at once (`repetition: all`), so each is read as a field is.

import { isUnset } from "./absent.js";
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { scalarKey } from "./describe.js";
import {
  degrade,
  type Getter,
  type NestedTransform,
  type SourceRecord,
  type TransformDefinition,
  Unmappable,
} from "./types.js";

const config = lazySchema((z) => {
  const step = z
    .object({
      transform: z.string().min(1),
      config: z.record(z.string(), z.unknown()).optional(),
    })
    .strict();
  return z
    .object({
      /** The field whose value picks the entry of `values` (OBX-2, the value type). */
      type_field: z.string().min(1),
      /**
       * Each object's code: a transform of another field of the record (`{source: "3", transform: coded}`),
       * written under `key` (default `code`).
       */
      code: step.extend({ source: z.string().min(1), key: z.string().min(1).optional() }),
      /** Type -> the key each repetition's value is written under and the transform that reads it. */
      values: z.record(z.string(), step.extend({ key: z.string().min(1) })),
    })
    .strict();
});

export const components: TransformDefinition<ConfigOf<typeof config>> = {
  get config() {
    return config();
  },
  description:
    "One object per repetition of the value, `{code: <code field>, <key by type>: value}`: the `values` entry of the type in `type_field` reads every repetition.",
  create: (cfg, ctx) => {
    const nested = ctx.transform;
    if (!nested) throw new Error("components needs a context that builds nested transforms");
    const typeOf: Getter = ctx.compileSourcePath(cfg.type_field);
    const codeOf: Getter = ctx.compileSourcePath(cfg.code.source);
    const codeKey = cfg.code.key ?? "code";
    const code = nested({
      transform: cfg.code.transform,
      ...(cfg.code.config ? { config: cfg.code.config } : {}),
    });
    const byType = new Map<string, { key: string; t: NestedTransform }>();
    for (const [type, v] of Object.entries(cfg.values)) {
      const t = nested({ transform: v.transform, config: { ...(v.config ?? {}), repetition: "all" } });
      byType.set(type, { key: v.key, t });
    }
    return (value: unknown, record: SourceRecord) => {
      const entry = byType.get(scalarKey(typeOf(record)) ?? "");
      if (entry === undefined) return undefined;
      const c = codeOf(record);
      const codeValue = isUnset(c) ? undefined : code.fn(c, record);
      const theCode = codeValue instanceof Unmappable ? codeValue.fallback : codeValue;
      const wrap = (list: unknown): unknown[] | undefined => {
        if (isUnset(list)) return undefined;
        const items = (Array.isArray(list) ? list : [list]).filter((x) => !isUnset(x));
        return items.map((x) =>
          theCode === undefined ? { [entry.key]: x } : { [codeKey]: theCode, [entry.key]: x },
        );
      };
      const r = entry.t.fn(value, record);
      if (!(r instanceof Unmappable)) return wrap(r);
      return r.fallback === undefined ? r : degrade(wrap(r.fallback), r.code, r.message);
    };
  },
};
