// Where the id registry survives between runs: a table of its own beside the CDM tables
// (`crossmap_id_map`), or, for CSV output, an LMDB directory (`--id-map DIR`).

import { AppError } from "../../errors.js";
import type { SqlClient } from "../db/client.js";
import { qualified } from "../db/client.js";
import { DatabaseError } from "../db/errors.js";
import { NO_ROW } from "./id-table.js";
import type { IdRegistry, RegistryBlock, RegistryChanges } from "./registry.js";
import { csvText } from "./values.js";

export const REGISTRY_TABLE = "crossmap_id_map";
/** Key characters per stored row: a batch's changes of one table in a few large rows, not one row each. */
const BLOCK_CHARS = 256 * 1024;

/**
 * CREATE TABLE of the registry. One row holds many entries of one namespace (a batch's new ids of one CDM
 * table): `source_keys` a JSON array of the crossmap's ids (64-bit hashes or source ids), `ids` and
 * `row_hashes` the integers, space-separated, at the same positions (row hash 0: only referenced so far).
 * A key appears again in a later row when its row is written after it was first referenced; the entry
 * with a row hash wins. Measured against one row per entry: a batch's registry rows cost PostgreSQL as
 * much as the CDM rows themselves without a key, and five times as much with the (namespace, key) primary
 * key the row-hash updates needed; as blocks they cost next to nothing, and nothing is updated in place.
 */
export function registryDdl(client: Pick<SqlClient, "schema" | "dialect">): string {
  return (
    `CREATE TABLE IF NOT EXISTS ${qualified(client, REGISTRY_TABLE)} (namespace varchar(64) NOT NULL, ` +
    "source_keys text NOT NULL, ids text NOT NULL, row_hashes text NOT NULL)"
  );
}

/** Creates the registry table, or says in one line that an older crossmap's form of it is in the way. */
export async function ensureRegistry(client: SqlClient): Promise<void> {
  await client.exec(registryDdl(client));
  if (client.dialect === "postgresql") await preferLz4(client);
  const columns = await client.query<{ column_name: string }>(
    "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2",
    [client.schema, REGISTRY_TABLE],
  );
  if (!columns.some((c) => c.column_name === "source_keys")) {
    throw new AppError(
      400,
      "registry_format",
      `${client.display}: ${REGISTRY_TABLE} has the one-row-per-id form of an earlier crossmap version; ` +
        "load into a fresh database (crossmap db init)",
    );
  }
}

/**
 * PostgreSQL compresses a registry row's large texts when it stores them (TOAST), with pglz unless told
 * otherwise: measured on a 1M-row load into PostgreSQL 15, that was a third of the server's CPU for the
 * whole load (5.2-6.6 s of 15-20; lz4 3.7-3.9 s, no compression 3.3-4.0 s), for a registry of 27 MB
 * (lz4 34 MB, none 53 MB). So lz4 where the server has it (PostgreSQL 14 and later, built with lz4, as
 * Debian's and the official images are); elsewhere (PGlite, older servers) the default stays. Values
 * stored before keep their compression.
 */
async function preferLz4(client: SqlClient): Promise<void> {
  const table = qualified(client, REGISTRY_TABLE);
  let methods: { c: string }[];
  try {
    methods = await client.query<{ c: string }>(
      "SELECT attcompression::text AS c FROM pg_attribute WHERE attrelid = $1::regclass " +
        "AND attname IN ('source_keys', 'ids', 'row_hashes')",
      [table],
    );
  } catch (err) {
    // 42703: no attcompression before PostgreSQL 14, so no choice of method either.
    if (err instanceof DatabaseError && err.sqlState === "42703") return;
    throw err;
  }
  // Set already (a later run into the same database): no ALTER, whose lock would wait for other loads.
  if (methods.length === 3 && methods.every((m) => m.c === "l")) return;
  try {
    await client.exec(
      `ALTER TABLE ${table} ALTER COLUMN source_keys SET COMPRESSION lz4, ` +
        "ALTER COLUMN ids SET COMPRESSION lz4, ALTER COLUMN row_hashes SET COMPRESSION lz4",
    );
  } catch (err) {
    // 0A000: not built with lz4; 42601: no COMPRESSION clause before PostgreSQL 14.
    const state = err instanceof DatabaseError ? err.sqlState : undefined;
    if (state !== "0A000" && state !== "42601") throw err;
  }
}

/** Reads every entry of the database's registry into `registry`. */
export async function loadDbRegistry(client: SqlClient, registry: IdRegistry): Promise<number> {
  const rows = await client.query<{
    namespace: string;
    source_keys: string;
    ids: string;
    row_hashes: string;
  }>(`SELECT namespace, source_keys, ids, row_hashes FROM ${qualified(client, REGISTRY_TABLE)}`);
  let n = 0;
  for (const r of rows) {
    const keys = JSON.parse(r.source_keys) as string[];
    const ids = r.ids.split(" ");
    const hashes = r.row_hashes.split(" ");
    for (let i = 0; i < keys.length; i++) {
      registry.load({ namespace: r.namespace, key: keys[i]!, id: Number(ids[i]), row: Number(hashes[i]) });
    }
    n += keys.length;
  }
  return n;
}

/** Writes a batch's registry changes (inside the batch's transaction): a few rows per namespace. */
export async function saveDbRegistry(client: SqlClient, blocks: readonly RegistryBlock[]): Promise<void> {
  if (blocks.length === 0) return;
  await client.copyIn(REGISTRY_TABLE, ["namespace", "source_keys", "ids", "row_hashes"], blockRows(blocks));
}

function* blockRows(blocks: readonly RegistryBlock[]): Generator<string> {
  for (const b of blocks) {
    let from = 0;
    while (from < b.keys.length) {
      // Cut where the keys reach BLOCK_CHARS: a CSV line stays far below DuckDB's 2 MB line limit.
      let to = from;
      for (let chars = 0; to < b.keys.length && chars < BLOCK_CHARS; to++) chars += b.keys[to]!.length + 8;
      const keys = JSON.stringify(b.keys.slice(from, to));
      yield `${csvText(b.namespace)},${csvText(keys)},${b.ids.subarray(from, to).join(" ")},${b.rows.subarray(from, to).join(" ")}\n`;
      from = to;
    }
  }
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
