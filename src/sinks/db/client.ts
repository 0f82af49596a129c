// The database connection layer every `--db` command shares: one small SqlClient over PostgreSQL (node-postgres),
// PGlite (PostgreSQL in WebAssembly, for tests) and DuckDB, opened from the URL forms `crossmap` accepts.
import { existsSync } from "node:fs";
import { AppError } from "../../errors.js";
import { type DatabaseAddress, parseDatabaseUrl } from "./url.js";

export type Dialect = "postgresql" | "duckdb";

/** One value of a result row, the same type whichever database returned it. */
export type SqlValue = string | number | boolean | null;

/**
 * A connection to one database, scoped to one schema (the CDM tables' schema).
 *
 * Result values are normalised so that callers need no per-dialect code: integers (including bigint and
 * count(*)) are numbers, or decimal strings beyond 2^53; numeric/decimal/float are numbers; dates are
 * "YYYY-MM-DD" and timestamps "YYYY-MM-DD HH:MM:SS[.ffffff]" strings; booleans are booleans; NULL is null.
 * Parameters are positional `$1`, `$2`, ... in both dialects.
 */
export interface SqlClient {
  readonly dialect: Dialect;
  /** The schema of the CDM tables: `public` (PostgreSQL) or `main` (DuckDB) unless the URL's `?schema=` says. */
  readonly schema: string;
  /** The URL without its password, for messages. */
  readonly display: string;
  /** Runs one statement and returns its rows. */
  query<T = Record<string, SqlValue>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs a script of several statements (no parameters, no result). */
  exec(sql: string): Promise<void>;
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws (and rethrown). */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Bulk-loads rows into `schema.table` (PostgreSQL `COPY ... FROM STDIN`, DuckDB `COPY ... FROM` a temporary
   * file). The chunks are CSV as RFC 4180 with no header row: comma, `"` quotes, an empty unquoted field is
   * NULL and `""` the empty string. Joins the surrounding transaction if there is one.
   */
  copyIn(
    table: string,
    columns: readonly string[],
    chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>,
  ): Promise<void>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /**
   * Whether a DuckDB file or PGlite directory that is not there is made (default true: `db init`, tests).
   * False for the commands that load, finish or check a CDM database: they refuse it in one line instead of
   * leaving an empty database behind.
   */
  create?: boolean;
}

/**
 * Opens a database from a URL: `postgresql://user:pass@host:port/db` (or `postgres://`), a path ending in
 * `.duckdb`, `duckdb:PATH` (`duckdb:memory` for an in-memory one), `pglite:DIR` or `pglite:memory`; each
 * may end in `?schema=NAME`. A failure to connect, or with `create: false` a file or directory that is not
 * there, is an AppError (status 400: the CLI exits 2) naming the database without its password.
 */
export async function openDatabase(url: string, options: OpenOptions = {}): Promise<SqlClient> {
  const address = parseDatabaseUrl(url);
  if (options.create === false) refuseMissing(address);
  try {
    return await open(address);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError(400, "db_connection", `cannot open ${address.display}: ${reason(err)}`);
  }
}

/** Throws when the address is a DuckDB file or PGlite directory that does not exist (opening would make it). */
function refuseMissing(address: DatabaseAddress): void {
  const path =
    address.kind === "duckdb" ? address.path : address.kind === "pglite" ? address.dataDir : undefined;
  if (path === undefined || path === ":memory:" || existsSync(path)) return;
  const what = address.kind === "duckdb" ? "file" : "directory";
  throw new AppError(
    400,
    "db_missing",
    `${address.display}: no such ${what}, so no CDM tables; create them with \`crossmap db init\``,
  );
}

async function open(address: DatabaseAddress): Promise<SqlClient> {
  switch (address.kind) {
    case "postgresql":
      return (await import("./postgres.js")).openPostgres(address);
    case "pglite":
      return (await import("./pglite.js")).openPglite(address);
    case "duckdb":
      return (await import("./duckdb.js")).openDuckdb(address);
  }
}

/** A driver error's message, one line (node-postgres' AggregateError for refused connections has none). */
export function reason(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) return reason(err.errors[0]);
  const e = err as { message?: string; code?: string };
  const text = e?.message || e?.code || String(err);
  const lines = text.split("\n");
  // DuckDB's CSV reader says what went wrong on a later line of a long report.
  const detail = lines.find((l) => l.startsWith("Error when converting column"));
  return detail ? `${lines[0]}: ${detail}` : (lines[0] ?? text);
}

/** `"name"`: an identifier quoted for both dialects. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** `"schema"."table"`. */
export function qualified(client: Pick<SqlClient, "schema">, table: string): string {
  return `${quoteIdent(client.schema)}.${quoteIdent(table)}`;
}
