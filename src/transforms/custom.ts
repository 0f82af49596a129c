// Custom transforms: registered through the library API, or loaded from a module the user names
// (`--transforms ./my-transforms.js`), which exports `transforms` (or a default export) mapping names
// to factories `(config, context) => (value, record) => result` or to full definitions.
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { AppError } from "../errors.js";
import type { VocabularyBridge } from "../vocab/bridge.js";
import type { TransformRegistry } from "./registry.js";
import type { SourceRecord, TransformDefinition, TransformFactory } from "./types.js";

/** The spec's form, a function of (value, config, record, vocabulary bridge), as a factory. */
export function simpleTransform(
  fn: (
    value: unknown,
    config: Record<string, unknown>,
    record: SourceRecord,
    vocabulary?: VocabularyBridge,
  ) => unknown,
): TransformFactory {
  return (config, context) => (value, record) => fn(value, config, record, context.vocabulary);
}

const isDefinition = (x: unknown): x is TransformDefinition =>
  x !== null && typeof x === "object" && typeof (x as { create?: unknown }).create === "function";

export async function loadTransformModule(path: string, registry: TransformRegistry): Promise<string[]> {
  const url = pathToFileURL(isAbsolute(path) ? path : resolve(process.cwd(), path)).href;
  let mod: Record<string, unknown>;
  try {
    mod = (await import(url)) as Record<string, unknown>;
  } catch (err) {
    throw new AppError(
      400,
      "transforms_unloadable",
      `cannot load transforms module ${path}: ${(err as Error).message}`,
    );
  }
  const table = (mod.transforms ?? mod.default) as Record<string, unknown> | undefined;
  if (table === null || typeof table !== "object") {
    throw new AppError(
      400,
      "transforms_unloadable",
      `transforms module ${path} exports no "transforms" object (or default export)`,
    );
  }
  const names: string[] = [];
  for (const [name, def] of Object.entries(table)) {
    if (typeof def === "function") registry.register(name, def as TransformFactory);
    else if (isDefinition(def)) registry.register(name, def);
    else {
      throw new AppError(
        400,
        "transforms_unloadable",
        `transforms module ${path}: "${name}" is neither a factory function nor a {create} definition`,
      );
    }
    names.push(name);
  }
  return names;
}
