// A crossmap built from a project's approved and overridden schema items: each source column becomes a
// field_map entry into its target table.column, with the transform the target column's type implies
// (from the target standard's definition in crossmaps/standards/). What a crossmap cannot hold is left
// out with a comment naming it, never dropped silently.
import { stringify } from "yaml";
import { sourceSegment } from "../crossmap/paths.js";
import { loadStandard } from "../crossmap/standards.js";
import type { Project, SchemaItem } from "../store/types.js";

export interface CrossmapExport {
  yaml: string;
  /** Items not in the crossmap, and why: also written into the YAML as comments. */
  omitted: { id: string; reason: string }[];
  fields: number;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The transform (and its config) a target column type implies; types the table does not know pass values on. */
function transformFor(type: string | undefined): { transform: string; config?: Record<string, unknown> } {
  const t = (type ?? "").toLowerCase();
  if (t === "integer" || t === "bigint" || t === "positiveint" || t === "unsignedint")
    return { transform: "int" };
  if (t === "float" || t === "decimal" || t === "number") return { transform: "float" };
  if (t === "boolean") return { transform: "bool" };
  // Dates are never guessed: ISO 8601 and YYYYMMDD in; anything else needs an input_format added by hand.
  if (t === "date") return { transform: "format", config: { pattern: "%Y-%m-%d" } };
  if (t === "datetime") return { transform: "datetime_text", config: { missing_time: "midnight" } };
  if (/^varchar|^string|^text|^code|^char/.test(t)) return { transform: "str" };
  return { transform: "passthrough" };
}

/**
 * `source` is the crossmap's source standard name (a site's schema has none: the caller picks one);
 * the target is the project's target_model.
 */
export function crossmapFromSchemaItems(
  project: Project & { target_model: string },
  items: readonly SchemaItem[],
  source: string,
  now = new Date(),
): CrossmapExport {
  const standard = loadStandard(project.target_model);
  const typeOf = (table: string, column: string) =>
    standard?.entities[table]?.fields.find((f) => f.name === column)?.type;
  const omitted: { id: string; reason: string }[] = [];
  const decided = items.filter((i) => i.status === "approved" || i.status === "overridden");
  // One target table per source table: the one most of its columns go to (ties: the first by name).
  const byTable = new Map<string, SchemaItem[]>();
  for (const item of decided) {
    if (item.source_table === null) {
      omitted.push({ id: item.id, reason: `${item.source_column}: no source_table, so no source entity` });
      continue;
    }
    if (item.target_table === null || item.target_column === null) {
      omitted.push({ id: item.id, reason: `${item.source_table}.${item.source_column}: no target` });
      continue;
    }
    const list = byTable.get(item.source_table);
    if (list) list.push(item);
    else byTable.set(item.source_table, [item]);
  }
  const entityMap: Record<string, string> = {};
  const fieldMap: Record<string, Record<string, unknown>> = {};
  for (const [table, tableItems] of [...byTable.entries()].sort(([a], [b]) => compare(a, b))) {
    const counts = new Map<string, number>();
    for (const i of tableItems) counts.set(i.target_table!, (counts.get(i.target_table!) ?? 0) + 1);
    const target = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
    entityMap[table] = target;
    const written = new Map<string, string>();
    // Fields in the target table's column order (as the standard lists them), so the file reads like the
    // table; columns written twice keep the first source column by name. Item ids (random) decide nothing.
    const position = (column: string) => {
      const at = standard?.entities[target]?.fields.findIndex((f) => f.name === column) ?? -1;
      return at === -1 ? Number.MAX_SAFE_INTEGER : at;
    };
    const ordered = [...tableItems].sort(
      (x, y) =>
        position(x.target_column!) - position(y.target_column!) ||
        compare(x.target_column!, y.target_column!) ||
        compare(x.source_column, y.source_column) ||
        compare(x.id, y.id),
    );
    for (const item of ordered) {
      const where = `${table}.${item.source_column} -> ${item.target_table}.${item.target_column}`;
      if (item.target_table !== target) {
        omitted.push({
          id: item.id,
          reason: `${where}: ${table} already maps to ${target} (one target entity per source entity)`,
        });
        continue;
      }
      const previous = written.get(item.target_column!);
      if (previous !== undefined) {
        omitted.push({
          id: item.id,
          reason: `${where}: ${target}.${item.target_column} is already written by ${previous}`,
        });
        continue;
      }
      written.set(item.target_column!, `${table}.${item.source_column}`);
      const { transform, config } = transformFor(typeOf(target, item.target_column!));
      // A column that is not a plain name (`Patient ID`, `a: b`, `#c`) is quoted in the path, so that the
      // crossmap reads exactly that column (see the crossmap language, Paths).
      fieldMap[`${table}.${sourceSegment(item.source_column)}`] = {
        target: `${target}.${item.target_column}`,
        transform,
        ...(config ? { config } : {}),
      };
    }
  }
  const doc = {
    source,
    target: project.target_model,
    name: `${project.name} (crossmap project ${project.id})`,
    entity_map: entityMap,
    field_map: fieldMap,
  };
  const header = [
    `Built from the approved and overridden schema items of crossmap project "${project.name}" on ${now.toISOString()}.`,
    "Transforms follow the target columns' types; dates are read as ISO 8601 or YYYYMMDD.",
    ...(omitted.length > 0 ? ["Not included:", ...omitted.map((o) => `  item ${o.id}: ${o.reason}`)] : []),
  ];
  const yaml = `${header.map((l) => `# ${l}`.trimEnd()).join("\n")}\n${stringify(doc, { lineWidth: 0 })}`;
  return { yaml, omitted, fields: Object.keys(fieldMap).length };
}
