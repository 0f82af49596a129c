// SqlClient over a PostgreSQL server with node-postgres: one connection, bulk loads by COPY ... FROM STDIN.
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import pg from "pg";
import copyStreams from "pg-copy-streams";
import type { SqlClient } from "./client.js";
import { qualified, quoteIdent } from "./client.js";
import { databaseError } from "./errors.js";
import { transactional } from "./transaction.js";
import type { DatabaseAddress } from "./url.js";

const INT8 = 20;
const NUMERIC = 1700;
const DATE = 1082;
const TIMESTAMP = 1114;
const TIMESTAMPTZ = 1184;

/** bigint and count(*) as numbers while exact, else their digits. */
export function int8(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

const raw = (text: string): string => text;
const parsers = new Map<number, (text: string) => unknown>([
  [INT8, int8],
  [NUMERIC, Number],
  [DATE, raw],
  [TIMESTAMP, raw],
  [TIMESTAMPTZ, raw],
]);

const types = {
  getTypeParser: ((oid: number, format?: string) =>
    parsers.get(oid) ?? pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
};

export async function openPostgres(
  address: Extract<DatabaseAddress, { kind: "postgresql" }>,
): Promise<SqlClient> {
  const client = new pg.Client({ connectionString: address.connectionString, types });
  // A server that goes away between statements is an 'error' event; without a listener Node would exit.
  let lost: Error | undefined;
  client.on("error", (err) => {
    lost = err;
  });
  await client.connect();
  const fail = (err: unknown) => databaseError(address.display, lost ?? err);
  const exec = async (sql: string): Promise<void> => {
    try {
      await client.query(sql);
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
        return (await client.query(sql, params as unknown[] | undefined)).rows as T[];
      } catch (err) {
        throw fail(err);
      }
    },
    exec,
    transaction: transactional(exec),
    async copyIn(table, columns, chunks) {
      const list = columns.map(quoteIdent).join(", ");
      const sql = `COPY ${qualified(self, table)} (${list}) FROM STDIN WITH (FORMAT csv)`;
      try {
        await pipeline(Readable.from(chunks), client.query(copyStreams.from(sql)));
      } catch (err) {
        throw fail(err);
      }
    },
    async close() {
      await client.end().catch(() => {});
    },
  };
  return self;
}
