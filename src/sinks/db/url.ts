// Parses the database URL forms of `--db` and the `db` commands into what a driver needs, without connecting.
import { resolve } from "node:path";
import { AppError } from "../../errors.js";

export type DatabaseAddress =
  | { kind: "postgresql"; connectionString: string; schema: string; display: string }
  | { kind: "pglite"; dataDir: string | undefined; schema: string; display: string }
  | { kind: "duckdb"; path: string; schema: string; display: string };

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

/**
 * `postgresql://...`/`postgres://...` (schema `public`), `*.duckdb` or `duckdb:PATH` (schema `main`;
 * `duckdb:memory` is in memory), `pglite:DIR` or `pglite:memory` (schema `public`); `?schema=NAME` on any.
 */
export function parseDatabaseUrl(url: string): DatabaseAddress {
  const text = url.trim();
  if (/^postgres(ql)?:\/\//i.test(text)) return parsePostgres(text);
  const { rest, schema } = splitSchema(text);
  if (/^pglite:/i.test(rest)) {
    const target = rest.slice("pglite:".length);
    if (target === "") throw badUrl(url, "pglite: needs a directory or `memory`");
    const dataDir = target === "memory" ? undefined : resolve(target);
    return { kind: "pglite", dataDir, schema: schema ?? "public", display: redact(text) };
  }
  if (/^duckdb:/i.test(rest) || /\.duckdb$/i.test(rest)) {
    const target = /^duckdb:/i.test(rest) ? rest.slice("duckdb:".length) : rest;
    if (target === "") throw badUrl(url, "duckdb: needs a file path or `memory`");
    const path = target === "memory" ? ":memory:" : resolve(target);
    return { kind: "duckdb", path, schema: schema ?? "main", display: text };
  }
  throw badUrl(
    url,
    "expected postgresql://user@host:port/db, a file ending in .duckdb, duckdb:PATH or pglite:DIR (each may end in ?schema=NAME)",
  );
}

function parsePostgres(text: string): DatabaseAddress {
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw badUrl(redact(text), "not a valid URL");
  }
  const schema = parsed.searchParams.get("schema") ?? "public";
  checkSchema(text, schema);
  // node-postgres would pass an unknown parameter on to the server as a run-time setting.
  parsed.searchParams.delete("schema");
  return { kind: "postgresql", connectionString: parsed.toString(), schema, display: redact(text) };
}

function splitSchema(text: string): { rest: string; schema: string | undefined } {
  const at = text.lastIndexOf("?");
  if (at < 0) return { rest: text, schema: undefined };
  const params = new URLSearchParams(text.slice(at + 1));
  const unknown = [...params.keys()].filter((k) => k !== "schema");
  if (unknown.length > 0) throw badUrl(text, `unknown parameter ${unknown[0]} (only ?schema=NAME)`);
  const schema = params.get("schema") ?? undefined;
  if (schema !== undefined) checkSchema(text, schema);
  return { rest: text.slice(0, at), schema };
}

function checkSchema(url: string, schema: string): void {
  if (!SCHEMA_NAME.test(schema)) {
    throw badUrl(
      redact(url),
      `schema ${JSON.stringify(schema)} is not a plain SQL name (letters, digits, _)`,
    );
  }
}

/** The URL with its password replaced by `***`. */
export function redact(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*):[^@/]*@/i, "$1:***@");
}

function badUrl(url: string, why: string): AppError {
  return new AppError(400, "db_url", `database ${redact(url)}: ${why}`);
}
