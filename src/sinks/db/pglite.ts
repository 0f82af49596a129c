// SqlClient over PGlite (PostgreSQL compiled to WebAssembly, in this process): the tests' PostgreSQL with no
// server. A directory keeps the database between processes; `memory` lives as long as the client.
import { PGlite } from "@electric-sql/pglite";
import type { SqlClient } from "./client.js";
import { qualified, quoteIdent } from "./client.js";
import { databaseError } from "./errors.js";
import { int8 } from "./postgres.js";
import { transactional } from "./transaction.js";
import type { DatabaseAddress } from "./url.js";

const raw = (text: string): string => text;

export async function openPglite(address: Extract<DatabaseAddress, { kind: "pglite" }>): Promise<SqlClient> {
  const db = await PGlite.create(address.dataDir, {
    parsers: { 20: int8, 1700: Number, 1082: raw, 1114: raw, 1184: raw },
  });
  const fail = (err: unknown) => databaseError(address.display, err);
  const exec = async (sql: string): Promise<void> => {
    try {
      await db.exec(sql);
    } catch (err) {
      throw fail(err);
    }
  };
  await exec(`SET search_path TO ${quoteIdent(address.schema)}`);
  const self: SqlClient = {
    dialect: "postgresql",
    schema: address.schema,
    display: address.display,
    async query<T>(sql: string, params?: readonly unknown[]): Promise<T[]> {
      try {
        return (await db.query<T>(sql, params as unknown[] | undefined)).rows;
      } catch (err) {
        throw fail(err);
      }
    },
    exec,
    transaction: transactional(exec),
    async copyIn(table, columns, chunks) {
      // PGlite has no COPY FROM STDIN of its own: it reads COPY's input from a Blob at /dev/blob.
      const parts: string[] = [];
      for await (const chunk of chunks) parts.push(chunk);
      const list = columns.map(quoteIdent).join(", ");
      const sql = `COPY ${qualified(self, table)} (${list}) FROM '/dev/blob' WITH (FORMAT csv)`;
      try {
        await db.query(sql, [], { blob: new Blob(parts) });
      } catch (err) {
        throw fail(err);
      }
    },
    async close() {
      await db.close().catch(() => {});
    },
  };
  return self;
}
