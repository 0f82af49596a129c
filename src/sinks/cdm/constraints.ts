// Applies the official primary keys, foreign keys and indices to a loaded CDM database, each one checked
// first so that a violation is named (table, constraint, how many rows, the first offending ids) instead
// of surfacing as a database error. DuckDB cannot add foreign keys to existing tables: there they are
// checked the same way and reported as verified, not applied.
import type { SqlClient } from "../db/client.js";
import { qualified, quoteIdent } from "../db/client.js";
import { type DdlConstraint, inSchema } from "./ddl.js";
import type { CdmModel } from "./model.js";
import { existingTables, foreignKeysInForce } from "./schema-state.js";

export interface ConstraintReport {
  primaryKeys: { applied: number; inForce: number };
  foreignKeys: { applied: number; inForce: number; verified: number };
  indices: { created: number; existing: number };
  /** One line per constraint not applied. */
  violations: string[];
}

const FIRST = 5;

export async function applyConstraints(client: SqlClient, model: CdmModel): Promise<ConstraintReport> {
  const report: ConstraintReport = {
    primaryKeys: { applied: 0, inForce: 0 },
    foreignKeys: { applied: 0, inForce: 0, verified: 0 },
    indices: { created: 0, existing: 0 },
    violations: [],
  };
  const tables = await existingTables(client);
  const withPk = await tablesWithPrimaryKey(client);
  const failedPk = new Set<string>();
  for (const pk of model.ddl.primaryKeys) {
    if (!tables.has(pk.table)) continue;
    if (withPk.has(pk.table)) {
      report.primaryKeys.inForce++;
      continue;
    }
    const problem = await duplicateKeys(client, pk);
    if (problem) {
      report.violations.push(problem);
      failedPk.add(pk.table);
      continue;
    }
    await client.exec(inSchema(pk.sql, client.schema));
    report.primaryKeys.applied++;
  }
  const inForce = new Set((await foreignKeysInForce(client, model)).map(([, name]) => name.toLowerCase()));
  for (const fk of model.ddl.foreignKeys) {
    const target = fk.references!.table;
    if (!tables.has(fk.table) || !tables.has(target)) continue;
    if (inForce.has(fk.name.toLowerCase())) {
      report.foreignKeys.inForce++;
      continue;
    }
    const problem = await danglingKeys(client, fk);
    if (problem) {
      report.violations.push(problem);
      continue;
    }
    if (client.dialect === "duckdb") {
      report.foreignKeys.verified++;
      continue;
    }
    if (failedPk.has(target)) {
      report.violations.push(
        `${fk.table}: ${fk.name}: foreign key (${fk.columns.join(", ")}) -> ${target} not applied: the primary key of ${target} is not in force`,
      );
      continue;
    }
    await client.exec(inSchema(fk.sql, client.schema));
    report.foreignKeys.applied++;
  }
  await createIndices(client, model, report);
  return report;
}

async function tablesWithPrimaryKey(client: SqlClient): Promise<Set<string>> {
  const rows = await client.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.table_constraints WHERE constraint_schema = $1 AND constraint_type = 'PRIMARY KEY'",
    [client.schema],
  );
  return new Set(rows.map((r) => r.table_name.toLowerCase()));
}

async function duplicateKeys(client: SqlClient, pk: DdlConstraint): Promise<string | undefined> {
  const cols = pk.columns.map(quoteIdent).join(", ");
  const table = qualified(client, pk.table);
  const rows = await client.query<Record<string, string | number>>(
    `SELECT ${cols}, count(*) AS n FROM ${table} GROUP BY ${cols} HAVING count(*) > 1 ORDER BY ${cols} LIMIT ${FIRST}`,
  );
  if (rows.length === 0) return undefined;
  const [total] = await client.query<{ n: number }>(
    `SELECT count(*) AS n FROM (SELECT ${cols} FROM ${table} GROUP BY ${cols} HAVING count(*) > 1) d`,
  );
  const first = rows.map((r) => pk.columns.map((c) => r[c]).join("/")).join(", ");
  return `${pk.table}: ${pk.name}: primary key (${pk.columns.join(", ")}) not applied: ${total?.n ?? rows.length} ids appear more than once, first ${first}`;
}

async function danglingKeys(client: SqlClient, fk: DdlConstraint): Promise<string | undefined> {
  const column = quoteIdent(fk.columns[0]!);
  const ref = fk.references!;
  const child = qualified(client, fk.table);
  const parent = qualified(client, ref.table);
  const missing = `FROM ${child} c WHERE c.${column} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${parent} p WHERE p.${quoteIdent(ref.column)} = c.${column})`;
  const rows = await client.query<{ id: string | number }>(
    `SELECT DISTINCT c.${column} AS id ${missing} ORDER BY 1 LIMIT ${FIRST}`,
  );
  if (rows.length === 0) return undefined;
  const [total] = await client.query<{ n: number }>(`SELECT count(*) AS n ${missing}`);
  const first = rows.map((r) => r.id).join(", ");
  return (
    `${fk.table}: ${fk.name}: foreign key (${fk.columns[0]}) -> ${ref.table} not ${client.dialect === "duckdb" ? "verified" : "applied"}: ` +
    `${total?.n ?? rows.length} rows name a ${ref.table} that is not there, first ${fk.columns[0]} ${first}`
  );
}

async function createIndices(client: SqlClient, model: CdmModel, report: ConstraintReport): Promise<void> {
  const existing = new Set(
    (client.dialect === "postgresql"
      ? await client.query<{ name: string }>(
          "SELECT indexname AS name FROM pg_indexes WHERE schemaname = $1",
          [client.schema],
        )
      : await client.query<{ name: string }>(
          "SELECT index_name AS name FROM duckdb_indexes() WHERE schema_name = $1",
          [client.schema],
        )
    ).map((r) => r.name.toLowerCase()),
  );
  let created: string | undefined;
  for (const statement of model.ddl.indices) {
    const index = /^CREATE INDEX (\w+)/i.exec(statement)?.[1]?.toLowerCase();
    const cluster = /^CLUSTER .* USING (\w+)/i.exec(statement)?.[1]?.toLowerCase();
    if (index !== undefined) {
      if (existing.has(index)) {
        report.indices.existing++;
        created = undefined;
        continue;
      }
      await client.exec(inSchema(statement, client.schema));
      report.indices.created++;
      created = index;
    } else if (cluster !== undefined) {
      // Rewrites the table in index order: only right after the index is made, not at every finish.
      if (cluster === created) await client.exec(inSchema(statement, client.schema));
    } else {
      await client.exec(inSchema(statement, client.schema));
    }
  }
}
