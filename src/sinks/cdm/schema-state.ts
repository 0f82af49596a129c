// What a CDM database holds before a load: whether its schema has the CDM tables, which of the official
// foreign keys are in force, and the order in which tables are written (parents before children).
import { AppError } from "../../errors.js";
import type { SqlClient } from "../db/client.js";
import { qualified, quoteIdent } from "../db/client.js";
import type { CdmModel } from "./model.js";

/** The CDM tables of the client's schema that exist (lower case). */
export async function existingTables(client: SqlClient): Promise<Set<string>> {
  const rows = await client.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = $1",
    [client.schema],
  );
  return new Set(rows.map((r) => r.table_name.toLowerCase()));
}

/** Fails with one line unless the schema holds the CDM tables (`db init` makes them). */
export async function checkCdmSchema(client: SqlClient): Promise<void> {
  const tables = await existingTables(client);
  if (!tables.has("person")) {
    throw new AppError(
      400,
      "db_schema_missing",
      `${client.display}: schema ${client.schema} has no CDM tables (no table person); create them with \`crossmap db init\``,
    );
  }
}

/** The official foreign keys in force, as [table, constraint name]. */
export async function foreignKeysInForce(client: SqlClient, model: CdmModel): Promise<[string, string][]> {
  const official = new Set(model.ddl.foreignKeys.map((f) => f.name.toLowerCase()));
  const rows = await client.query<{ table_name: string; constraint_name: string }>(
    "SELECT table_name, constraint_name FROM information_schema.table_constraints " +
      "WHERE constraint_schema = $1 AND constraint_type = 'FOREIGN KEY'",
    [client.schema],
  );
  return rows
    .filter((r) => official.has(r.constraint_name.toLowerCase()))
    .map((r) => [r.table_name, r.constraint_name] as [string, string]);
}

/**
 * Drops the official foreign keys for a load: they are checked row by row as each COPY runs, and a
 * Bundle's Organization may come after the Encounter that names it. `db finish` checks and applies them
 * again. Returns how many were dropped. (DuckDB cannot add them after the fact, so it never has them.)
 */
export async function dropForeignKeys(client: SqlClient, model: CdmModel): Promise<number> {
  if (client.dialect !== "postgresql") return 0;
  const keys = await foreignKeysInForce(client, model);
  if (keys.length === 0) return 0;
  await client.transaction(async () => {
    for (const [table, name] of keys) {
      await client.exec(`ALTER TABLE ${qualified(client, table)} DROP CONSTRAINT ${quoteIdent(name)}`);
    }
  });
  return keys.length;
}

/** The model's tables with every table after the tables its foreign keys point to. */
export function tableOrder(model: CdmModel): string[] {
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const c of model.tables.get(name)?.columns ?? []) {
      if (c.ref && c.ref !== name) visit(c.ref);
    }
    order.push(name);
  };
  for (const name of model.tables.keys()) visit(name);
  return order;
}
