// The DQD v5.4 check definitions shipped in crossmaps/omop/dqd/: the check descriptions and the table-, field-
// and concept-level threshold files, read as DQD reads them (an empty cell is NA), and the SQL templates.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import Papa from "papaparse";

export const DQD_DIR = fileURLToPath(new URL("../../crossmaps/omop/dqd/", import.meta.url));

/** One row of a definition file; an empty cell is absent (DQD's NA). */
export type DefinitionRow = Readonly<Record<string, string | undefined>>;

export type CheckLevel = "TABLE" | "FIELD" | "CONCEPT";

export interface CheckDescription {
  checkLevel: CheckLevel;
  checkName: string;
  checkDescription: string;
  kahnContext: string;
  kahnCategory: string;
  kahnSubcategory: string | undefined;
  sqlFile: string;
  evaluationFilter: string;
  severity: string;
}

export interface DqdDefinitions {
  descriptions: CheckDescription[];
  table: DefinitionRow[];
  field: DefinitionRow[];
  concept: DefinitionRow[];
  /** The names of the columns of each level's file, to tell which checks a level has thresholds for. */
  columns: Record<CheckLevel, ReadonlySet<string>>;
  sql(file: string): string;
}

let cached: DqdDefinitions | undefined;

export function loadDefinitions(): DqdDefinitions {
  cached ??= readDefinitions();
  return cached;
}

function readDefinitions(): DqdDefinitions {
  const read = (name: string) => readCsv(`${DQD_DIR}csv/OMOP_CDMv5.4_${name}.csv`);
  const descriptions = read("Check_Descriptions").rows.map(toDescription);
  const table = read("Table_Level");
  const field = read("Field_Level");
  const concept = read("Concept_Level");
  const sqlCache = new Map<string, string>();
  return {
    descriptions,
    table: table.rows,
    field: field.rows,
    concept: concept.rows,
    columns: { TABLE: table.columns, FIELD: field.columns, CONCEPT: concept.columns },
    sql(file) {
      let text = sqlCache.get(file);
      if (text === undefined) {
        text = readFileSync(`${DQD_DIR}sql/${file}`, "utf8");
        sqlCache.set(file, text);
      }
      return text;
    },
  };
}

function readCsv(path: string): { rows: DefinitionRow[]; columns: ReadonlySet<string> } {
  const text = readFileSync(path, "utf8").replace(/^\uFEFF/, "");
  const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true });
  if (parsed.errors.length > 0) {
    const e = parsed.errors[0];
    throw new Error(`${path}: row ${e?.row}: ${e?.message}`);
  }
  const rows = parsed.data.map((row) => {
    const out: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(row)) {
      const value = v.trim();
      if (value !== "" && value !== "NA") out[k] = value;
    }
    return out;
  });
  return { rows, columns: new Set(parsed.meta.fields ?? []) };
}

function toDescription(row: DefinitionRow): CheckDescription {
  const need = (key: string) => row[key] ?? "";
  return {
    checkLevel: need("checkLevel") as CheckLevel,
    checkName: need("checkName"),
    checkDescription: need("checkDescription"),
    kahnContext: need("kahnContext"),
    kahnCategory: need("kahnCategory"),
    kahnSubcategory: row.kahnSubcategory,
    sqlFile: need("sqlFile"),
    evaluationFilter: need("evaluationFilter"),
    severity: need("severity"),
  };
}
