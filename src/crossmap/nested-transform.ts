// Lets a transform build other transforms at load time (the first_of and chain combinators): a name is
// resolved against the document's named transforms, then the registry, and its config validated as a
// field's would be. Mistakes throw, and the field that holds the combinator reports them where it stands.
import type { z } from "zod";
import type { TransformRegistry } from "../transforms/registry.js";
import type {
  NestedTransform,
  NestedTransformSpec,
  TransformContext,
  TransformDefinition,
} from "../transforms/types.js";
import type { VocabularyBridge } from "../vocab/bridge.js";
import { suggest } from "./problems.js";
import type { CrossmapDocument } from "./schema.js";

/** Nesting deeper than this is almost certainly a spec that names itself. */
const MAX_DEPTH = 8;

export function nestedTransformBuilder(
  doc: Pick<CrossmapDocument, "transforms">,
  registry: TransformRegistry,
  vocabulary: VocabularyBridge | undefined,
): (base: TransformContext) => (spec: NestedTransformSpec) => NestedTransform {
  const build = (base: TransformContext, spec: NestedTransformSpec, depth: number): NestedTransform => {
    if (depth > MAX_DEPTH) throw new Error(`transforms nested more than ${MAX_DEPTH} deep`);
    const name = spec.transform;
    const named = doc.transforms?.[name];
    const type = named ? named.type : name;
    const definition = registry.get(type) as TransformDefinition<Record<string, unknown>> | undefined;
    if (!definition) {
      const known = [...registry.names(), ...Object.keys(doc.transforms ?? {})];
      throw new Error(`unknown transform "${name}"${suggest(name, known)}`);
    }
    if (spec.vocabulary_optional && !vocabulary) return { fn: () => undefined, acceptsAbsent: true };
    const { type: _type, ...settings } = named ?? { type };
    let config: Record<string, unknown> = { ...settings, ...(spec.config ?? {}) };
    if (definition.config) {
      const parsed = (definition.config as z.ZodType<Record<string, unknown>>).safeParse(config);
      if (!parsed.success) {
        const first = parsed.error.issues[0];
        const where = first && first.path.length > 0 ? ` "${first.path.map(String).join(".")}"` : "";
        throw new Error(`${name}:${where} ${first?.message ?? "invalid config"}`);
      }
      config = parsed.data;
    }
    const context: TransformContext = {
      ...base,
      transform: (inner) => build(base, inner, depth + 1),
    };
    try {
      return { fn: definition.create(config, context), acceptsAbsent: definition.acceptsAbsent === true };
    } catch (err) {
      throw new Error(`${name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  return (base) => (spec) => build(base, spec, 1);
}
