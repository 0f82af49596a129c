// `when` conditions, compiled once into predicates over a record (or a for_each element's scope):
// equals / in / present / matches on a source path, optionally after a transform, combined with
// all / any / not. Every mistake is a located load problem.
import { isAbsent } from "../transforms/absent.js";
import { describeValue, scalarKey } from "../transforms/describe.js";
import { Unmappable } from "../transforms/types.js";
import type { Getter } from "./paths.js";
import { PathError } from "./paths.js";
import type { KeyPath, Problems } from "./problems.js";
import { unsafeRegexReason } from "./safe-regex.js";
import { compileSourceGetter, type GetterEnv } from "./scope.js";
import type { SourceRecord } from "./types.js";

export type Predicate = (scope: SourceRecord) => boolean;

/** Compiles a condition's transform (a name or an inline `{type, ...}`), or reports why it cannot. */
export type TransformCompiler = (
  transform: unknown,
  config: unknown,
  sourcePath: string,
  at: KeyPath,
  env: GetterEnv,
) => ((value: unknown, record: SourceRecord) => unknown) | "no_vocabulary" | undefined;

export interface ConditionCompiler {
  env: GetterEnv;
  problems: Problems;
  compileTransform: TransformCompiler;
  /** Source paths read, for the mapping report and the standards check. */
  reads?: string[];
}

const TESTS = ["equals", "in", "present", "matches"] as const;
const LEAF_KEYS = new Set<string>(["field", "transform", "config", "vocabulary_optional", ...TESTS]);
const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

export function compileCondition(doc: unknown, at: KeyPath, c: ConditionCompiler): Predicate | undefined {
  const bad = (message: string, path: KeyPath = at): undefined => {
    c.problems.add(path, "invalid_condition", message);
    return undefined;
  };
  if (!isObject(doc))
    return bad(`a condition is a map such as {field: X, equals: Y}, not ${describeValue(doc)}`);
  const combinators = ["all", "any", "not"].filter((k) => k in doc);
  if (combinators.length > 0) {
    const extra = Object.keys(doc).filter((k) => k !== combinators[0]);
    if (combinators.length > 1 || extra.length > 0)
      return bad(
        `"${combinators[0]}" stands alone in its condition; found also ${[...combinators.slice(1), ...extra].join(", ")}`,
      );
    const key = combinators[0] as "all" | "any" | "not";
    if (key === "not") {
      const inner = compileCondition(doc.not, [...at, "not"], c);
      return inner && ((s) => !inner(s));
    }
    const list = doc[key];
    if (!Array.isArray(list) || list.length === 0)
      return bad(`"${key}" takes a non-empty list of conditions`, [...at, key]);
    const parts = list.map((x, i) => compileCondition(x, [...at, key, i], c));
    if (parts.some((p) => p === undefined)) return undefined;
    const ps = parts as Predicate[];
    if (key === "all") return (s) => ps.every((p) => p(s));
    return (s) => ps.some((p) => p(s));
  }
  for (const k of Object.keys(doc)) {
    if (!LEAF_KEYS.has(k)) {
      c.problems.add([...at, k], "invalid_condition", `unknown key "${k}" in a condition`, true);
      return undefined;
    }
  }
  if (typeof doc.field !== "string" || doc.field === "")
    return bad(`a condition needs "field": the source path it tests`);
  const tests = TESTS.filter((t) => t in doc);
  if (tests.length !== 1) {
    return bad(
      tests.length === 0
        ? `a condition needs one test: equals, in, present or matches`
        : `a condition has one test, not ${tests.join(" and ")}`,
    );
  }
  let get: Getter;
  try {
    get = compileSourceGetter(doc.field, c.env);
  } catch (err) {
    if (!(err instanceof PathError)) throw err;
    c.problems.add([...at, "field"], "invalid_path", err.message);
    return undefined;
  }
  c.reads?.push(doc.field);
  let value = get;
  if (doc.transform !== undefined) {
    const fn = c.compileTransform(doc.transform, doc.config, doc.field, at, c.env);
    if (fn === undefined) return undefined;
    if (fn === "no_vocabulary") {
      if (doc.vocabulary_optional !== true) {
        return bad(
          `the condition's transform needs a vocabulary (--vocab); add vocabulary_optional: true to make the condition false without one`,
          [...at, "transform"],
        );
      }
      return () => false;
    }
    value = (s) => {
      const v = get(s);
      if (isAbsent(v)) return undefined;
      try {
        const r = fn(v, s);
        return r instanceof Unmappable ? undefined : r;
      } catch {
        return undefined;
      }
    };
  }
  const test = tests[0] as (typeof TESTS)[number];
  const arg = doc[test];
  switch (test) {
    case "present": {
      if (typeof arg !== "boolean") return bad(`"present" is true or false`, [...at, "present"]);
      return arg ? (s) => !isAbsent(value(s)) : (s) => isAbsent(value(s));
    }
    case "equals": {
      const want = scalarKey(arg);
      if (want === undefined) return bad(`"equals" takes a string, number or boolean`, [...at, "equals"]);
      return anyElement(value, (k) => k === want);
    }
    case "in": {
      if (!Array.isArray(arg) || arg.length === 0)
        return bad(`"in" takes a non-empty list of values`, [...at, "in"]);
      const keys = arg.map(scalarKey);
      if (keys.some((k) => k === undefined))
        return bad(`"in" takes strings, numbers or booleans`, [...at, "in"]);
      const set = new Set(keys as string[]);
      return anyElement(value, (k) => set.has(k));
    }
    case "matches": {
      if (typeof arg !== "string")
        return bad(`"matches" takes a regular expression as a string`, [...at, "matches"]);
      const why = unsafeRegexReason(arg);
      if (why !== undefined) return bad(`"matches" refuses ${why}`, [...at, "matches"]);
      const re = new RegExp(arg, "u");
      return anyElement(value, (k) => re.test(k));
    }
  }
}

/** A test on a value's string form; a list holds when any of its elements does. */
function anyElement(value: Getter, test: (key: string) => boolean): Predicate {
  return (s) => {
    const v = value(s);
    if (Array.isArray(v)) {
      for (const x of v) {
        const k = scalarKey(x);
        if (k !== undefined && test(k)) return true;
      }
      return false;
    }
    const k = scalarKey(v);
    return k !== undefined && test(k);
  };
}
