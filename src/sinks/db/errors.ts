// The one error a database statement raises through SqlClient: an AppError that keeps the database's own
// code (SQLSTATE for PostgreSQL), constraint and table, so callers can tell a missing table from a key violation.
import { AppError } from "../../errors.js";
import { reason } from "./client.js";

export class DatabaseError extends AppError {
  /** PostgreSQL's SQLSTATE (e.g. 42P01 undefined table, 23505 unique violation); DuckDB's error type. */
  readonly sqlState: string | undefined;
  readonly constraint: string | undefined;
  readonly table: string | undefined;
  readonly detail: string | undefined;

  constructor(message: string, from: unknown) {
    const e = (from ?? {}) as { code?: unknown; constraint?: unknown; table?: unknown; detail?: unknown };
    super(400, "db_error", message);
    this.name = "DatabaseError";
    this.sqlState = typeof e.code === "string" ? e.code : undefined;
    this.constraint = typeof e.constraint === "string" ? e.constraint : undefined;
    this.table = typeof e.table === "string" ? e.table : undefined;
    this.detail = typeof e.detail === "string" ? e.detail : undefined;
  }
}

/** Wraps a driver's failure in a DatabaseError whose message is `<database>: <first line of the reason>`. */
export function databaseError(display: string, err: unknown): DatabaseError {
  if (err instanceof DatabaseError) return err;
  return new DatabaseError(`${display}: ${reason(err)}`, err);
}

/** The first `max` characters of a statement, for messages. */
export function excerpt(sql: string, max = 80): string {
  const flat = sql.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat;
}
