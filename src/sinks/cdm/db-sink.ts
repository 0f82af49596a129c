// Writes mapped CDM records straight into a CDM database: rows are converted and given registry ids as
// they come (rows.ts), gathered per table, and every `batchRows` rows written by COPY in one transaction
// together with the registry's changes; a batch that fails is rolled back, registry changes included, and
// the run stops with one line naming the table and what the database said.
import { AppError } from "../../errors.js";
import type { RunIssue } from "../../pipeline/types.js";
import type { OutputSink } from "../../pipeline/writers.js";
import type { SqlClient } from "../db/client.js";
import { qualified, quoteIdent, reason } from "../db/client.js";
import { TableBuffers } from "./buffers.js";
import { type CdmModel, loadModel } from "./model.js";
import { IdRegistry } from "./registry.js";
import { ensureRegistry, loadDbRegistry, saveDbRegistry } from "./registry-stores.js";
import { type IdMode, RowConverter, type TableCounts } from "./rows.js";
import { checkCdmSchema, dropForeignKeys, tableOrder } from "./schema-state.js";

/**
 * Rows per transaction: large enough that COPY's per-statement and per-commit cost vanishes, small enough
 * to hold two batches (one being written, one being converted) in memory. PostgreSQL: 10,000 (measured at
 * 1M rows under load: peak RSS 244 MB at 10,000, 252 MB at 20,000, 286 MB at 50,000, with the same CPU per
 * row in the sink and in the server: a commit costs it ~10 ms). DuckDB pays more per COPY and commit
 * (measured: 1.5-2 s per 20,000-row COPY under load, 3.3 s for 100,000 in one).
 */
export const DEFAULT_BATCH_ROWS = { postgresql: 10_000, duckdb: 100_000 } as const;

export interface DbSinkOptions {
  client: SqlClient;
  ids?: IdMode;
  batchRows?: number;
  /** Per-row issues (a value that does not fit, a conflicting copy), reported like mapping issues. */
  report: (issue: RunIssue) => Promise<void> | void;
  /** One-line notices (foreign keys dropped for the load). */
  notice?: (line: string) => void;
}

export interface LoadedTable extends TableCounts {
  table: string;
  /** Rows committed to the database (written minus those of a batch rolled back). */
  committed: number;
}

export interface DbSink extends OutputSink {
  /** Per table, what the run did so far. */
  tables(): LoadedTable[];
  /** Rows committed so far. */
  committedRows(): number;
}

export async function openDbSink(options: DbSinkOptions): Promise<DbSink> {
  const { client } = options;
  const model: CdmModel = loadModel(client.dialect);
  await checkCdmSchema(client);
  await ensureRegistry(client);
  const dropped = await dropForeignKeys(client, model);
  if (dropped > 0) {
    options.notice?.(
      `${dropped} foreign keys of ${client.display} dropped for the load; \`crossmap db finish\` applies them again`,
    );
  }
  const registry = new IdRegistry();
  await loadDbRegistry(client, registry);
  for (const t of model.tables.values()) {
    if (t.key.kind !== "pk") continue;
    const [row] = await client.query<{ m: number | null }>(
      `SELECT max(${quoteIdent(t.key.column)}) AS m FROM ${qualified(client, t.name)}`,
    );
    if (typeof row?.m === "number") registry.reserve(t.name, row.m);
  }
  const pendingIssues: RunIssue[] = [];
  const converter = new RowConverter(registry, (i) => pendingIssues.push(i), options.ids ?? "registry");
  const buffers = new TableBuffers();
  const committed = new Map<string, number>();
  const order = tableOrder(model);
  const batchRows = options.batchRows ?? DEFAULT_BATCH_ROWS[client.dialect];
  let closed = false;

  // One batch is written while the next is converted (the database works in its own process or thread),
  // so a load costs about the larger of the two rather than their sum. The registry keeps a batch's ids as
  // soon as it is handed over: if its transaction fails, the run stops there, and what the database holds
  // (earlier batches and their registry rows) is consistent on its own.
  let inFlight: Promise<void> | undefined;
  let failure: AppError | undefined;
  const flush = async (wait: boolean): Promise<void> => {
    if (inFlight) await inFlight;
    if (failure) throw failure;
    if (buffers.rows === 0 && !registry.dirty) return;
    const batch = buffers.take();
    const tables = [...batch.keys()].sort((a, b) => order.indexOf(a) - order.indexOf(b));
    const changes = registry.blocks();
    registry.commit();
    let current = "";
    inFlight = client
      .transaction(async () => {
        for (const table of tables) {
          current = table;
          const columns = model.tables.get(table)!.columns.map((c) => c.name);
          await client.copyIn(table, columns, batch.get(table)!.chunks);
        }
        current = "crossmap_id_map";
        await saveDbRegistry(client, changes);
      })
      .then(
        () => {
          for (const table of tables)
            committed.set(table, (committed.get(table) ?? 0) + batch.get(table)!.rows);
        },
        (err: unknown) => {
          const rows = [...batch.values()].reduce((n, t) => n + t.rows, 0);
          const before = [...committed.values()].reduce((a, b) => a + b, 0);
          failure = new AppError(
            400,
            "db_load_failed",
            `${client.display}: a batch of ${rows} rows was rolled back: ${current}: ${stripDisplay(reason(err), client.display)}; ` +
              `${before} rows were committed before it`,
          );
        },
      )
      .finally(() => {
        inFlight = undefined;
      });
    if (wait) {
      await inFlight;
      if (failure) throw failure;
    }
  };

  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await client.close();
  };

  return {
    async write(entity, text) {
      const table = model.tables.get(entity);
      if (!table) {
        throw new AppError(
          400,
          "not_a_cdm_table",
          model.vocabularyTables.has(entity)
            ? `the crossmap writes ${entity}, a vocabulary table: load the vocabulary with crossmap db init --vocab-dir`
            : `the crossmap writes ${JSON.stringify(entity)}, which is not a table of the CDM v5.4 DDL`,
        );
      }
      if (failure) throw failure;
      converter.convert(table, text, (line) => buffers.add(entity, line));
      for (const issue of pendingIssues.splice(0)) await options.report(issue);
      if (buffers.rows >= batchRows) await flush(false);
    },
    async commit() {
      try {
        await flush(true);
      } finally {
        await close();
      }
    },
    async abort() {
      // What earlier batches committed stays (a re-run skips it); the rows of the open batch are dropped.
      await inFlight;
      registry.rollback();
      buffers.clear();
      await close();
    },
    tables() {
      return [...converter.counts.entries()]
        .map(([table, c]) => ({ table, ...c, committed: committed.get(table) ?? 0 }))
        .sort((a, b) => order.indexOf(a.table) - order.indexOf(b.table));
    },
    committedRows() {
      return [...committed.values()].reduce((a, b) => a + b, 0);
    },
  };
}

/** A DatabaseError's message starts with the database it names; the caller names it once. */
function stripDisplay(message: string, display: string): string {
  return message.startsWith(`${display}: `) ? message.slice(display.length + 2) : message;
}
