// Parses source and target paths once and compiles them into getter / setter closures.
// Target soft indexes (`[+]` append, `[=]` reuse) are resolved to concrete indexes at compile time,
// FHIR Shorthand style; arrays are compacted per record so elements whose fields were absent leave no hole.
import type { Getter } from "../transforms/types.js";
import type { TargetRecord } from "./types.js";

export type { Getter };

export type Step = string | number;
export type TargetIndex = number | "+" | "=";

export interface TargetSegment {
  name: string;
  index?: TargetIndex;
}

/** Thrown while parsing a path; the loader turns it into a located problem. */
export class PathError extends Error {}

/**
 * Largest array index a target path may write (`[1000]`, or a `[+]` that resolves past it). An index
 * makes an array that long in every output record, and compacting it costs its length per record.
 */
export const MAX_TARGET_INDEX = 1000;

const indexTooLarge = (path: string, index: number) =>
  new PathError(`path "${path}": index ${index} is over the limit of ${MAX_TARGET_INDEX}`);

const FORBIDDEN = new Set(["__proto__", "constructor", "prototype"]);
const NAME = /^[A-Za-z0-9_$][\w$-]*$/;

function checkName(name: string, path: string): void {
  if (!NAME.test(name)) throw new PathError(`malformed path "${path}": "${name}" is not a valid name`);
  if (FORBIDDEN.has(name))
    throw new PathError(`malformed path "${path}": "${name}" cannot be used as a name`);
}

/**
 * `code.coding[0].code` -> ["code", "coding", 0, "code"]; `PID.3.1` -> ["PID", "3", "1"]. A name that is
 * not a plain name (a site's column `Patient ID`, `a: b`, `a.b`) is written quoted as a JSON string:
 * `"Patient ID"`, `"a.b"[0]`.
 */
export function parseSourcePath(path: string): Step[] {
  if (path.length === 0) throw new PathError("empty path");
  if (!path.includes('"')) return parsePlainPath(path);
  const steps: Step[] = [];
  let i = 0;
  for (;;) {
    let name: string;
    if (path[i] === '"') {
      const end = closingQuote(path, i);
      if (end < 0) throw new PathError(`malformed path "${path}": a quoted name is not closed`);
      try {
        name = JSON.parse(path.slice(i, end + 1)) as string;
      } catch {
        throw new PathError(`malformed path "${path}": ${path.slice(i, end + 1)} is not a JSON string`);
      }
      if (name === "" || /\p{Cc}/u.test(name)) {
        throw new PathError(
          `malformed path "${path}": a quoted name must be non-empty, without control characters`,
        );
      }
      if (FORBIDDEN.has(name))
        throw new PathError(`malformed path "${path}": "${name}" cannot be used as a name`);
      i = end + 1;
    } else {
      let j = i;
      while (j < path.length && path[j] !== "." && path[j] !== "[") j++;
      name = path.slice(i, j);
      checkName(name, path);
      i = j;
    }
    steps.push(name);
    while (path[i] === "[") {
      const m = /^\[(\d+)\]/.exec(path.slice(i));
      if (!m)
        throw new PathError(
          `malformed path "${path}": bad index at "${path.slice(i)}" (indexes are [0], [1], ...)`,
        );
      steps.push(Number(m[1]));
      i += m[0].length;
    }
    if (i >= path.length) return steps;
    if (path[i] !== ".") throw new PathError(`malformed path "${path}": expected "." at "${path.slice(i)}"`);
    i++;
  }
}

function parsePlainPath(path: string): Step[] {
  const steps: Step[] = [];
  for (const part of path.split(".")) {
    const m = /^([^[\]]*)((?:\[\d+\])*)$/.exec(part);
    if (!m)
      throw new PathError(`malformed path "${path}": bad segment "${part}" (indexes are [0], [1], ...)`);
    checkName(m[1] ?? "", path);
    steps.push(m[1] ?? "");
    for (const idx of (m[2] ?? "").matchAll(/\[(\d+)\]/g)) steps.push(Number(idx[1]));
  }
  return steps;
}

/** The index of the quote closing the JSON string that opens at `open`, or -1. */
function closingQuote(path: string, open: number): number {
  for (let k = open + 1; k < path.length; k++) {
    if (path[k] === "\\") k++;
    else if (path[k] === '"') return k;
  }
  return -1;
}

/** A source field name as a path segment: as it is when it is a plain name, else quoted. */
export function sourceSegment(name: string): string {
  return NAME.test(name) && !FORBIDDEN.has(name) ? name : JSON.stringify(name);
}

/** The first field a source path reads (`code.coding[0]` -> `code`, `"a.b"[0]` -> `a.b`), for messages. */
export function headField(path: string): string {
  try {
    return String(parseSourcePath(path)[0]);
  } catch {
    return path.split(/[.[]/)[0] ?? path;
  }
}

/** `identifier[+].value` -> [{name:"identifier", index:"+"}, {name:"value"}]. One index per segment. */
export function parseTargetPath(path: string): TargetSegment[] {
  if (path.length === 0) throw new PathError("empty path");
  return path.split(".").map((part) => {
    const m = /^([^[\]]*)(?:\[(\d+|\+|=)\])?$/.exec(part);
    if (!m) {
      throw new PathError(
        `malformed path "${path}": bad segment "${part}" (indexes are [0], [1], [+] or [=])`,
      );
    }
    checkName(m[1] ?? "", path);
    const raw = m[2];
    const seg: TargetSegment = { name: m[1] ?? "" };
    if (raw !== undefined) seg.index = raw === "+" || raw === "=" ? raw : Number(raw);
    if (typeof seg.index === "number" && seg.index > MAX_TARGET_INDEX) throw indexTooLarge(path, seg.index);
    return seg;
  });
}

/**
 * Compiles a path into straight-line code with the keys as literals, as setters are (names are validated by
 * the path grammar, and quoted with JSON.stringify). A closure shared by every getter (`(r) => r[k]`) has
 * one feedback vector for all of them, so its property loads went megamorphic: measured on the HL7 v2
 * samples, the three shared getter closures took ~8.5% of a message's CPU; generated, each path has
 * its own inline caches, monomorphic on the records of its entity. Generated on the first call, as setters
 * are (a `new Function` at load made most of a large crossmap's compile time).
 */
export function compileGetter(steps: readonly Step[]): Getter {
  let generated: Getter | undefined;
  const generate = (): Getter => (generated ??= generateGetter(steps));
  const lazy: Getter & Lazy<Getter> = (r) => (generated ?? generate())(r);
  lazy[GENERATE] = generate;
  return lazy;
}

/** The function a compiled getter or setter generates when first called (see `generatedNow`). */
const GENERATE = Symbol("generate");

interface Lazy<F> {
  [GENERATE]?: () => F;
}

/**
 * A getter or setter from compileGetter/compileSetter as its generated function, generated now; any other
 * function as it is. A mapper swaps its fields' accessors for these on its first record: each call then goes
 * straight to the generated code, not through the lazy wrapper (~3% of an HL7 v2 message's CPU went to the
 * wrappers: every wrapper shares one call site for its generated function, which V8 cannot inline).
 */
export function generatedNow<F extends (...args: never[]) => unknown>(f: F): F {
  return (f as F & Lazy<F>)[GENERATE]?.() ?? f;
}

/**
 * A record whose numbered keys ("3", "12") are computed when read (a reader's lazy fields) may give them
 * through a method under this key, `record[FIELD_AT](12)`, which a getter calls when the record has it.
 * V8 keeps integer keys apart from named ones: an accessor for "12" on a prototype is read through a
 * dictionary lookup each time, ~15x a named accessor (100 against 7 ns measured here), and the HL7 v2
 * reader's records are read that way a few hundred times a message.
 */
export const FIELD_AT = Symbol.for("crossmap.field-at");

const NUMBERED_KEY = /^[1-9][0-9]{0,8}$/;

/**
 * A numbered key of `o`, through its FIELD_AT method when it has one. Shared by every getter, not written
 * into each: inlined there, the method and the reader behind it made each of the hundreds of getters a
 * large compile (V8's optimizing compiles of the generated getters took 158 -> 1,974 ms of background CPU
 * per 11,000 HL7 v2 messages); shared, its calls are megamorphic, and still far cheaper than the accessors.
 */
function numbered(o: Record<PropertyKey, unknown>, n: number): unknown {
  const at = o[FIELD_AT];
  return at === undefined ? o[n] : (at as (n: number) => unknown).call(o, n);
}

function generateGetter(steps: readonly Step[]): Getter {
  const key = (s: Step) => (typeof s === "number" ? String(s) : JSON.stringify(s));
  const load = (o: string, s: Step) =>
    typeof s === "string" && NUMBERED_KEY.test(s) ? `N(${o}, ${s})` : `${o}[${key(s)}]`;
  let body = `let c = ${load("r", steps[0] as Step)};\n`;
  for (let i = 1; i < steps.length; i++) {
    body += `if (c === null || typeof c !== "object") return undefined;\nc = ${load("c", steps[i] as Step)};\n`;
  }
  return new Function("N", `return function get(r) {\n${body}return c;\n};`)(numbered) as Getter;
}

/** Writes `value` at a fixed path, creating objects and arrays on the way. False on a conflict. */
export type Setter = (out: TargetRecord, value: unknown) => boolean;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The last step of a write: set, or merge two plain objects, or report a conflict. */
function writeLast(cur: Record<Step, unknown>, key: Step, value: unknown): boolean {
  const existing = cur[key];
  if (existing === undefined) {
    cur[key] = value;
    return true;
  }
  // Two entries may build one object (a CodeableConcept and its text): merge, never clobber.
  if (isPlainObject(existing) && isPlainObject(value)) {
    Object.assign(existing, value);
    return true;
  }
  return false;
}

/**
 * Compiles a fixed path into straight-line code with the keys as literals (names are validated by the
 * path grammar, and quoted with JSON.stringify). Per record it is a handful of monomorphic property
 * accesses instead of a loop of megamorphic keyed ones. The code is generated on the setter's first call,
 * not at load: a `new Function` costs 20-40 us, which made most of a 1 MB crossmap's compile (24,000
 * fields, ~0.8 s of 5.6 s; 4.6 s of 26.6 s at 4 MB), while a call maps records that use a few of them.
 */
export function compileSetter(steps: readonly Step[]): Setter {
  let generated: Setter | undefined;
  const generate = (): Setter => (generated ??= generateSetter(steps));
  const lazy: Setter & Lazy<Setter> = (out, value) => (generated ?? generate())(out, value);
  lazy[GENERATE] = generate;
  return lazy;
}

function generateSetter(steps: readonly Step[]): Setter {
  const key = (s: Step) => (typeof s === "number" ? String(s) : JSON.stringify(s));
  let body = "let c = out, n;\n";
  for (let i = 0; i < steps.length - 1; i++) {
    const k = key(steps[i] as Step);
    const fresh = typeof steps[i + 1] === "number" ? "[]" : "{}";
    body += `n = c[${k}]; if (n === undefined) { n = ${fresh}; c[${k}] = n; } else if (n === null || typeof n !== "object") return false; c = n;\n`;
  }
  const last = key(steps[steps.length - 1] as Step);
  body += `if (c[${last}] === undefined) { c[${last}] = value; return true; }\nreturn writeLast(c, ${last}, value);`;
  return new Function("writeLast", `return function set(out, value) {\n${body}\n};`)(writeLast) as Setter;
}

/** Resolves soft indexes in declaration order, like FHIR Shorthand: per array, `[+]` is last+1, `[=]` is last. */
export class SoftIndexResolver {
  private readonly last = new Map<string, number>();

  resolve(path: string, segments: readonly TargetSegment[]): Step[] {
    const steps: Step[] = [];
    let prefix = "";
    for (const seg of segments) {
      steps.push(seg.name);
      prefix += `.${seg.name}`;
      if (seg.index === undefined) continue;
      let index: number;
      const prev = this.last.get(prefix);
      if (seg.index === "+") index = prev === undefined ? 0 : prev + 1;
      else if (seg.index === "=") {
        if (prev === undefined)
          throw new PathError(`malformed path "${path}": [=] before any [+] or [n] on ${prefix.slice(1)}`);
        index = prev;
      } else index = seg.index;
      if (index > MAX_TARGET_INDEX) throw indexTooLarge(path, index);
      this.last.set(prefix, index);
      steps.push(index);
      prefix += `[${index}]`;
    }
    return steps;
  }
}

export const stepsToString = (steps: readonly Step[]): string =>
  steps.map((s, i) => (typeof s === "number" ? `[${s}]` : i === 0 ? s : `.${s}`)).join("");

/**
 * Returns a function that removes holes from every array the given target paths can create, innermost
 * first, so absent source fields never leave `null` in output. Arrays only ever written at [0] need nothing.
 */
export function compileCompactor(paths: readonly Step[][]): ((out: TargetRecord) => void) | undefined {
  const containers = new Map<string, Step[]>();
  for (const steps of paths) {
    for (let i = 0; i < steps.length; i++) {
      const s = steps[i];
      if (typeof s === "number" && s > 0) {
        const prefix = steps.slice(0, i);
        containers.set(stepsToString(prefix), prefix);
      }
    }
  }
  if (containers.size === 0) return undefined;
  const ordered = [...containers.values()].sort((a, b) => b.length - a.length);
  return (out) => {
    for (const prefix of ordered) {
      let cur: unknown = out;
      for (const s of prefix) {
        if (cur === null || typeof cur !== "object") break;
        cur = (cur as Record<Step, unknown>)[s];
      }
      if (!Array.isArray(cur)) continue;
      for (let i = 0; i < cur.length; i++) {
        if (cur[i] === undefined) {
          const dense = cur.filter((x) => x !== undefined);
          cur.length = 0;
          cur.push(...dense);
          break;
        }
      }
    }
  };
}
