// zod and the schemas built with it, once a module that validates crossmap documents has loaded them.
// Loading zod is about a third of `crossmap map`'s start-up (95 modules, ~0.1 s on Node 20), and a built-in
// crossmap the build validated needs none of it: so the engine's compile path does not import zod. What it
// checks with zod (built-in transforms' configs, entity_map outputs) it checks when schema.ts, which every
// validation of a crossmap document imports, has provided zod here; a document compiled without it is one
// `npm run build` validated (compiled.ts, builtin.ts).
import type { z } from "zod";
import type { ChooseSchema, OutputSchema } from "./schema.js";

export type Zod = typeof z;

interface Validation {
  z: Zod;
  output: typeof OutputSchema;
  choose: typeof ChooseSchema;
}

let provided: Validation | undefined;

/** Called by schema.ts when it loads. */
export function provideValidation(validation: Validation): void {
  provided ??= validation;
}

/** zod and the document schemas, or undefined when nothing validating crossmap documents has loaded. */
export function validation(): Validation | undefined {
  return provided;
}

/**
 * A schema built on first use once zod is provided (and then kept), else undefined: a built-in transform's
 * `config` is `get config() { return schema(); }`, so that compiling a document the build validated
 * neither loads zod nor checks the config again.
 */
export function lazySchema<T extends z.ZodType>(build: (z: Zod) => T): () => T | undefined {
  let schema: T | undefined;
  return () => {
    if (schema === undefined && provided !== undefined) schema = build(provided.z);
    return schema;
  };
}

/** The config type a lazy schema validates. */
export type ConfigOf<F extends () => z.ZodType | undefined> = z.infer<NonNullable<ReturnType<F>>>;
