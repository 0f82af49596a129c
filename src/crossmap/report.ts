// The mapping report of the spec: entity mappings, field mappings, and what is left unmapped on each side,
// judged against whatever standard definitions are available (none -> the unmapped lists are empty and
// `definitions` says so).
import type { Crossmap } from "./crossmap.js";
import { headField } from "./paths.js";
import type { StandardDefinition } from "./standards.js";

export interface MappingReport {
  source: string;
  target: string;
  entity_mappings: { source_entity: string; target_entity: string }[];
  field_mappings: { count: number; items: { source: string; target: string; transform: string }[] };
  /** Source fields no mapping reads: the crossmap's gaps (the fields `not_mapped` declares are not here). */
  unmapped_source_fields: string[];
  /** Source fields the crossmap's `not_mapped` declares read but deliberately not mapped. */
  not_mapped_source_fields: string[];
  unmapped_target_fields: string[];
  /** Which sides could be checked for unmapped fields. */
  definitions: { source: boolean; target: boolean };
}

/** Top-level field name of a path: `code.coding[0].code` -> `code`. */
const head = (path: string): string => path.split(/[.[]/)[0] ?? path;

export function mappingReport(
  crossmap: Crossmap,
  definitions: { source?: StandardDefinition; target?: StandardDefinition } = {},
): MappingReport {
  const fields = crossmap.fieldMappings();
  // One row per output: a source entity that routes or fans out maps to several target entities.
  const entityMappings = crossmap.entities().flatMap((e) => {
    const seen = new Set<string>();
    return crossmap
      .outputs(e)
      .filter((o) => !seen.has(o.targetEntity) && seen.add(o.targetEntity))
      .map((o) => ({ source_entity: e, target_entity: o.targetEntity }));
  });
  const usedSource = new Set(
    fields.flatMap((f) => [...f.sources, ...f.reads].map((s) => `${f.sourceEntity}.${headField(s)}`)),
  );
  for (const r of crossmap.conditionReads()) usedSource.add(`${r.sourceEntity}.${headField(r.path)}`);
  const usedTarget = new Set(fields.map((f) => `${f.targetEntity}.${head(f.target.split(".")[1] ?? "")}`));
  for (const c of crossmap.document.constants ? Object.entries(crossmap.document.constants) : []) {
    for (const path of Object.keys(c[1])) usedTarget.add(`${c[0]}.${head(path)}`);
  }
  for (const entry of Object.values(crossmap.document.entity_map)) {
    for (const o of outputDocs(entry)) {
      for (const path of Object.keys(o.constants ?? {})) usedTarget.add(`${o.target}.${head(path)}`);
    }
  }
  const unmapped = (def: StandardDefinition | undefined, entities: string[], used: Set<string>): string[] => {
    if (!def) return [];
    const out: string[] = [];
    for (const e of new Set(entities)) {
      for (const f of def.entities[e]?.fields ?? [])
        if (!used.has(`${e}.${f.name}`)) out.push(`${e}.${f.name}`);
    }
    return out;
  };
  const declared = Object.entries(crossmap.document.not_mapped ?? {}).flatMap(([e, list]) =>
    list.map((f) => `${e}.${f}`),
  );
  const notMapped = new Set(declared);
  return {
    source: crossmap.source,
    target: crossmap.target,
    entity_mappings: entityMappings,
    field_mappings: {
      count: fields.length,
      items: fields.map((f) => ({ source: f.key, target: f.target, transform: f.transform })),
    },
    unmapped_source_fields: unmapped(definitions.source, crossmap.entities(), usedSource).filter(
      (f) => !notMapped.has(f),
    ),
    not_mapped_source_fields: [...notMapped],
    unmapped_target_fields: unmapped(
      definitions.target,
      entityMappings.map((m) => m.target_entity),
      usedTarget,
    ),
    definitions: { source: definitions.source !== undefined, target: definitions.target !== undefined },
  };
}

/** The output objects written in one entity_map value (any of its forms). */
function outputDocs(entry: unknown): { target: string; constants?: Record<string, unknown> }[] {
  const items = Array.isArray(entry) ? entry : [entry];
  return items.flatMap((x) => {
    if (x === null || typeof x !== "object") return [];
    const o = x as { choose?: unknown; target?: unknown; constants?: Record<string, unknown> };
    if (Array.isArray(o.choose)) return outputDocs(o.choose);
    return typeof o.target === "string"
      ? [{ target: o.target, ...(o.constants ? { constants: o.constants } : {}) }]
      : [];
  });
}
