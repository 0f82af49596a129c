// Compiles what belongs to an output rather than to its fields: constants, `when`, the derived id, the
// gathering key and the keys of its `into` rules. Field entries are compiled into it by compile-field.ts.
import { isAbsent } from "../transforms/absent.js";
import { deriveId, idValue } from "../transforms/derived-id.js";
import { Unmappable } from "../transforms/types.js";
import {
  type ConditionCompiler,
  compileCondition,
  type Predicate,
  type TransformCompiler,
} from "./conditions.js";
import { flattenConstants } from "./constants.js";
import { compileIdentity, type Identity } from "./identity.js";
import type { CompiledConstant, CompiledField } from "./mapper.js";
import type { OutputSpec } from "./outputs.js";
import {
  compileSetter,
  type Getter,
  PathError,
  parseTargetPath,
  SoftIndexResolver,
  type Step,
  stepsToString,
} from "./paths.js";
import type { KeyPath, Problems } from "./problems.js";
import type { CrossmapDocument, KeyPart } from "./schema.js";
import { compileSourceGetter, type GetterEnv } from "./scope.js";
import type { SourceRecord } from "./types.js";

/** One field entry's mapping to one target path, as the mapping report and `crossmap list` show it. */
export interface FieldMapping {
  key: string;
  sourceEntity: string;
  sources: string[];
  /** Further source paths the transform or the entry's condition reads (unit_field, display_field, ...). */
  reads: string[];
  target: string;
  /** The target entity of the output `target` starts with (its name may differ: `payor.name` -> Organization). */
  targetEntity: string;
  transform: string;
  /** The entry reads or writes, on purpose, names its standards lack (`nonstandard: true`). */
  nonstandard?: true;
}

export interface OutputState {
  spec: OutputSpec;
  /** `<source entity>.<name>` */
  key: string;
  resolver: SoftIndexResolver;
  written: Map<string, string>;
  steps: Step[][];
  constants: CompiledConstant[];
  fields: CompiledField[];
  mappings: FieldMapping[];
  env: GetterEnv;
  when?: Predicate;
  id?: (scope: SourceRecord) => string | number | bigint | undefined;
  /** With `id.identity`: the id and whether it fell back (id is derived from it). */
  identity?: (scope: SourceRecord) => Identity;
  gatherKey?: (scope: SourceRecord) => string | undefined;
  into?: ((scope: SourceRecord) => string | undefined)[];
  /** Source paths conditions of the output read. */
  reads: string[];
}

export function newOutputState(spec: OutputSpec, env: GetterEnv): OutputState {
  return {
    spec,
    key: `${spec.sourceEntity}.${spec.name}`,
    resolver: new SoftIndexResolver(),
    written: new Map(),
    steps: [],
    constants: [],
    fields: [],
    mappings: [],
    env,
    reads: [],
  };
}

/** Reserves a resolved target path for one writer; a second writer of the same path is a load error. */
export function claim(
  state: OutputState,
  steps: Step[],
  owner: string,
  at: KeyPath,
  problems: Problems,
): boolean {
  const key = stepsToString(steps);
  const previous = state.written.get(key);
  if (previous !== undefined) {
    problems.add(at, "duplicate_target", `${state.spec.name}.${key} is already written by ${previous}`);
    return false;
  }
  state.written.set(key, owner);
  state.steps.push(steps);
  return true;
}

export function compileOutputConstants(doc: CrossmapDocument, state: OutputState, problems: Problems): void {
  const own = state.spec.doc.constants ?? {};
  const ownLeaves = flattenConstants("", own);
  const ownPaths = new Set(ownLeaves.map((l) => l.path));
  const shared = flattenConstants("", doc.constants?.[state.spec.target] ?? {}).filter(
    (l) => !ownPaths.has(l.path),
  );
  const sources: [typeof shared, KeyPath][] = [
    [shared, ["constants", state.spec.target]],
    [ownLeaves, [...state.spec.at, "constants"]],
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

function getters(
  paths: string | string[],
  env: GetterEnv,
  at: KeyPath,
  problems: Problems,
): Getter[] | undefined {
  const list = [paths].flat();
  const out: Getter[] = [];
  for (const [i, p] of list.entries()) {
    try {
      out.push(compileSourceGetter(p, env));
    } catch (err) {
      if (!(err instanceof PathError)) throw err;
      problems.add(Array.isArray(paths) ? [...at, i] : at, "invalid_path", err.message);
      return undefined;
    }
  }
  return out;
}

/**
 * A gathering key: the values' id forms joined; undefined when all are absent. A part may be
 * `{field, transform, config}`: the transform's output is the part (the day of a date-time), and a value
 * it cannot convert counts as absent.
 */
export function compileKey(
  parts: KeyPart | KeyPart[],
  env: GetterEnv,
  at: KeyPath,
  problems: Problems,
  compileTransform?: TransformCompiler,
): ((scope: SourceRecord) => string | undefined) | undefined {
  const list = [parts].flat();
  const gs: Getter[] = [];
  for (const [i, part] of list.entries()) {
    const where = Array.isArray(parts) ? [...at, i] : at;
    const path = typeof part === "string" ? part : part.field;
    const g = getters(path, env, typeof part === "string" ? where : [...where, "field"], problems)?.[0];
    if (!g) return undefined;
    if (typeof part === "string") {
      gs.push(g);
      continue;
    }
    const fn = compileTransform?.(part.transform, part.config, part.field, where, env);
    if (fn === undefined) {
      if (!compileTransform)
        problems.add(where, "invalid_config", "a key part's transform cannot be compiled here");
      return undefined;
    }
    if (fn === "no_vocabulary") {
      problems.add(
        [...where, "transform"],
        "invalid_config",
        "a key part's transform cannot need a vocabulary",
      );
      return undefined;
    }
    gs.push((s) => {
      const v = g(s);
      if (isAbsent(v)) return undefined;
      try {
        const r = fn(v, s);
        return r instanceof Unmappable ? undefined : r;
      } catch {
        return undefined;
      }
    });
  }
  if (gs.length === 1) {
    const g = gs[0] as Getter;
    return (s) => idValue(g(s));
  }
  return (s) => {
    let any = false;
    const values = gs.map((g) => {
      const v = idValue(g(s));
      if (v !== undefined) any = true;
      return v ?? "";
    });
    return any ? values.join("\u0000") : undefined;
  };
}

/** when, id, key and into keys of one output (not yet the parents of its into rules: see compile-gather.ts). */
export function compileOutputRules(
  state: OutputState,
  cond: Omit<ConditionCompiler, "env">,
  problems: Problems,
): void {
  const { doc, at } = state.spec;
  if (doc.when !== undefined) {
    const p = compileCondition(doc.when, [...at, "when"], { ...cond, env: state.env, reads: state.reads });
    if (p) state.when = p;
  }
  if (doc.id !== undefined && doc.id.identity !== undefined) {
    const { idOf: _idOf, ...env } = state.env;
    const identity = compileIdentity(
      doc.id,
      state.spec.name,
      [...at, "id"],
      (paths, where) => getters(paths, env, where, problems),
      problems,
      state.spec.forEach !== undefined,
      state.spec.sourceEntity,
    );
    if (identity) {
      state.identity = identity;
      state.id = (s) => identity(s).id;
    }
  } else if (doc.id !== undefined) {
    const rule = doc.id;
    if (rule.source === undefined || rule.fallback !== undefined) {
      problems.add(
        [...at, "id"],
        "invalid_config",
        rule.source === undefined
          ? "an id rule needs source (the values it is derived from) or identity (business identifiers)"
          : "fallback is what an id is when no identity applies: it needs identity",
      );
    }
    // An id rule cannot read ids itself.
    const { idOf: _idOf, ...env } = state.env;
    const gs =
      rule.source === undefined ? undefined : getters(rule.source, env, [...at, "id", "source"], problems);
    if (gs) {
      const salt = rule.salt ?? state.spec.name;
      const format = rule.format ?? "uuid";
      const perElement = state.spec.forEach !== undefined;
      state.id = (s) =>
        deriveId(
          gs.map((g) => g(s)),
          salt,
          format,
          perElement ? (s.$index as number) : undefined,
        );
    }
  }
  if (doc.dedupe === true && doc.id === undefined && doc.key === undefined) {
    problems.add(
      [...at, "dedupe"],
      "invalid_config",
      "dedupe needs an id (records are the same when their ids are) or a key (parents with the same key are merged)",
    );
  }
  if (doc.key !== undefined) {
    const k = compileKey(doc.key, state.env, [...at, "key"], problems, cond.compileTransform);
    if (k) state.gatherKey = k;
  }
  if (doc.into !== undefined) {
    const rules = [doc.into].flat();
    const keys: ((s: SourceRecord) => string | undefined)[] = [];
    rules.forEach((r, i) => {
      const k = compileKey(
        r.key,
        state.env,
        Array.isArray(doc.into) ? [...at, "into", i, "key"] : [...at, "into", "key"],
        problems,
        cond.compileTransform,
      );
      if (k) keys.push(k);
    });
    if (keys.length === rules.length) state.into = keys;
  }
}
