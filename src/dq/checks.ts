// Which checks a DQD run performs: every check description applied to the rows of its level's threshold file
// that its evaluation filter keeps, as DQD's executeDqChecks enumerates them, with each check's parameters.
import type { CheckDescription, CheckLevel, DefinitionRow, DqdDefinitions } from "./definitions.js";
import { compileFilter } from "./filter.js";
import { renderSql } from "./sql-render.js";

/** DQD's default `tablesToExclude`: the vocabulary tables, which a site loads from Athena as they are. */
export const EXCLUDED_TABLES: ReadonlySet<string> = new Set([
  "CONCEPT",
  "VOCABULARY",
  "CONCEPT_ANCESTOR",
  "CONCEPT_RELATIONSHIP",
  "CONCEPT_CLASS",
  "CONCEPT_SYNONYM",
  "RELATIONSHIP",
  "DOMAIN",
]);

export interface CheckInstance {
  description: CheckDescription;
  /** The threshold-file row the check was made from (with `schema` resolved). */
  row: DefinitionRow;
  cdmTableName: string;
  cdmFieldName: string | undefined;
  conceptId: string | undefined;
  unitConceptId: string | undefined;
  checkId: string;
  /** The description with this check's values, as DQD renders it for its results. */
  text: string;
}

export interface CheckSelection {
  levels?: readonly CheckLevel[];
  severities?: readonly string[];
  /** Only these check names (e.g. `isPrimaryKey`); all when absent. */
  names?: readonly string[];
}

export function listChecks(
  defs: DqdDefinitions,
  schemas: { cdm: string; vocab: string },
  selection: CheckSelection = {},
): CheckInstance[] {
  const schemaOf = (kind: string | undefined) => (kind === "VOCAB" ? schemas.vocab : schemas.cdm);
  const tableSchema = new Map<string, string>();
  const table = defs.table
    .filter((r) => !EXCLUDED_TABLES.has(r.cdmTableName ?? ""))
    .map((r) => {
      const schema = schemaOf(r.schema);
      tableSchema.set(r.cdmTableName ?? "", schema);
      return { ...r, schema };
    });
  // DQD merges field rows with their table's schema, which orders them by table name (R's merge sorts).
  const field = defs.field
    .filter((r) => !EXCLUDED_TABLES.has(r.cdmTableName ?? "") && r.cdmFieldName !== "offset")
    .map(
      (r): DefinitionRow => ({
        ...r,
        cdmFieldName: r.cdmFieldName?.toUpperCase(),
        schema: tableSchema.get(r.cdmTableName ?? "") ?? schemas.cdm,
      }),
    )
    .sort((a, b) => compareText(a.cdmTableName, b.cdmTableName));
  const concept = defs.concept
    .filter((r) => !EXCLUDED_TABLES.has(r.cdmTableName ?? ""))
    .map((r): DefinitionRow => ({ ...r, cdmFieldName: r.cdmFieldName?.toUpperCase() }));
  const rowsOf: Record<CheckLevel, DefinitionRow[]> = { TABLE: table, FIELD: field, CONCEPT: concept };

  const levels = new Set(selection.levels ?? ["TABLE", "FIELD", "CONCEPT"]);
  const severities = new Set(selection.severities ?? ["fatal", "convention", "characterization"]);
  const names = selection.names ? new Set(selection.names) : undefined;
  const hasColumn = (name: string) =>
    [defs.columns.TABLE, defs.columns.FIELD, defs.columns.CONCEPT].some((columns) => dollar(columns, name));

  const checks: CheckInstance[] = [];
  for (const description of defs.descriptions) {
    if (!levels.has(description.checkLevel) || !severities.has(description.severity)) continue;
    if (!description.evaluationFilter || !description.sqlFile || !hasColumn(description.checkName)) continue;
    if (names && !names.has(description.checkName)) continue;
    const keep = compileFilter(description.evaluationFilter);
    for (const row of rowsOf[description.checkLevel].filter(keep)) checks.push(instance(description, row));
  }
  return checks;
}

function instance(description: CheckDescription, row: DefinitionRow): CheckInstance {
  const cdmTableName = row.cdmTableName ?? "";
  const cdmFieldName = description.checkLevel === "TABLE" ? undefined : row.cdmFieldName;
  const conceptId = description.checkLevel === "CONCEPT" ? row.conceptId : undefined;
  const unitConceptId = description.checkLevel === "CONCEPT" ? row.unitConceptId : undefined;
  const upper: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(row)) upper[k] = v?.toUpperCase();
  return {
    description,
    row,
    cdmTableName,
    cdmFieldName,
    conceptId,
    unitConceptId,
    checkId: checkIdOf(description.checkLevel, description.checkName, [
      cdmTableName,
      cdmFieldName,
      conceptId,
      unitConceptId,
    ]),
    text: renderSql(description.checkDescription, upper),
  };
}

/**
 * Whether R's `data.frame$name` finds a column: the exact name, or else the one column the name is a prefix
 * of. DQD includes a check when its name is a column of a threshold file this way, so `cdmTable` and
 * `cdmField` run through `cdmTableName` and `cdmFieldName`.
 */
function dollar(columns: ReadonlySet<string>, name: string): boolean {
  if (columns.has(name)) return true;
  return [...columns].filter((c) => c.startsWith(name)).length === 1;
}

/** DQD's getCheckId: the non-empty parts, spaces removed, joined by `_`, lower case. */
export function checkIdOf(level: string, name: string, parts: readonly (string | undefined)[]): string {
  return [level, name, ...parts]
    .map((p) => p?.replaceAll(" ", ""))
    .filter((p): p is string => !!p)
    .join("_")
    .toLowerCase();
}

function compareText(a: string | undefined, b: string | undefined): number {
  const x = a ?? "";
  const y = b ?? "";
  return x < y ? -1 : x > y ? 1 : 0;
}
