// Compiles a validated crossmap document into one RecordMapper per source entity, reporting every
// problem (unknown entity or transform, bad config, malformed or duplicate path) with its location.
import type { TransformRegistry } from "../transforms/registry.js";
import type { TransformContext } from "../transforms/types.js";
import type { VocabularyBridge } from "../vocab/bridge.js";
import { flattenConstants } from "./constants.js";
import { type CompiledConstant, type CompiledField, createMapper } from "./mapper.js";
import {
  compileCompactor,
  compileGetter,
  compileSetter,
  type Getter,
  PathError,
  parseSourcePath,
  parseTargetPath,
  SoftIndexResolver,
  type Step,
  stepsToString,
} from "./paths.js";
import type { KeyPath, Problems } from "./problems.js";
import { resolveTransform } from "./resolve-transform.js";
import type { CrossmapDocument, FieldEntry } from "./schema.js";
import type { RecordMapper } from "./types.js";

export interface CompileOptions {
  registry: TransformRegistry;
  vocabulary?: VocabularyBridge;
}

/** One field_map entry as the mapping report and `crossmap list` show it. */
export interface FieldMapping {
  key: string;
  sourceEntity: string;
  sources: string[];
  /** Further source paths the transform reads from its config (unit_field, display_field, ...). */
  reads: string[];
  target: string;
  transform: string;
}

export interface EntityPlan {
  sourceEntity: string;
  targetEntity: string;
  mapper: RecordMapper;
  fields: FieldMapping[];
}

interface EntityState {
  sourceEntity: string;
  targetEntity: string;
  resolver: SoftIndexResolver;
  written: Map<string, string>;
  steps: Step[][];
  constants: CompiledConstant[];
  fields: CompiledField[];
  mappings: FieldMapping[];
}

const ENTITY_NAME = /^[A-Za-z_][\w-]*$/;

export function compileDocument(
  doc: CrossmapDocument,
  problems: Problems,
  options: CompileOptions,
): Map<string, EntityPlan> {
  const states = new Map<string, EntityState>();
  for (const [sourceEntity, entry] of Object.entries(doc.entity_map)) {
    const targetEntity = typeof entry === "string" ? entry : entry.target;
    if (!ENTITY_NAME.test(targetEntity)) {
      const at =
        typeof entry === "string" ? ["entity_map", sourceEntity] : ["entity_map", sourceEntity, "target"];
      problems.add(at, "invalid_entity", `"${targetEntity}" is not a valid entity name`);
    }
    states.set(sourceEntity, {
      sourceEntity,
      targetEntity,
      resolver: new SoftIndexResolver(),
      written: new Map(),
      steps: [],
      constants: [],
      fields: [],
      mappings: [],
    });
  }
  const targets = new Set([...states.values()].map((s) => s.targetEntity));
  for (const entity of Object.keys(doc.constants ?? {})) {
    if (!targets.has(entity)) {
      problems.add(
        ["constants", entity],
        "unknown_entity",
        `constants for "${entity}", which no entity_map entry targets (targets: ${[...targets].join(", ")})`,
        true,
      );
    }
  }
  for (const state of states.values()) compileConstants(doc, state, problems);
  for (const [key, value] of Object.entries(doc.field_map)) {
    const entries = Array.isArray(value) ? value : [value];
    entries.forEach((entry, i) => {
      const path: KeyPath = Array.isArray(value) ? ["field_map", key, i] : ["field_map", key];
      compileField(key, entry, path, doc, states, problems, options);
    });
  }
  const plans = new Map<string, EntityPlan>();
  for (const s of states.values()) {
    const mapper = createMapper({
      source: doc.source,
      target: doc.target,
      sourceEntity: s.sourceEntity,
      targetEntity: s.targetEntity,
      constants: s.constants,
      fields: s.fields,
      compact: compileCompactor(s.steps),
    });
    plans.set(s.sourceEntity, {
      sourceEntity: s.sourceEntity,
      targetEntity: s.targetEntity,
      mapper,
      fields: s.mappings,
    });
  }
  return plans;
}

/** Reserves a resolved target path for one writer; a second writer of the same path is a load error. */
function claim(state: EntityState, steps: Step[], owner: string, at: KeyPath, problems: Problems): boolean {
  const key = stepsToString(steps);
  const previous = state.written.get(key);
  if (previous !== undefined) {
    problems.add(at, "duplicate_target", `${state.targetEntity}.${key} is already written by ${previous}`);
    return false;
  }
  state.written.set(key, owner);
  state.steps.push(steps);
  return true;
}

function compileConstants(doc: CrossmapDocument, state: EntityState, problems: Problems): void {
  const entry = doc.entity_map[state.sourceEntity];
  const own = typeof entry === "object" ? (entry.constants ?? {}) : {};
  const ownLeaves = flattenConstants("", own);
  const ownPaths = new Set(ownLeaves.map((l) => l.path));
  const shared = flattenConstants("", doc.constants?.[state.targetEntity] ?? {}).filter(
    (l) => !ownPaths.has(l.path),
  );
  const sources: [typeof shared, KeyPath][] = [
    [shared, ["constants", state.targetEntity]],
    [ownLeaves, ["entity_map", state.sourceEntity, "constants"]],
  ];
  for (const [leaves, at] of sources) {
    for (const leaf of leaves) {
      try {
        const steps = state.resolver.resolve(leaf.path, parseTargetPath(leaf.path));
        if (!claim(state, steps, `constant ${leaf.path}`, at, problems)) continue;
        state.constants.push({ set: compileSetter(steps), value: leaf.value });
      } catch (err) {
        if (!(err instanceof PathError)) throw err;
        problems.add(at, "invalid_path", err.message);
      }
    }
  }
}

function compileField(
  key: string,
  entry: FieldEntry,
  at: KeyPath,
  doc: CrossmapDocument,
  states: Map<string, EntityState>,
  problems: Problems,
  options: CompileOptions,
): void {
  const dot = key.indexOf(".");
  if (dot <= 0 || dot === key.length - 1) {
    problems.add(at, "invalid_key", `field_map key "${key}" must be <entity>.<field>`, true);
    return;
  }
  const entity = key.slice(0, dot);
  const state = states.get(entity);
  if (!state) {
    const known = [...states.keys()].join(", ");
    problems.add(
      at,
      "unknown_entity",
      `unknown entity "${entity}": entity_map has ${known || "no entities"}`,
      true,
    );
    return;
  }
  const sources = entry.source === undefined ? [key.slice(dot + 1)] : [entry.source].flat();
  let get: Getter;
  try {
    get = coalesce(sources.map((s) => compileGetter(parseSourcePath(s))));
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
  let steps: Step[];
  try {
    const segments = parseTargetPath(entry.target);
    const head = segments[0];
    if (head?.name !== state.targetEntity || head.index !== undefined) {
      problems.add(
        [...at, "target"],
        "invalid_target",
        `target "${entry.target}" must start with ${state.targetEntity} (entity_map: ${entity} -> ${state.targetEntity})`,
      );
      return;
    }
    if (segments.length < 2) {
      problems.add(
        [...at, "target"],
        "invalid_target",
        `target "${entry.target}" names no field of ${state.targetEntity}`,
      );
      return;
    }
    steps = state.resolver.resolve(entry.target, segments.slice(1));
  } catch (err) {
    if (!(err instanceof PathError)) throw err;
    problems.add([...at, "target"], "invalid_path", err.message);
    return;
  }
  if (!claim(state, steps, key, [...at, "target"], problems)) return;
  const resolved = resolveTransform(entry, at, doc, options.registry, problems);
  if (!resolved) return;
  // Paths a transform compiles from its config are recorded, so the report counts those fields as used.
  const reads: string[] = [];
  const context: TransformContext = {
    field: key,
    sourcePath: sources[0] as string,
    target: entry.target,
    compileSourcePath: (p) => {
      const getter = compileGetter(parseSourcePath(p));
      if (!sources.includes(p) && !reads.includes(p)) reads.push(p);
      return getter;
    },
    compileRelativePath: (p) => compileGetter(parseSourcePath(p)),
  };
  if (options.vocabulary) context.vocabulary = options.vocabulary;
  if (entry.vocabulary_optional && entry.default === undefined) {
    problems.add([...at, "vocabulary_optional"], "invalid_config", "vocabulary_optional needs a default");
    return;
  }
  let fn: CompiledField["fn"];
  try {
    // Nothing to look up without a vocabulary: the field yields nothing, so its default is written.
    fn =
      entry.vocabulary_optional && !options.vocabulary
        ? () => undefined
        : resolved.definition.create(resolved.config, context);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    problems.add([...at, "transform"], "invalid_config", `${resolved.type}: ${message}`);
    return;
  }
  state.fields.push({
    field: key,
    target: entry.target,
    get,
    fn,
    acceptsAbsent: resolved.definition.acceptsAbsent === true,
    required: entry.required === true,
    ...(entry.default !== undefined ? { fallback: entry.default } : {}),
    set: compileSetter(steps),
  });
  state.mappings.push({
    key,
    sourceEntity: entity,
    sources,
    reads,
    target: entry.target,
    transform: resolved.name,
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
