// The mapping report of the spec: entity mappings, field mappings, and what is left unmapped on each side,
// judged against whatever standard definitions are available (none -> the unmapped lists are empty and
// `definitions` says so).
import type { Crossmap } from "./crossmap.js";
import type { StandardDefinition } from "./standards.js";

export interface MappingReport {
  source: string;
  target: string;
  entity_mappings: { source_entity: string; target_entity: string }[];
  field_mappings: { count: number; items: { source: string; target: string; transform: string }[] };
  unmapped_source_fields: string[];
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
  const entityMappings = crossmap
    .entities()
    .map((e) => ({ source_entity: e, target_entity: crossmap.targetEntity(e) }));
  const usedSource = new Set(
    fields.flatMap((f) => [...f.sources, ...f.reads].map((s) => `${f.sourceEntity}.${head(s)}`)),
  );
  const usedTarget = new Set(fields.map((f) => f.target.split(".").slice(0, 2).map(head).join(".")));
  for (const c of crossmap.document.constants ? Object.entries(crossmap.document.constants) : []) {
    for (const path of Object.keys(c[1])) usedTarget.add(`${c[0]}.${head(path)}`);
  }
  for (const entry of Object.values(crossmap.document.entity_map)) {
    if (typeof entry === "object" && entry.constants) {
      for (const path of Object.keys(entry.constants)) usedTarget.add(`${entry.target}.${head(path)}`);
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
  return {
    source: crossmap.source,
    target: crossmap.target,
    entity_mappings: entityMappings,
    field_mappings: {
      count: fields.length,
      items: fields.map((f) => ({ source: f.key, target: f.target, transform: f.transform })),
    },
    unmapped_source_fields: unmapped(definitions.source, crossmap.entities(), usedSource),
    unmapped_target_fields: unmapped(
      definitions.target,
      entityMappings.map((m) => m.target_entity),
      usedTarget,
    ),
    definitions: { source: definitions.source !== undefined, target: definitions.target !== undefined },
  };
}
