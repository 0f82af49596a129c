// Source paths with the language's reserved names, compiled to getters once: `[*]` (the current element of
// a `for_each`), `$index`, `$id` / `$id.<output>` (derived ids) and `$param.<name>` (run parameters).
// A `for_each` element is read through a scope object whose prototype is the record, so every plain
// getter works on it unchanged and records without `for_each` pay nothing.
import { compileGetter, type Getter, PathError, parseSourcePath } from "./paths.js";
import type { SourceRecord } from "./types.js";

/** What a source path can see, for one output (or one condition). */
export interface GetterEnv {
  /** The `for_each` path of the output, when it has one (`component`). */
  forEach?: string;
  /** The output the path belongs to, for a bare `$id`. */
  self?: string;
  /** The id function of an output of the same source entity, or a sentence saying why there is none. */
  idOf?: (name: string) => Getter | string;
  /** Declared parameters and the value each has in this run (undefined: none given, no default). */
  parameters?: ReadonlyMap<string, string | undefined>;
}

/** The scope of one `for_each` element: the record's fields, plus the element and its index. */
export function elementScope(record: SourceRecord, element: unknown, index: number): SourceRecord {
  const scope = Object.create(record) as SourceRecord;
  scope.$each = element;
  scope.$index = index;
  return scope;
}

const sameSteps = (a: string, b: string): boolean => {
  try {
    return parseSourcePath(a).join("\u0000") === parseSourcePath(b).join("\u0000");
  } catch {
    return false;
  }
};

/** Compiles a source path with reserved names; throws PathError with a message for the user. */
export function compileSourceGetter(path: string, env: GetterEnv = {}): Getter {
  if (path === "$id" || path.startsWith("$id.")) {
    const name = path === "$id" ? env.self : path.slice(4);
    if (name === undefined || name === "") throw new PathError(`"${path}" names no output`);
    const id = env.idOf?.(name) ?? `no output "${name}" has an id`;
    if (typeof id === "string") throw new PathError(`"${path}": ${id}`);
    return id;
  }
  if (path === "$param" || path.startsWith("$param.")) {
    const name = path.slice(7);
    const params = env.parameters ?? new Map<string, string | undefined>();
    if (!params.has(name)) {
      const known = [...params.keys()];
      throw new PathError(
        `unknown parameter "${name}"; ${known.length > 0 ? `declared: ${known.join(", ")}` : "the crossmap declares no parameters"}`,
      );
    }
    const value = params.get(name);
    return () => value;
  }
  if (path === "$index") {
    if (env.forEach === undefined) throw new PathError(`"$index" is only known in an output with for_each`);
    return (s) => s.$index;
  }
  const star = path.indexOf("[*]");
  if (star >= 0) {
    const prefix = path.slice(0, star);
    if (env.forEach === undefined || !sameSteps(prefix, env.forEach)) {
      throw new PathError(
        `"${path}" reads the elements of ${prefix}, but ${env.forEach === undefined ? "this output has no for_each" : `this output's for_each is ${env.forEach}`}`,
      );
    }
    let rest = path.slice(star + 3);
    if (rest.includes("[*]")) throw new PathError(`"${path}" has more than one [*]`);
    if (rest === "") return (s) => s.$each;
    if (rest.startsWith(".")) rest = rest.slice(1);
    else if (!rest.startsWith("[")) throw new PathError(`malformed path "${path}" after [*]`);
    const inner = compileGetter(parseSourcePath(`$each${rest.startsWith("[") ? "" : "."}${rest}`));
    return inner;
  }
  return compileGetter(parseSourcePath(path));
}
