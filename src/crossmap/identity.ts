// Ids from business identifiers: an output's `id: {identity: [...]}` rule, compiled once. The first candidate
// whose `require` paths are all present gives the id (a pure function of its name and values, so the same
// patient in two messages gets the same id); when none applies, the rule's `source` (derived as a plain id
// rule derives it) or `fallback` (a value taken as the id as it is) gives it, and the record is told so.
import { deriveId, type IdFormat } from "../transforms/derived-id.js";
import { scalarKey } from "../transforms/describe.js";
import type { Getter } from "./paths.js";
import type { KeyPath, Problems } from "./problems.js";
import type { IdRule } from "./schema.js";
import type { SourceRecord } from "./types.js";

export type IdValue = string | number | bigint | undefined;

/**
 * How the no_identity message names a fallback: the reader's own record id (`$ctx.id`) in words, since a
 * reviewer reading the issue does not know the crossmap's context names; any other path as written.
 */
function fallbackName(path: string, named: (p: string) => string): string {
  return path === "$ctx.id" ? "the source record's own id" : named(path);
}

/** An id and, when no business identifier gave it, the sentence that says where it came from instead. */
export interface Identity {
  id: IdValue;
  fallback?: string;
}

/** Compiles source paths, reporting each bad one at its place; undefined when any is bad. */
export type GetterCompiler = (paths: string | string[], at: KeyPath) => Getter[] | undefined;

const FHIR_ID = /^[A-Za-z0-9\-.]{1,64}$/;

/** `k` as a component number ("1", "12"), or 0 when it is not one ("0", "01", "a"). */
function componentNumber(k: string): number {
  const first = k.charCodeAt(0);
  if (!(first >= 49 && first <= 57)) return 0;
  for (let i = 1; i < k.length; i++) {
    const c = k.charCodeAt(i);
    if (c < 48 || c > 57) return 0;
  }
  return Number(k);
}

/**
 * A value as it counts for an identity: a scalar as itself; a node of numbered parts (a reader's composite
 * field, `{1: "HOSP", 2: "2.16.840.1.113883.19", 3: "ISO"}`) as its parts in order, so an assigning
 * authority counts whole whether it came with its parts or as a bare name (`{1: "HOSP"}` is "HOSP").
 * Loops, not Object.keys().every(regex) and Array.from: a message's ids read dozens of these.
 */
export function identityText(v: unknown): string | undefined {
  if (typeof v === "string") {
    const t = v.trim();
    return t === "" ? undefined : t;
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) return scalarKey(v)?.trim() || undefined;
  const keys = Object.keys(v);
  if (keys.length === 0) return undefined;
  const parts: (string | undefined)[] = [];
  for (const k of keys) {
    const n = componentNumber(k);
    if (n === 0) return undefined;
    parts[n - 1] = identityText((v as Record<string, unknown>)[k]);
  }
  // Trailing empty parts say nothing: `{1: "HOSP", 2: ""}` is "HOSP".
  let end = parts.length;
  while (end > 0 && (parts[end - 1] ?? "") === "") end--;
  if (end === 0) return undefined;
  let out = parts[0] ?? "";
  for (let i = 1; i < end; i++) out += `\u001f${parts[i] ?? ""}`;
  return out;
}

/**
 * The identity function of an `id` rule with `identity` candidates. The candidate's name (default its
 * position, 1-based) is part of the id, so candidates of different meaning never share an id for the same
 * values, and candidates of one meaning (a patient's PID-3 and the MRG-1 of its merge) can, by sharing a name.
 */
export function compileIdentity(
  rule: IdRule,
  defaultSalt: string,
  at: KeyPath,
  getters: GetterCompiler,
  problems: Problems,
  perElement: boolean,
  /** The source entity, to name its relative paths in the no_identity message (`PID.3.1`). */
  entity = "",
): ((scope: SourceRecord) => Identity) | undefined {
  const candidates = rule.identity ?? [];
  const salt = rule.salt ?? defaultSalt;
  const format: IdFormat = rule.format ?? "uuid";
  const compiled: { name: string; require: Getter[]; with: Getter[] }[] = [];
  let ok = true;
  candidates.forEach((c, i) => {
    const where = [...at, "identity", i];
    const require = getters(c.require, [...where, "require"]);
    const more = c.with === undefined ? [] : getters(c.with, [...where, "with"]);
    if (require === undefined || more === undefined) ok = false;
    else compiled.push({ name: c.name ?? String(i + 1), require, with: more });
  });
  const source = rule.source === undefined ? undefined : getters(rule.source, [...at, "source"]);
  const fallback = rule.fallback === undefined ? undefined : getters(rule.fallback, [...at, "fallback"])?.[0];
  if (
    !ok ||
    (rule.source !== undefined && source === undefined) ||
    (rule.fallback !== undefined && !fallback)
  )
    return undefined;
  if (rule.source !== undefined && rule.fallback !== undefined) {
    problems.add(
      [...at, "fallback"],
      "invalid_config",
      "give either source or fallback for when no identity applies, not both",
    );
    return undefined;
  }
  const named = (p: string): string => (entity === "" || p.startsWith("$") ? p : `${entity}.${p}`);
  const tried = candidates.map((c) => [c.require].flat().map(named).join(" + ")).join(", ");
  const instead =
    rule.source !== undefined
      ? `derived from ${[rule.source].flat().map(named).join(", ")}`
      : rule.fallback !== undefined
        ? fallbackName(rule.fallback, named)
        : "none";
  const message = `no business identifier is present (${tried}); the id is ${instead} instead`;
  return (s) => {
    const index = perElement ? (s.$index as number) : undefined;
    for (const c of compiled) {
      const values: unknown[] = [c.name];
      let present = true;
      for (const g of c.require) {
        const v = identityText(g(s));
        if (v === undefined) {
          present = false;
          break;
        }
        values.push(v);
      }
      if (!present) continue;
      for (const g of c.with) values.push(identityText(g(s)));
      return { id: deriveId(values, salt, format, index, true) };
    }
    if (source !== undefined) {
      return {
        id: deriveId(
          source.map((g) => identityText(g(s))),
          salt,
          format,
          index,
        ),
        fallback: message,
      };
    }
    if (fallback !== undefined) {
      const v = identityText(fallback(s));
      return { id: v !== undefined && FHIR_ID.test(v) ? v : undefined, fallback: message };
    }
    return { id: undefined, fallback: message };
  };
}
