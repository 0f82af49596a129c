// The built-in crossmaps shipped in `crossmaps/`: found by (source, target) from each file's own header.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compiledEntryAt } from "./compiled.js";

/**
 * The YAML parser, loaded only when a file is not in the compiled file (compiled.ts): loading and running
 * it was most of `crossmap map`'s start-up. Synchronous, as the catalog's callers are.
 */
export const parseYaml = (text: string): unknown =>
  (createRequire(import.meta.url)("yaml") as typeof import("yaml")).parse(text);

/** `crossmaps/` of this package, from both `src/` (tests) and `dist/` (installed). */
export const BUILTIN_DIR = fileURLToPath(new URL("../../crossmaps/", import.meta.url));

/** What the catalog tells of a crossmap document (the build keeps it for each built-in, compiled.ts). */
export interface CrossmapSummary {
  source: string;
  target: string;
  /** source entity -> target entity, or the target entities of its outputs when it has several */
  entity_map: Record<string, string | string[]>;
  field_count: number;
}

export interface CatalogEntry extends CrossmapSummary {
  /** File name inside crossmaps/, e.g. "omop_cdm_v5.4-to-fhir_r4.yaml". */
  file: string;
  path: string;
}

let cache: CatalogEntry[] | undefined;

export function listBuiltinCrossmaps(dir: string = BUILTIN_DIR): CatalogEntry[] {
  if (dir === BUILTIN_DIR && cache) return cache;
  const entries: CatalogEntry[] = [];
  for (const file of readdirSync(dir).sort()) {
    if (!/\.ya?ml$/.test(file)) continue;
    const path = join(dir, file);
    const summary =
      (dir === BUILTIN_DIR ? compiledEntryAt(path)?.summary : undefined) ??
      summarize(parseYaml(readFileSync(path, "utf8")));
    if (!summary) continue;
    const { source, target, entity_map, field_count } = summary;
    entries.push({ source, target, file, path, entity_map, field_count });
  }
  if (dir === BUILTIN_DIR) cache = entries;
  return entries;
}

/** The catalog's summary of a parsed crossmap document, or undefined when it names no source and target. */
export function summarize(parsed: unknown): CrossmapSummary | undefined {
  const doc = parsed as Record<string, unknown> | null;
  if (!doc || typeof doc.source !== "string" || typeof doc.target !== "string") return undefined;
  const entityMap: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries((doc.entity_map ?? {}) as Record<string, unknown>)) {
    const targets = [...new Set(targetsOf(v))];
    entityMap[k] = targets.length === 1 ? (targets[0] as string) : targets;
  }
  const fieldCount = Object.values((doc.field_map ?? {}) as Record<string, unknown>).reduce<number>(
    (n, v) => n + (Array.isArray(v) ? v.length : 1),
    0,
  );
  return { source: doc.source, target: doc.target, entity_map: entityMap, field_count: fieldCount };
}

export function findBuiltinCrossmap(source: string, target: string): CatalogEntry | undefined {
  return listBuiltinCrossmaps().find((e) => e.source === source && e.target === target);
}

/** Target entity names an entity_map value names, in order (outputs, and alternatives of choose groups). */
function targetsOf(v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.flatMap(targetsOf);
  if (v === null || typeof v !== "object") return [];
  const o = v as { choose?: unknown; target?: unknown };
  if (Array.isArray(o.choose)) return o.choose.flatMap(targetsOf);
  return typeof o.target === "string" ? [o.target] : [];
}
