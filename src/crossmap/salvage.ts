// Keeps what can still be compiled of a crossmap that failed schema validation, so that one run of
// `crossmap check` reports the schema problems and the compile problems of the rest together, instead of
// the second kind only after the first is fixed.
import type { z } from "zod";

type Raw = Record<string, unknown>;
const isObject = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

/** Maps whose entries are independent units: a bad entry is dropped and the others are kept. */
const UNITS = new Set(["entity_map", "field_map", "transforms", "constants"]);
/** Optional top-level keys that compile does not need: a bad one is dropped. */
const OPTIONAL = new Set(["name", "description", "version", "metadata"]);
/** Standards the compiler only carries along: a bad one is replaced, so the rest still compiles. */
const STANDARDS = new Set(["source", "target"]);

/**
 * A copy of `raw` without the parts the schema rejected: unknown keys are removed where they stand; an
 * entry with any other problem is dropped whole, with the field_map entries that need it (those of a
 * dropped entity or named transform), so the compiler reports nothing that only follows from it. Returns
 * undefined when what is wrong is the document's frame (no entity_map, source not a string, ...).
 */
export function salvage(raw: unknown, issues: readonly z.core.$ZodIssue[]): Raw | undefined {
  if (!isObject(raw)) return undefined;
  const doc = structuredClone(raw);
  const dropped = { entity_map: new Set<string>(), transforms: new Set<string>() };
  for (const issue of issues) {
    const path = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p));
    if (issue.code === "unrecognized_keys") {
      const holder = at(doc, path);
      if (isObject(holder)) for (const k of issue.keys) delete holder[k];
      continue;
    }
    const [top, unit] = path;
    if (typeof top === "string" && OPTIONAL.has(top)) {
      delete doc[top];
      continue;
    }
    if (typeof top === "string" && STANDARDS.has(top)) {
      doc[top] = "(invalid)";
      continue;
    }
    if (typeof top !== "string" || !UNITS.has(top) || unit === undefined || !isObject(doc[top])) {
      return undefined;
    }
    delete (doc[top] as Raw)[String(unit)];
    if (top === "entity_map" || top === "transforms") dropped[top].add(String(unit));
  }
  const fieldMap = doc.field_map;
  if (isObject(fieldMap)) {
    for (const [key, value] of Object.entries(fieldMap)) {
      const entity = key.slice(0, Math.max(0, key.indexOf(".")));
      const entries = Array.isArray(value) ? value : [value];
      const needsDropped = entries.some(
        (e) => isObject(e) && typeof e.transform === "string" && dropped.transforms.has(e.transform),
      );
      if (dropped.entity_map.has(entity) || needsDropped) delete fieldMap[key];
    }
  }
  // Constants for the target of a dropped entity would be reported as targeted by no entity.
  if (dropped.entity_map.size > 0 && isObject(doc.constants) && isObject(doc.entity_map)) {
    const targets = new Set(Object.values(doc.entity_map).flatMap(targetsOf));
    for (const entity of Object.keys(doc.constants)) if (!targets.has(entity)) delete doc.constants[entity];
  }
  return doc;
}

function at(doc: Raw, path: readonly PropertyKey[]): unknown {
  let node: unknown = doc;
  for (const part of path) {
    if (Array.isArray(node) && typeof part === "number") node = node[part];
    else if (isObject(node)) node = node[String(part)];
    else return undefined;
  }
  return node;
}

/** Target entity names an entity_map value names, in any of its forms (name, object, list, choose). */
function targetsOf(e: unknown): unknown[] {
  if (Array.isArray(e)) return e.flatMap(targetsOf);
  if (!isObject(e)) return [e];
  return Array.isArray(e.choose) ? e.choose.flatMap(targetsOf) : [e.target];
}
