// Compiles a validated crossmap document into one RecordMapper per source entity, reporting every problem
// (unknown entity, output or transform, bad config, condition or path, duplicate target, gathering
// mistakes) with its location. An entity in the spec's one-to-one form gets the plain mapper of mapper.ts.
import type { OverlaySlot } from "../transforms/overlay.js";
import type { TransformRegistry } from "../transforms/registry.js";
import type { TransformContext } from "../transforms/types.js";
import type { VocabularyBridge } from "../vocab/bridge.js";
import { compileFieldEntry } from "./compile-field.js";
import { compileGatherPlan } from "./compile-gather.js";
import {
  compileOutputConstants,
  compileOutputRules,
  type FieldMapping,
  newOutputState,
  type OutputState,
} from "./compile-output.js";
import { type ConditionCompiler, compileCondition, type TransformCompiler } from "./conditions.js";
import {
  type CompiledExclusion,
  type CompiledGroup,
  type CompiledOutput,
  createEntityMapper,
  memoizedId,
} from "./entity-mapper.js";
import { EMPTY_GATHER_PLAN, type GatherPlan } from "./gather.js";
import { createMapper } from "./mapper.js";
import { type GroupSpec, readEntityEntry } from "./outputs.js";
import { compileCompactor, type Getter, PathError } from "./paths.js";
import { addZodIssues, type KeyPath, type Problems } from "./problems.js";
import { resolveTransform } from "./resolve-transform.js";
import type { CrossmapDocument, FieldEntry } from "./schema.js";
import { compileSourceGetter, type GetterEnv } from "./scope.js";
import type { RecordMapper } from "./types.js";

export type { FieldMapping } from "./compile-output.js";

export interface CompileOptions {
  registry: TransformRegistry;
  vocabulary?: VocabularyBridge;
  /** Values of the crossmap's parameters for this run (`--param name=value`). */
  parameters?: Readonly<Record<string, string>>;
  /** Given when the crossmap may run project-scoped: the vocabulary transforms then read decisions here. */
  overlay?: OverlaySlot;
}

export interface OutputInfo {
  name: string;
  /** `<source entity>.<name>` */
  key: string;
  targetEntity: string;
}

export interface EntityPlan {
  sourceEntity: string;
  /** The first output's target entity. */
  targetEntity: string;
  outputs: OutputInfo[];
  /** The mapper and fields below are compiled on first use when the document was compiled `lazy`. */
  readonly mapper: RecordMapper;
  readonly fields: FieldMapping[];
  /** Source paths conditions and keys read (beyond the fields'), for the report and the standards check. */
  readonly reads: string[];
}

export interface CompiledDocument {
  plans: Map<string, EntityPlan>;
  gather: GatherPlan;
}

const ENTITY_NAME = /^[A-Za-z_][\w-]*$/;

interface EntityState {
  sourceEntity: string;
  groups: GroupSpec[];
  outputs: Map<string, OutputState>;
  groupWhen: (ConditionCompilerResult | undefined)[];
  groupForEach: (Getter | undefined)[];
  /** The entity's `exclude` rules, compiled with its outputs. */
  exclusions: CompiledExclusion[];
  reads: string[];
}
type ConditionCompilerResult = ReturnType<typeof compileCondition>;

/**
 * Compiles the document's entities. `lazy` is for a document already compiled without a problem under the
 * same options (the build's check of a built-in crossmap, compile-document.ts): each entity's outputs and
 * fields are then compiled when its mapper is first asked for, so a run that maps one entity of a crossmap
 * of thirty compiles one; a document that gathers is compiled whole, as its gathering spans entities.
 * Otherwise every entity is compiled now and every problem reported, in document order.
 */
export function compileDocument(
  doc: CrossmapDocument,
  problems: Problems,
  options: CompileOptions,
  lazy = false,
): CompiledDocument {
  const parameters = new Map<string, string | undefined>();
  for (const [name, p] of Object.entries(doc.parameters ?? {})) {
    parameters.set(
      name,
      options.parameters?.[name] ?? (p.default !== undefined ? String(p.default) : undefined),
    );
  }
  const compileTransform = conditionTransforms(doc, problems, options);
  const cond: Omit<ConditionCompiler, "env"> = { problems, compileTransform };

  const entities = new Map<string, EntityState>();
  for (const [sourceEntity, entry] of Object.entries(doc.entity_map)) {
    const groups = readEntityEntry(sourceEntity, entry, problems);
    const state: EntityState = {
      sourceEntity,
      groups,
      outputs: new Map(),
      groupWhen: [],
      groupForEach: [],
      exclusions: [],
      reads: [],
    };
    for (const g of groups) {
      for (const spec of g.outputs) {
        if (!ENTITY_NAME.test(spec.target)) {
          problems.add(
            typeof entry === "string" ? spec.at : [...spec.at, "target"],
            "invalid_entity",
            `"${spec.target}" is not a valid entity name`,
          );
        }
        if (state.outputs.has(spec.name)) continue;
        const env: GetterEnv = {
          self: spec.name,
          parameters,
          idOf: (name) => idOf(state, spec.forEach, name),
        };
        if (spec.forEach !== undefined) env.forEach = spec.forEach;
        state.outputs.set(spec.name, newOutputState(spec, env));
      }
    }
    entities.set(sourceEntity, state);
  }
  const targets = new Set(
    [...entities.values()].flatMap((e) => [...e.outputs.values()].map((o) => o.spec.target)),
  );
  for (const entity of Object.keys(doc.not_mapped ?? {})) {
    if (!entities.has(entity)) {
      problems.add(
        ["not_mapped", entity],
        "unknown_entity",
        `not_mapped for "${entity}", which is no entity_map source entity (entities: ${[...entities.keys()].join(", ")})`,
        true,
      );
    }
  }
  for (const entity of Object.keys(doc.exclude ?? {})) {
    if (!entities.has(entity)) {
      problems.add(
        ["exclude", entity],
        "unknown_entity",
        `exclude for "${entity}", which is no entity_map source entity (entities: ${[...entities.keys()].join(", ")})`,
      );
    }
  }
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
  const compileOutputs = (e: EntityState): void => {
    (doc.exclude?.[e.sourceEntity] ?? []).forEach((rule, i) => {
      const at: KeyPath = ["exclude", e.sourceEntity, i, "when"];
      const when = compileCondition(rule.when, at, { ...cond, env: { parameters }, reads: e.reads });
      if (when) e.exclusions.push({ when, reason: rule.reason });
    });
    for (const o of e.outputs.values()) compileOutputConstants(doc, o, problems);
    for (const o of e.outputs.values()) compileOutputRules(o, cond, problems);
    e.groups.forEach((g, i) => {
      const env: GetterEnv = { parameters };
      if (g.when !== undefined) {
        if (g.forEach !== undefined) env.forEach = g.forEach;
        e.groupWhen[i] = compileCondition(g.when, [...g.at, "when"], { ...cond, env, reads: e.reads });
      }
      const forEach = g.forEach ?? (g.choose ? undefined : g.outputs[0]?.forEach);
      if (forEach !== undefined) {
        try {
          e.groupForEach[i] = compileSourceGetter(forEach, { parameters });
        } catch (err) {
          if (!(err instanceof PathError)) throw err;
          const at: KeyPath =
            g.forEach !== undefined ? [...g.at, "for_each"] : [...(g.outputs[0]?.at ?? g.at), "for_each"];
          problems.add(at, "invalid_path", err.message);
        }
      }
    });
  };
  const compileFields = (key: string, value: FieldEntry | FieldEntry[]): void => {
    const list = Array.isArray(value) ? value : [value];
    list.forEach((entry, i) => {
      const at: KeyPath = Array.isArray(value) ? ["field_map", key, i] : ["field_map", key];
      compileField(key, entry, at, doc, entities, problems, options, cond);
    });
  };
  const allOutputs = [...entities.values()].flatMap((e) => [...e.outputs.values()]);
  const gathering = allOutputs.some((o) => o.spec.doc.into !== undefined);

  const plans = new Map<string, EntityPlan>();
  if (lazy && !gathering) {
    const fieldsOf = new Map<string, [string, FieldEntry | FieldEntry[]][]>();
    for (const [key, value] of Object.entries(doc.field_map)) {
      const entity = key.slice(0, Math.max(key.indexOf("."), 0));
      const list = fieldsOf.get(entity);
      if (list) list.push([key, value]);
      else fieldsOf.set(entity, [[key, value]]);
    }
    // Field keys of no entity are problems the build reported; a lazy document has none.
    for (const e of entities.values()) {
      const plan = entityPlan(doc, e, () => {
        compileOutputs(e);
        for (const [key, value] of fieldsOf.get(e.sourceEntity) ?? []) compileFields(key, value);
        // Only a document that compiled cleanly under these options is compiled lazily, so this is a
        // defect of the build's check, not of the document: say so at once rather than map without it.
        problems.throwIfAny();
      });
      if (plan) plans.set(e.sourceEntity, plan);
    }
    return { plans, gather: EMPTY_GATHER_PLAN };
  }
  for (const e of entities.values()) compileOutputs(e);
  for (const [key, value] of Object.entries(doc.field_map)) compileFields(key, value);
  const gather = gathering ? compileGatherPlan(allOutputs, problems) : EMPTY_GATHER_PLAN;
  for (const e of entities.values()) {
    const plan = entityPlan(doc, e);
    if (plan) plans.set(e.sourceEntity, plan);
  }
  return { plans, gather };
}

/**
 * The plan of an entity with at least one output; its mapper is built at once, or on first use after
 * `compile` has compiled the entity's outputs and fields.
 */
function entityPlan(doc: CrossmapDocument, e: EntityState, compile?: () => void): EntityPlan | undefined {
  const outputs = [...e.outputs.values()];
  const first = outputs[0];
  if (!first) return undefined;
  const build = () => {
    compile?.();
    return {
      mapper: buildMapper(doc, e),
      fields: outputs.flatMap((o) => o.mappings),
      reads: [...e.reads, ...outputs.flatMap((o) => o.reads)],
    };
  };
  let built = compile ? undefined : build();
  const compiled = () => {
    built ??= build();
    return built;
  };
  return {
    sourceEntity: e.sourceEntity,
    targetEntity: first.spec.target,
    outputs: outputs.map((o) => ({ name: o.spec.name, key: o.key, targetEntity: o.spec.target })),
    get mapper() {
      return compiled().mapper;
    },
    get fields() {
      return compiled().fields;
    },
    get reads() {
      return compiled().reads;
    },
  };
}

function idOf(state: EntityState, forEach: string | undefined, name: string): Getter | string {
  const other = state.outputs.get(name);
  if (!other)
    return `no output of ${state.sourceEntity} is named "${name}" (outputs: ${[...state.outputs.keys()].join(", ")})`;
  if (other.spec.doc.id === undefined) return `output "${name}" declares no id`;
  if (other.spec.forEach !== undefined && other.spec.forEach !== forEach) {
    return `output "${name}" has one id per element of ${other.spec.forEach}, which this output does not iterate`;
  }
  // Resolved per record: the id function is compiled with its output, before any field reads it. Derived
  // once per record and output (idMemo), whichever output reads it first.
  return (s) =>
    memoizedId(other.key, s, () => (other.identity !== undefined ? other.identity(s) : { id: other.id?.(s) }))
      .id;
}

/** A one-to-one entity keeps the plain mapper; anything else gets the entity mapper. */
function buildMapper(doc: CrossmapDocument, e: EntityState): RecordMapper {
  const part = (o: OutputState) =>
    createMapper({
      source: doc.source,
      target: doc.target,
      sourceEntity: e.sourceEntity,
      targetEntity: o.spec.target,
      constants: o.constants,
      fields: o.fields,
      compact: compileCompactor(o.steps),
    });
  const only = e.groups.length === 1 && !e.groups[0]?.choose ? e.groups[0]?.outputs[0] : undefined;
  const simple =
    only !== undefined &&
    e.exclusions.length === 0 &&
    e.groups[0]?.when === undefined &&
    only.forEach === undefined &&
    Object.keys(only.doc).every((k) => k === "target" || k === "constants" || k === "description");
  if (simple) return part(e.outputs.get(only.name) as OutputState);
  const groups: CompiledGroup[] = e.groups.map((g, i) => {
    const cg: CompiledGroup = {
      choose: g.choose,
      outputs: g.outputs.map((spec) => {
        const o = e.outputs.get(spec.name) as OutputState;
        const co: CompiledOutput = {
          key: o.key,
          name: spec.name,
          entity: spec.target,
          build: part(o),
          dedupe: spec.doc.dedupe === true,
        };
        if (o.when) co.when = o.when;
        if (o.id) co.id = o.id;
        if (o.identity) co.identity = o.identity;
        if (o.gatherKey) co.gatherKey = o.gatherKey;
        if (o.into) co.into = o.into;
        return co;
      }),
    };
    const when = e.groupWhen[i];
    if (when) cg.when = when;
    const forEach = e.groupForEach[i];
    if (forEach) cg.forEach = forEach;
    return cg;
  });
  return createEntityMapper({
    source: doc.source,
    target: doc.target,
    sourceEntity: e.sourceEntity,
    groups,
    exclusions: e.exclusions,
  });
}

function compileField(
  key: string,
  entry: FieldEntry,
  at: KeyPath,
  doc: CrossmapDocument,
  entities: Map<string, EntityState>,
  problems: Problems,
  options: CompileOptions,
  cond: Omit<ConditionCompiler, "env">,
): void {
  const dot = key.indexOf(".");
  if (dot <= 0 || dot === key.length - 1) {
    problems.add(at, "invalid_key", `field_map key "${key}" must be <entity>.<field>`, true);
    return;
  }
  const entity = key.slice(0, dot);
  const state = entities.get(entity);
  if (!state) {
    const known = [...entities.keys()].join(", ");
    problems.add(
      at,
      "unknown_entity",
      `unknown entity "${entity}": entity_map has ${known || "no entities"}`,
      true,
    );
    return;
  }
  // An entity whose entity_map value had no valid output is already reported; its fields would only repeat it.
  if (state.outputs.size === 0) return;
  compileFieldEntry(key, entry, at, state.outputs, entity, {
    doc,
    registry: options.registry,
    ...(options.vocabulary ? { vocabulary: options.vocabulary } : {}),
    ...(options.overlay ? { overlay: options.overlay } : {}),
    problems,
    cond,
  });
}

/** Transforms inside conditions: a name (built-in, custom or of `transforms`) or an inline `{type, ...}`. */
function conditionTransforms(
  doc: CrossmapDocument,
  problems: Problems,
  options: CompileOptions,
): TransformCompiler {
  return (transform, config, sourcePath, at, env) => {
    let create: () => (v: unknown, r: Record<string, unknown>) => unknown;
    const context: TransformContext = {
      field: "when",
      sourcePath,
      target: "",
      compileSourcePath: (p) => compileSourceGetter(p, env),
      compileRelativePath: (p) => compileSourceGetter(p),
    };
    if (options.vocabulary) context.vocabulary = options.vocabulary;
    if (options.overlay) context.overlay = options.overlay;
    if (config !== undefined && (config === null || typeof config !== "object" || Array.isArray(config))) {
      problems.add([...at, "config"], "invalid_condition", "config is a map of settings");
      return undefined;
    }
    if (typeof transform === "string") {
      const entry = {
        target: "",
        transform,
        ...(config ? { config: config as Record<string, unknown> } : {}),
      };
      const resolved = resolveTransform(entry as FieldEntry, at, doc, options.registry, problems);
      if (!resolved) return undefined;
      create = () => resolved.definition.create(resolved.config, context);
    } else if (
      transform !== null &&
      typeof transform === "object" &&
      typeof (transform as { type?: unknown }).type === "string"
    ) {
      const { type, ...settings } = transform as { type: string } & Record<string, unknown>;
      const definition = options.registry.get(type);
      if (!definition) {
        problems.add([...at, "transform", "type"], "unknown_transform", `unknown transform type "${type}"`);
        return undefined;
      }
      let cfg: Record<string, unknown> = { ...settings, ...((config as Record<string, unknown>) ?? {}) };
      if (definition.config) {
        const parsed = definition.config.safeParse(cfg);
        if (!parsed.success) {
          addZodIssues(problems, [...at, "transform"], parsed.error);
          return undefined;
        }
        cfg = parsed.data;
      }
      create = () => definition.create(cfg, context);
    } else {
      problems.add(
        [...at, "transform"],
        "invalid_condition",
        "transform is a transform name or {type: ..., settings}",
      );
      return undefined;
    }
    try {
      return create();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!options.vocabulary && /vocabulary/i.test(message)) return "no_vocabulary";
      problems.add([...at, "transform"], "invalid_condition", message);
      return undefined;
    }
  };
}
