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

/**
 * Instances open in this process, by data directory ("" for memory): PGlite cannot open one directory twice,
 * and starting it (WebAssembly, and initdb for a new one) takes seconds, so clients of one database share
 * an instance, which closes with its last client. `pglite:memory` opened again while a client holds it is
 * the same database (tests run several commands on one).
 */
const open = new Map<string, { db: Promise<PGlite>; clients: number }>();

async function acquire(dataDir: string | undefined): Promise<{ db: PGlite; release: () => Promise<void> }> {
  const key = dataDir ?? "";
  let entry = open.get(key);
  if (!entry) {
    const db = PGlite.create(dataDir, {
      parsers: { 20: int8, 1700: Number, 1082: raw, 1114: raw, 1184: raw },
    });
    entry = { db, clients: 0 };
    open.set(key, entry);
    db.catch(() => open.delete(key));
  }
  entry.clients++;
  const shared = entry;
  const db = await shared.db;
  let released = false;
  return {
    db,
    release: async () => {
      if (released) return;
      released = true;
      if (--shared.clients === 0) {
        open.delete(key);
        await db.close().catch(() => {});
      }
    },
  };
}

export async function openPglite(address: Extract<DatabaseAddress, { kind: "pglite" }>): Promise<SqlClient> {
  const { db, release } = await acquire(address.dataDir);
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
      const parts: (string | Uint8Array)[] = [];
      for await (const chunk of chunks) parts.push(chunk);
      const list = columns.map(quoteIdent).join(", ");
      const sql = `COPY ${qualified(self, table)} (${list}) FROM '/dev/blob' WITH (FORMAT csv)`;
      try {
        await db.query(sql, [], {
          blob: new Blob(parts as unknown as ConstructorParameters<typeof Blob>[0]),
        });
      } catch (err) {
        throw fail(err);
      }
    },
    async close() {
      await release();
    },
  };
  return self;
}
