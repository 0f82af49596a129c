// Compiles one field_map entry into every output its target paths name: a getter (with the output's view of
// `[*]`, `$id`, `$param`), an optional `when`, the transform's closure and a setter per target path.
import type { OverlaySlot } from "../transforms/overlay.js";
import type { TransformRegistry } from "../transforms/registry.js";
import type { TransformContext } from "../transforms/types.js";
import type { VocabularyBridge } from "../vocab/bridge.js";
import { claim, type OutputState } from "./compile-output.js";
import { type ConditionCompiler, compileCondition } from "./conditions.js";
import type { CompiledField } from "./mapper.js";
import { nestedTransformBuilder } from "./nested-transform.js";
import { compileSetter, type Getter, PathError, parseTargetPath, type Step } from "./paths.js";
import { type KeyPath, Problems } from "./problems.js";
import { resolveTransform } from "./resolve-transform.js";
import type { CrossmapDocument, FieldEntry } from "./schema.js";
import { compileSourceGetter, type GetterEnv } from "./scope.js";

export interface FieldCompileContext {
  doc: CrossmapDocument;
  registry: TransformRegistry;
  vocabulary?: VocabularyBridge;
  /** Where a project-scoped run's decisions are (overlay.ts), when the crossmap may run project-scoped. */
  overlay?: OverlaySlot;
  problems: Problems;
  /** Condition compiling, minus the environment (each output has its own). */
  cond: Omit<ConditionCompiler, "env">;
}

/** Compiles `entry` (at `at`, under field_map key `key`) into the outputs of its source entity. */
export function compileFieldEntry(
  key: string,
  entry: FieldEntry,
  at: KeyPath,
  outputs: ReadonlyMap<string, OutputState>,
  sourceEntity: string,
  c: FieldCompileContext,
): void {
  const { problems } = c;
  const sources = entry.source === undefined ? [key.slice(sourceEntity.length + 1)] : [entry.source].flat();
  const targets = [entry.target].flat();
  if (entry.vocabulary_optional && entry.default === undefined) {
    problems.add([...at, "vocabulary_optional"], "invalid_config", "vocabulary_optional needs a default");
    return;
  }
  // The transform is resolved once; its closure is created per output (its paths may read that output's element).
  const resolved = resolveTransform(entry, at, c.doc, c.registry, problems);
  targets.forEach((target, ti) => {
    const targetAt: KeyPath = Array.isArray(entry.target) ? [...at, "target", ti] : [...at, "target"];
    let steps: Step[];
    let state: OutputState | undefined;
    try {
      const segments = parseTargetPath(target);
      const head = segments[0];
      state = head && head.index === undefined ? outputs.get(head.name) : undefined;
      if (!state) {
        const names = [...outputs.keys()];
        const only = outputs.size === 1 ? [...outputs.values()][0] : undefined;
        problems.add(
          targetAt,
          "invalid_target",
          only && only.spec.name === only.spec.target
            ? `target "${target}" must start with ${only.spec.target} (entity_map: ${sourceEntity} -> ${only.spec.target})`
            : `target "${target}" must start with the name of an output of ${sourceEntity}: ${names.join(", ")}`,
        );
        return;
      }
      if (segments.length < 2) {
        problems.add(targetAt, "invalid_target", `target "${target}" names no field of ${state.spec.target}`);
        return;
      }
      steps = state.resolver.resolve(target, segments.slice(1));
    } catch (err) {
      if (!(err instanceof PathError)) throw err;
      problems.add(targetAt, "invalid_path", err.message);
      return;
    }
    let get: Getter;
    try {
      get = coalesce(sources.map((s) => compileSourceGetter(s, state.env)));
    } catch (err) {
      if (!(err instanceof PathError)) throw err;
      problems.add(
        entry.source === undefined ? at : [...at, "source"],
        "invalid_path",
        err.message,
        entry.source === undefined,
      );
      return;
    }
    if (entry.null_values && entry.null_values.length > 0) get = withNullValues(get, entry.null_values);
    if (!claim(state, steps, key, targetAt, problems)) return;
    const reads: string[] = [];
    let when: CompiledField["when"];
    if (entry.when !== undefined) {
      const p = compileCondition(entry.when, [...at, "when"], { ...c.cond, env: state.env, reads });
      if (!p) return;
      when = p;
    }
    if (!resolved) return;
    const env: GetterEnv = state.env;
    const context: TransformContext = {
      field: key,
      sourcePath: sources[0] as string,
      target,
      compileSourcePath: (p) => {
        const getter = compileSourceGetter(p, env);
        if (!sources.includes(p) && !reads.includes(p)) reads.push(p);
        return getter;
      },
      compileRelativePath: (p) => compileSourceGetter(p),
      compileCondition: (w) => {
        // Reported by the field (invalid_config at its transform, naming the combinator), not twice.
        const found = new Problems(undefined);
        const p = compileCondition(w, [], { ...c.cond, problems: found, env, reads });
        if (!p) throw new Error(found.list[0]?.message ?? "invalid condition");
        return p;
      },
    };
    if (c.vocabulary) context.vocabulary = c.vocabulary;
    if (c.overlay) context.overlay = c.overlay;
    context.transform = nestedTransformBuilder(c.doc, c.registry, c.vocabulary)(context);
    let fn: CompiledField["fn"];
    try {
      // Nothing to look up without a vocabulary: the field yields nothing, so its default is written;
      // unless a run brings its project's decisions, which are looked up then.
      if (entry.vocabulary_optional && !c.vocabulary) {
        const slot = c.overlay;
        const decided = slot
          ? resolved.definition.create(resolved.config, { ...context, vocabularyOptional: true })
          : undefined;
        fn = slot && decided ? (v, r) => (slot.current ? decided(v, r) : undefined) : () => undefined;
      } else {
        fn = resolved.definition.create(resolved.config, context);
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      problems.add([...at, "transform"], "invalid_config", `${resolved.type}: ${message}`);
      return;
    }
    const field: CompiledField = {
      field: key,
      target,
      get,
      fn,
      acceptsAbsent: resolved.definition.acceptsAbsent === true,
      required: entry.required === true,
      set: compileSetter(steps),
    };
    if (entry.default !== undefined) field.fallback = entry.default;
    if (when) field.when = when;
    state.fields.push(field);
    state.mappings.push({
      key,
      sourceEntity,
      sources,
      reads,
      target,
      targetEntity: state.spec.target,
      transform: resolved.name,
      ...(entry.nonstandard === true ? { nonstandard: true as const } : {}),
    });
  });
}

function coalesce(getters: Getter[]): Getter {
  if (getters.length === 1) return getters[0] as Getter;
  return (r) => {
    for (const g of getters) {
      const v = g(r);
      if (v !== undefined && v !== null && v !== "") return v;
    }
    return undefined;
  };
}

function withNullValues(get: Getter, values: readonly (string | number | boolean)[]): Getter {
  const nulls = new Set(values.map(String));
  return (r) => {
    const v = get(r);
    return (typeof v === "string" ||
      typeof v === "number" ||
      typeof v === "bigint" ||
      typeof v === "boolean") &&
      nulls.has(String(v))
      ? undefined
      : v;
  };
}
