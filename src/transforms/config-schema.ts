// zod for the built-in transforms' config schemas, once a module that validates crossmap documents has
// provided it (crossmap/schema.ts, through crossmap/validation.ts). It lives here, below the compiler, so
// that transforms import nothing from src/crossmap/: a document the build validated compiles without zod.
import type { z } from "zod";

export type Zod = typeof z;

let provided: Zod | undefined;

/** Called (through crossmap/validation.ts) when the crossmap document schema loads. */
export function provideZod(zod: Zod): void {
  provided ??= zod;
}

/**
 * A schema built on first use once zod is provided (and then kept), else undefined: a built-in transform's
 * `config` is `get config() { return schema(); }`, so that compiling a document the build validated
 * neither loads zod nor checks the config again.
 */
export function lazySchema<T extends z.ZodType>(build: (z: Zod) => T): () => T | undefined {
  let schema: T | undefined;
  return () => {
    if (schema === undefined && provided !== undefined) schema = build(provided);
    return schema;
  };
}

/** The config type a lazy schema validates. */
export type ConfigOf<F extends () => z.ZodType | undefined> = z.infer<NonNullable<ReturnType<F>>>;
