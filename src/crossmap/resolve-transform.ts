// Resolves a field's `transform` name to a definition and a validated config, once, at load time.
import type { z } from "zod";
import type { TransformRegistry } from "../transforms/registry.js";
import type { TransformDefinition } from "../transforms/types.js";
import { type KeyPath, listNames, type Problems, suggest } from "./problems.js";
import type { CrossmapDocument, FieldEntry } from "./schema.js";

export interface ResolvedTransform {
  name: string;
  type: string;
  definition: TransformDefinition<Record<string, unknown>>;
  config: Record<string, unknown>;
}

/** Built-in and named transforms, listed once per document (not once per unknown name). */
const known = new WeakMap<CrossmapDocument, string[]>();
function knownNames(doc: CrossmapDocument, registry: TransformRegistry): string[] {
  let names = known.get(doc);
  if (!names) {
    names = [...registry.names(), ...Object.keys(doc.transforms ?? {})];
    known.set(doc, names);
  }
  return names;
}

export function resolveTransform(
  entry: FieldEntry,
  entryPath: KeyPath,
  doc: CrossmapDocument,
  registry: TransformRegistry,
  problems: Problems,
): ResolvedTransform | undefined {
  const name = entry.transform ?? "passthrough";
  const named = doc.transforms?.[name];
  const type = named ? named.type : name;
  const definition = registry.get(type);
  if (!definition) {
    if (named) {
      problems.add(
        ["transforms", name, "type"],
        "unknown_transform",
        `unknown transform type "${type}"${suggest(type, registry.names())}`,
      );
    } else {
      const known = knownNames(doc, registry);
      problems.add(
        [...entryPath, "transform"],
        "unknown_transform",
        `unknown transform "${name}"${suggest(name, known)}; known: ${listNames(known)}`,
      );
    }
    return undefined;
  }
  const { type: _type, ...settings } = named ?? { type };
  const config = { ...settings, ...(entry.config ?? {}) };
  if (!definition.config) return { name, type, definition, config };
  const parsed = (definition.config as z.ZodType<Record<string, unknown>>).safeParse(config);
  if (parsed.success) return { name, type, definition, config: parsed.data };
  for (const iss of parsed.error.issues) {
    if (iss.code === "unrecognized_keys") {
      for (const k of iss.keys) {
        const fromField = entry.config !== undefined && k in entry.config;
        const base: KeyPath = fromField || !named ? [...entryPath, "config"] : ["transforms", name];
        problems.add([...base, k], "invalid_config", `${type}: unknown config key "${k}"`, true);
      }
      continue;
    }
    const key = iss.path[0];
    const fromField = key !== undefined && entry.config !== undefined && String(key) in entry.config;
    const base: KeyPath = fromField || !named ? [...entryPath, "config"] : ["transforms", name];
    const path = [...base, ...iss.path.map((p) => (typeof p === "symbol" ? String(p) : p))];
    problems.add(path, "invalid_config", `${type}: ${describeIssue(iss)}`);
  }
  return undefined;
}

function describeIssue(iss: z.core.$ZodIssue): string {
  const key = iss.path.length > 0 ? `"${String(iss.path[iss.path.length - 1])}"` : "config";
  if (iss.code === "invalid_type" && /received undefined/.test(iss.message)) return `${key} is required`;
  return `${key}: ${iss.message}`;
}
