// constant: writes a fixed value from config whenever the source field is present. It lets a crossmap say
// "this element exists only when that field does" (a unit's code system next to a unit, a status implied
// by an end date) without conditional logic in the engine.
import { type ConfigOf, lazySchema } from "./config-schema.js";
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
    const json = typeof cfg.value === "object" ? JSON.stringify(cfg.value) : undefined;
    const value = cfg.value;
    if (json === undefined) return () => value;
    // The JSON text as an object literal in generated code: V8 copies a literal's boilerplate, ~5x cheaper
    // than JSON.parse of the text per record (1% of an HL7 v2 message's CPU). JSON is a JS expression; a
    // "__proto__" key is not the same thing in both (a literal sets the prototype), so it keeps JSON.parse.
    if (json.includes('"__proto__"')) return () => JSON.parse(json);
    return new Function(`return function constant() { return ${json}; };`)() as () => unknown;
  },
};
