// Where the id registry survives between runs: a table of its own beside the CDM tables
// (`crossmap_id_map`), or, for CSV output, an LMDB directory (`--id-map DIR`).
import type { SqlClient } from "../db/client.js";
import { qualified } from "../db/client.js";
import { NO_ROW } from "./id-table.js";
import type { IdRegistry, RegistryChanges, RegistryEntry } from "./registry.js";
import { csvText } from "./values.js";

export const REGISTRY_TABLE = "crossmap_id_map";
const PAGE = 50_000;
const UPDATE_CHUNK = 500;

/**
 * CREATE TABLE of the registry (source_key: the crossmap's id, a 64-bit hash or a source id). Keys are
 * unique by construction (the registry assigns each once); PostgreSQL gets a primary key for the row-hash
 * updates to find their rows, DuckDB none: its index would cost a load more than its scans save (measured:
 * a 20,000-row COPY into the keyed table took as long as the CDM rows' own).
 */
export function registryDdl(client: Pick<SqlClient, "schema" | "dialect">): string {
  const key = client.dialect === "postgresql" ? ", PRIMARY KEY (namespace, source_key)" : "";
  return (
    `CREATE TABLE IF NOT EXISTS ${qualified(client, REGISTRY_TABLE)} (namespace varchar(64) NOT NULL, ` +
    `source_key text NOT NULL, id integer NOT NULL, row_hash integer NULL${key})`
  );
}

/** Reads every entry of the database's registry into `registry`, a page at a time. */
export async function loadDbRegistry(client: SqlClient, registry: IdRegistry): Promise<number> {
  const table = qualified(client, REGISTRY_TABLE);
  let after: [string, string] | undefined;
  let n = 0;
  for (;;) {
    const rows = await client.query<{
      namespace: string;
      source_key: string;
      id: number;
      row_hash: number | null;
    }>(
      `SELECT namespace, source_key, id, row_hash FROM ${table}` +
        (after ? " WHERE namespace > $1 OR (namespace = $1 AND source_key > $2)" : "") +
        ` ORDER BY namespace, source_key LIMIT ${PAGE}`,
      after ?? [],
    );
    for (const r of rows) {
      registry.load({ namespace: r.namespace, key: r.source_key, id: r.id, row: r.row_hash ?? NO_ROW });
    }
    n += rows.length;
    if (rows.length < PAGE) return n;
    const last = rows[rows.length - 1]!;
    after = [last.namespace, last.source_key];
  }
}

/** Writes a batch's registry changes (inside the batch's transaction). */
export async function saveDbRegistry(client: SqlClient, changes: RegistryChanges): Promise<void> {
  if (changes.added.length > 0) {
    await client.copyIn(
      REGISTRY_TABLE,
      ["namespace", "source_key", "id", "row_hash"],
      csvChunks(changes.added),
    );
  }
  const table = qualified(client, REGISTRY_TABLE);
  for (let i = 0; i < changes.rowsSet.length; i += UPDATE_CHUNK) {
    const chunk = changes.rowsSet.slice(i, i + UPDATE_CHUNK);
    const params: unknown[] = [];
    const values = chunk.map((e) => {
      params.push(e.namespace, e.key, e.row);
      const at = params.length;
      return `($${at - 2}, $${at - 1}, CAST($${at} AS integer))`;
    });
    await client.query(
      `UPDATE ${table} SET row_hash = v.h FROM (VALUES ${values.join(", ")}) AS v(ns, k, h) ` +
        `WHERE ${table}.namespace = v.ns AND ${table}.source_key = v.k`,
      params,
    );
  }
}

function* csvChunks(entries: readonly RegistryEntry[]): Generator<string> {
  let chunk = "";
  for (const e of entries) {
    chunk += `${csvText(e.namespace)},${csvText(e.key)},${e.id},${e.row === NO_ROW ? "" : e.row}\n`;
    if (chunk.length >= 1 << 16) {
      yield chunk;
      chunk = "";
    }
  }
  if (chunk.length > 0) yield chunk;
}

/**
 * An LMDB directory holding the ids of CSV runs: key `namespace NUL source key`, value the id. Only ids are
 * kept: each CSV run writes every row of its input (a complete extract), so which rows an earlier run
 * wrote does not matter, only that the same record gets the same id.
 */
export interface FileRegistryStore {
  load(registry: IdRegistry): Promise<number>;
  /** Stores the ids a batch added (written in the background; close() waits for them). */
  save(changes: RegistryChanges): void;
  close(): Promise<void>;
}

export async function openFileRegistry(dir: string): Promise<FileRegistryStore> {
  const { open } = await import("lmdb");
  const db = open<number, string>({ path: dir, compression: false });
  let last: Promise<boolean> | undefined;
  return {
    async load(registry) {
      let n = 0;
      for (const { key, value } of db.getRange()) {
        const at = key.indexOf("\u0000");
        registry.load({ namespace: key.slice(0, at), key: key.slice(at + 1), id: value, row: NO_ROW });
        n++;
      }
      return n;
    },
    save(changes) {
      for (const e of changes.added) last = db.put(`${e.namespace}\u0000${e.key}`, e.id);
    },
    async close() {
      await last;
      await db.close();
    },
  };
}
