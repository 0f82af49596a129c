// Test harness: the official CDM v5.4 tables (the DDL in crossmaps/omop/ddl-5.4, no keys) in a database,
// and rows inserted as SQL literals, for tests that need a CDM with exactly the rows they describe.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { SqlClient } from "../../src/sinks/db/client.js";

const DDL_DIR = fileURLToPath(new URL("../../crossmaps/omop/ddl-5.4/", import.meta.url));

export async function createCdmTables(client: SqlClient): Promise<void> {
  const d = client.dialect;
  const ddl = readFileSync(`${DDL_DIR}${d}/OMOPCDM_${d}_5.4_ddl.sql`, "utf8");
  if (client.schema !== "public" && client.schema !== "main") {
    await client.exec(`CREATE SCHEMA IF NOT EXISTS ${client.schema}`);
  }
  await client.exec(ddl.replaceAll("@cdmDatabaseSchema", client.schema));
}

/** Inserts rows given as column -> value (null, number or string literal). */
export async function insertRows(
  client: SqlClient,
  table: string,
  rows: readonly Record<string, string | number | null>[],
): Promise<void> {
  for (const row of rows) {
    const columns = Object.keys(row);
    const values = columns.map((c) => {
      const v = row[c];
      return v === null || v === undefined
        ? "NULL"
        : typeof v === "number"
          ? String(v)
          : `'${v.replaceAll("'", "''")}'`;
    });
    await client.exec(
      `INSERT INTO ${client.schema}.${table} (${columns.join(", ")}) VALUES (${values.join(", ")})`,
    );
  }
}
