// Reads the official OMOP CDM DDL files (kept unchanged in crossmaps/omop/ddl-5.4/<dialect>/) into what the
// writers need: each table's columns in CDM order with type and NOT NULL, its primary key, its foreign keys,
// and the statements themselves with the schema placeholder filled in.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_DIR } from "../../crossmap/catalog.js";
import { AppError } from "../../errors.js";
import type { Dialect } from "../db/client.js";
import { quoteIdent } from "../db/client.js";

export type ColumnKind = "integer" | "bigint" | "numeric" | "text" | "date" | "timestamp";

export interface DdlColumn {
  name: string;
  /** The type as the DDL writes it, e.g. `varchar(50)`, `Integer`, `TIMESTAMP`. */
  type: string;
  kind: ColumnKind;
  /** Longest text (varchar(n)); undefined for other kinds and TEXT. */
  maxLength?: number;
  notNull: boolean;
}

export interface DdlTable {
  name: string;
  columns: DdlColumn[];
}

/** One ALTER TABLE ... ADD CONSTRAINT statement of the primary key or foreign key file. */
export interface DdlConstraint {
  table: string;
  name: string;
  kind: "primary" | "foreign";
  columns: string[];
  /** Foreign keys: the referenced table and column (lower case). */
  references?: { table: string; column: string };
  /** The statement as the file has it, placeholder in place. */
  sql: string;
}

export interface CdmDdl {
  dialect: Dialect;
  tables: Map<string, DdlTable>;
  primaryKeys: DdlConstraint[];
  foreignKeys: DdlConstraint[];
  /** The indices file's statements, one each (CREATE INDEX, CLUSTER). */
  indices: string[];
  /** The table file's CREATE TABLE statements, one each. */
  creates: { table: string; sql: string }[];
}

export const DDL_DIR = join(BUILTIN_DIR, "omop", "ddl-5.4");
const PLACEHOLDER = /@cdmDatabaseSchema/g;

const cache = new Map<Dialect, CdmDdl>();

/** The DDL of `dialect`, parsed once per process. */
export function loadDdl(dialect: Dialect): CdmDdl {
  let ddl = cache.get(dialect);
  if (!ddl) {
    const file = (part: string) => join(DDL_DIR, dialect, `OMOPCDM_${dialect}_5.4_${part}.sql`);
    const read = (part: string) => {
      try {
        return readFileSync(file(part), "utf8");
      } catch (err) {
        throw new AppError(500, "ddl_missing", `cannot read ${file(part)}: ${(err as Error).message}`);
      }
    };
    ddl = parseDdl(dialect, read("ddl"), read("primary_keys"), read("constraints"), read("indices"));
    cache.set(dialect, ddl);
  }
  return ddl;
}

/** Fills the schema placeholder: `@cdmDatabaseSchema.person` -> `"cdm".person`. */
export function inSchema(sql: string, schema: string): string {
  return sql.replace(PLACEHOLDER, quoteIdent(schema));
}

export function parseDdl(dialect: Dialect, ddl: string, pks: string, fks: string, indices: string): CdmDdl {
  const tables = new Map<string, DdlTable>();
  const creates: { table: string; sql: string }[] = [];
  const createRe = /CREATE TABLE @cdmDatabaseSchema\.(\w+)\s*\(([\s\S]*?)\);/g;
  for (const m of ddl.matchAll(createRe)) {
    const name = m[1]!.toLowerCase();
    const columns: DdlColumn[] = [];
    for (const line of m[2]!.split(",\n")) {
      const c = /^\s*"?(\w+)"?\s+(\w+(?:\(\s*\w+\s*\))?)\s+(NOT NULL|NULL)\s*$/i.exec(line.trim());
      if (!c) throw new AppError(500, "ddl_parse", `cannot read column "${line.trim()}" of table ${name}`);
      columns.push(column(c[1]!.toLowerCase(), c[2]!, c[3]!.toUpperCase() === "NOT NULL"));
    }
    tables.set(name, { name, columns });
    creates.push({ table: name, sql: `${m[0]}` });
  }
  const constraintRe =
    /ALTER TABLE @cdmDatabaseSchema\.(\w+)\s+ADD CONSTRAINT (\w+) (PRIMARY KEY|FOREIGN KEY) \(([^)]*)\)(?: REFERENCES @cdmDatabaseSchema\.(\w+) \((\w+)\))?;/g;
  const read = (text: string): DdlConstraint[] =>
    [...text.matchAll(constraintRe)].map((m) => {
      const c: DdlConstraint = {
        table: m[1]!.toLowerCase(),
        name: m[2]!,
        kind: m[3] === "PRIMARY KEY" ? "primary" : "foreign",
        columns: m[4]!.split(",").map((s) => s.trim().toLowerCase()),
        sql: m[0],
      };
      if (m[5]) c.references = { table: m[5].toLowerCase(), column: m[6]!.toLowerCase() };
      return c;
    });
  const statements = indices
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^--.*$/gm, "")
    .split(";")
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => `${s};`);
  return { dialect, tables, primaryKeys: read(pks), foreignKeys: read(fks), indices: statements, creates };
}

function column(name: string, type: string, notNull: boolean): DdlColumn {
  const t = type.toLowerCase();
  const varchar = /^varchar\((\d+)\)$/.exec(t);
  if (varchar) return { name, type, kind: "text", maxLength: Number(varchar[1]), notNull };
  if (t === "integer") return { name, type, kind: "integer", notNull };
  if (t === "bigint") return { name, type, kind: "bigint", notNull };
  if (t === "numeric" || t === "float" || t.startsWith("numeric("))
    return { name, type, kind: "numeric", notNull };
  if (t === "date") return { name, type, kind: "date", notNull };
  if (t === "timestamp" || t === "datetime") return { name, type, kind: "timestamp", notNull };
  if (t === "text" || t.startsWith("varchar")) return { name, type, kind: "text", notNull };
  throw new AppError(500, "ddl_parse", `unknown column type ${type} of ${name}`);
}
