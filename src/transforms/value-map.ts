// value_map: a static lookup. Keys match by string form (YAML `8507:` matches 8507 and "8507"); an explicit
// null means "deliberately unmapped" (left out, no issue); no match and no default is an `unmapped_value` issue.
// A value with spaces around it that matches no key is looked up without them: fixed-width senders pad
// codes ("F   " in PID-8), and no key of a map is meant to hold a space at either end.
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { describeValue, scalarKey } from "./describe.js";
import { freshCopy } from "./fresh-copy.js";
import { fail, type TransformDefinition } from "./types.js";

const config = lazySchema((z) =>
  z
    .object({
      mapping: z.record(z.string(), z.unknown()),
      default: z.unknown().optional(),
      case_insensitive: z.boolean().optional(),
    })
    .strict(),
);

type Config = ConfigOf<typeof config>;

/** Space, tab, CR or LF at `i`. */
const isSpace = (s: string, i: number): boolean => {
  const c = s.charCodeAt(i);
  return c === 32 || c === 9 || c === 10 || c === 13;
};

export const valueMap: TransformDefinition<Config> = {
  get config() {
    return config();
  },
  description: "Static lookup in `mapping`; `default` when no key matches, else an unmapped_value issue.",
  create: (cfg) => {
    const fold = cfg.case_insensitive ? (s: string) => s.toLowerCase() : (s: string) => s;
    const table = new Map<string, () => unknown>();
    for (const [k, v] of Object.entries(cfg.mapping)) table.set(fold(k), freshCopy(v));
    const fallback = "default" in cfg && cfg.default !== undefined ? freshCopy(cfg.default) : undefined;
    const keys = [...table.keys()];
    const known = keys.length > 8 ? `${keys.slice(0, 8).join(", ")}, ...` : keys.join(", ");
    return (v) => {
      const key = scalarKey(v);
      let hit = key === undefined ? undefined : table.get(fold(key));
      if (
        hit === undefined &&
        key !== undefined &&
        key.length > 0 &&
        (isSpace(key, 0) || isSpace(key, key.length - 1))
      )
        hit = table.get(fold(key.trim()));
      if (hit) return hit();
      if (fallback) return fallback();
      return fail("unmapped_value", `${describeValue(v)} is not in the value map (${known})`);
    };
  },
};
