// constant: writes a fixed value from config whenever the source field is present. It lets a crossmap say
// "this element exists only when that field does" (a unit's code system next to a unit, a status implied
// by an end date) without conditional logic in the engine.
import { type ConfigOf, lazySchema } from "./config-schema.js";
import { freshCopy } from "./fresh-copy.js";
import type { TransformDefinition } from "./types.js";

const config = lazySchema((z) => z.object({ value: z.unknown() }).strict());

export const constant: TransformDefinition<ConfigOf<typeof config>> = {
  get config() {
    return config();
  },
  description: "Writes config `value` whenever the source field is present (absent source: nothing).",
  create: (cfg) => {
    if (cfg.value === undefined || cfg.value === null || cfg.value === "") {
      throw new Error("constant needs a non-empty `value`");
    }
    // Shared object values are handed out as copies so no two outputs alias each other.
    return freshCopy(cfg.value);
  },
};
