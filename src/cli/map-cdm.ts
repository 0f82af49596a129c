// `crossmap map --db URL` and `--out-dir DIR --out-format csv`: the OMOP CDM sinks as the run's output
// target, and the per-table summary printed after the run.
import { AppError } from "../errors.js";
import type { MappingPlan } from "../pipeline/plan.js";
import type { OutputTarget } from "../pipeline/run.js";
import type { RunIssue } from "../pipeline/types.js";
import type { LoadedTable } from "../sinks/cdm/db-sink.js";

export interface CdmFlags {
  db?: string;
  outDir?: string;
  outFormat: "ndjson" | "csv";
  idMap?: string;
  ids: "registry" | "source";
}

export interface CdmTarget {
  output: OutputTarget;
  /** Lines for stderr after the run: rows per table, and what was committed. */
  summary(): string[];
  /** For the progress line on a terminal: rows handed to the destination so far. */
  progressNote(): string;
}

export async function cdmTarget(
  flags: CdmFlags,
  plan: MappingPlan,
  notice: (line: string) => void,
): Promise<CdmTarget> {
  const { loadProfile } = await import("../sinks/cdm/model.js");
  const standard = loadProfile().standard;
  if (plan.target !== standard) {
    throw new AppError(
      400,
      "usage",
      `${flags.db ? "--db" : "--out-format csv"} writes ${standard} tables; this crossmap's target is ${plan.target}`,
    );
  }
  let tables: () => LoadedTable[] = () => [];
  let where = "";
  if (flags.db) {
    const url = flags.db;
    const { openDatabase } = await import("../sinks/db/client.js");
    const { openDbSink } = await import("../sinks/cdm/db-sink.js");
    let opened = false;
    const output: OutputTarget = {
      kind: "sink",
      byEntity: true,
      // Opened with the run's other outputs, before any record is read or worker started; only `db init`
      // makes a database, so a DuckDB file that is not there is refused, not left behind empty.
      open: async (report: (issue: RunIssue) => Promise<void>) => {
        const client = await openDatabase(url, { create: false });
        where = client.display;
        opened = true;
        const sink = await openDbSink({ client, ids: flags.ids, report, notice }).catch(async (err) => {
          await client.close();
          throw err;
        });
        tables = () => sink.tables();
        return sink;
      },
    };
    return {
      output,
      summary: () => (opened ? formatTables(tables(), `into ${where}`) : []),
      progressNote: () => rowsNote(tables()),
    };
  }
  const dir = flags.outDir as string;
  const { openCsvSink } = await import("../sinks/cdm/csv-sink.js");
  const output: OutputTarget = {
    kind: "sink",
    byEntity: true,
    open: async (report) => {
      const sink = await openCsvSink({
        dir,
        ids: flags.ids,
        report,
        ...(flags.idMap ? { idMap: flags.idMap } : {}),
      });
      tables = () => sink.tables();
      return sink;
    },
  };
  return {
    output,
    summary: () => formatTables(tables(), `into ${dir}`),
    progressNote: () => rowsNote(tables()),
  };
}

/** `12,345 rows written, 3 copies left out` */
export function rowsNote(tables: LoadedTable[]): string {
  const written = tables.reduce((n, t) => n + t.committed, 0);
  const copies = tables.reduce((n, t) => n + t.duplicates, 0);
  return `${written.toLocaleString("en-US")} rows written${copies > 0 ? `, ${copies.toLocaleString("en-US")} copies left out` : ""}`;
}

/**
 * ```
 * crossmap map: rows into postgresql://...: 574 written, 12 copies of rows already there left out
 * table                 written  copies  conflicts  rejected
 * person                      6       0          0         0
 * ```
 */
export function formatTables(tables: LoadedTable[], where: string): string[] {
  const total = (k: keyof Omit<LoadedTable, "table">) => tables.reduce((n, t) => n + t[k], 0);
  const lines = [
    `crossmap map: rows ${where}: ${total("committed")} written, ${total("duplicates")} copies of rows already written left out` +
      (total("conflicting") > 0 ? `, ${total("conflicting")} conflicting copies left out` : "") +
      (total("rejected") > 0 ? `, ${total("rejected")} rows rejected` : ""),
  ];
  if (tables.length === 0) return lines;
  const width = Math.max(5, ...tables.map((t) => t.table.length));
  const row = (cells: (string | number)[]) =>
    cells.map((c, i) => (i === 0 ? String(c).padEnd(width) : String(c).padStart(10))).join(" ");
  lines.push(row(["table", "written", "copies", "conflicts", "rejected"]));
  for (const t of tables) lines.push(row([t.table, t.committed, t.duplicates, t.conflicting, t.rejected]));
  return lines;
}
