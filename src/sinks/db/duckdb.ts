// SqlClient over an embedded DuckDB file through @duckdb/node-api: bulk loads are DuckDB's own CSV reader
// over a temporary file, which is faster than appending values one call at a time from JavaScript.
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { DuckDBInstance } from "@duckdb/node-api";
import type { SqlClient, SqlValue } from "./client.js";
import { qualified, quoteIdent } from "./client.js";
import { databaseError } from "./errors.js";
import { transactional } from "./transaction.js";
import type { DatabaseAddress } from "./url.js";

/** A DuckDB value as the SqlClient contract has it (see client.ts). */
export function plain(value: unknown): SqlValue {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
      return value;
    case "bigint":
      return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  }
  const v = value as { toDouble?: () => number; toString(): string };
  // DECIMAL; dates and timestamps print as YYYY-MM-DD and YYYY-MM-DD HH:MM:SS.
  if (typeof v.toDouble === "function") return v.toDouble();
  return v.toString();
}

export async function openDuckdb(address: Extract<DatabaseAddress, { kind: "duckdb" }>): Promise<SqlClient> {
  const instance = await DuckDBInstance.create(address.path);
  const connection = await instance.connect();
  const fail = (err: unknown) => databaseError(address.display, err);
  // Unqualified names resolve to the CDM schema once it exists (DuckDB refuses a search path to a schema it
  // lacks, and db init creates it through this client), so the path is set before each statement until it holds.
  let searchPath = false;
  const usePath = async (): Promise<void> => {
    if (searchPath) return;
    searchPath = await connection.run(`SET search_path = '${address.schema}'`).then(
      () => true,
      () => false,
    );
  };
  const exec = async (sql: string): Promise<void> => {
    await usePath();
    try {
      await connection.run(sql);
    } catch (err) {
      throw fail(err);
    }
  };
  const self: SqlClient = {
    dialect: "duckdb",
    schema: address.schema,
    display: address.display,
    async query<T>(sql: string, params?: readonly unknown[]): Promise<T[]> {
      await usePath();
      try {
        const reader = await connection.runAndReadAll(sql, params as never);
        const rows = reader.getRowObjects();
        for (const row of rows) for (const key in row) row[key] = plain(row[key]) as never;
        return rows as T[];
      } catch (err) {
        throw fail(err);
      }
    },
    exec,
    transaction: transactional(exec),
    async copyIn(table, columns, chunks) {
      const dir = await mkdtemp(join(tmpdir(), "crossmap-duckdb-"));
      const file = join(dir, "rows.csv");
      try {
        await pipeline(Readable.from(chunks), createWriteStream(file));
        const list = columns.map(quoteIdent).join(", ");
        await exec(
          `COPY ${qualified(self, table)} (${list}) FROM '${file.replaceAll("'", "''")}' ` +
            "(FORMAT csv, HEADER false, DELIMITER ',', QUOTE '\"', ESCAPE '\"', ALLOW_QUOTED_NULLS false)",
        );
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    async close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
  return self;
}
