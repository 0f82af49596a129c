// `crossmap dq`'s work: every DQD check rendered for the database's dialect, run one by one, judged against
// its threshold, and summarised as DQD does (the Overview and CheckResults of its JSON).
import { checkCdmSchema } from "../sinks/cdm/schema-state.js";
import { type Dialect, qualified, quoteIdent, type SqlClient, type SqlValue } from "../sinks/db/client.js";
import { type CheckInstance, type CheckSelection, listChecks } from "./checks.js";
import { type DqdDefinitions, loadDefinitions } from "./definitions.js";
import { applyNotApplicable, type CheckOutcome, type CheckResult, evaluateCheck } from "./evaluate.js";
import { renderSql } from "./sql-render.js";
import { translateSql } from "./sql-translate.js";
import { type Overview, summarize } from "./summary.js";

/** The DQD package version whose checks and rules these are (its results carry it as `dqdVersion`). */
export const DQD_VERSION = "2.8.4";

export interface DqRun {
  startTimestamp: string;
  endTimestamp: string;
  executionTime: string;
  executionTimeSeconds: number;
  CheckResults: CheckResult[];
  Metadata: Record<string, SqlValue>[];
  Overview: Overview;
}

export interface DqOptions extends CheckSelection {
  /** The vocabulary tables' schema, when not the CDM schema. */
  vocabSchema?: string;
  /** Called after each check. */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Runs the selected checks. A schema without the CDM tables is refused first, in one line (`map --db`'s
 * check): every query would fail, and the report would count thousands of errors that say nothing.
 */
export async function runDataQuality(client: SqlClient, options: DqOptions = {}): Promise<DqRun> {
  const started = new Date();
  await checkCdmSchema(client);
  const defs = loadDefinitions();
  const schemas = { cdm: sqlName(client.schema), vocab: sqlName(options.vocabSchema ?? client.schema) };
  const checks = listChecks(defs, schemas, options);
  const metadata = await readMetadata(client);
  const results: CheckResult[] = [];
  for (const check of checks) {
    const sql = checkSql(check, defs, schemas, client.dialect);
    const t0 = performance.now();
    const outcome = await runQuery(client, sql);
    results.push(evaluateCheck(check, outcome, sql, (performance.now() - t0) / 1000));
    options.onProgress?.(results.length, checks.length);
  }
  applyNotApplicable(results);
  const ended = new Date();
  const seconds = (ended.getTime() - started.getTime()) / 1000;
  return {
    startTimestamp: timestamp(started),
    endTimestamp: timestamp(ended),
    executionTime: `${Math.round(seconds)} secs`,
    executionTimeSeconds: seconds,
    CheckResults: results,
    Metadata: [metadata],
    Overview: summarize(results),
  };
}

/** Whether a selection keeps any check; it does not depend on the database, so it can be asked before opening one. */
export function selectsAnyCheck(selection: CheckSelection): boolean {
  return listChecks(loadDefinitions(), { cdm: "cdm", vocab: "cdm" }, selection).length > 0;
}

/** A check's query for `dialect`, with the parameters DQD gives it (no cohort). */
export function checkSql(
  check: CheckInstance,
  defs: DqdDefinitions,
  schemas: { cdm: string; vocab: string },
  dialect: Dialect,
): string {
  const params = {
    ...check.row,
    cdmDatabaseSchema: schemas.cdm,
    vocabDatabaseSchema: schemas.vocab,
    cohortDatabaseSchema: schemas.cdm,
    cohortTableName: "cohort",
    cohortDefinitionId: "",
    cohort: "FALSE",
  };
  return translateSql(renderSql(defs.sql(check.description.sqlFile), params), dialect);
}

async function runQuery(client: SqlClient, sql: string): Promise<CheckOutcome> {
  try {
    const rows = await client.query(sql);
    const row = rows[0] ?? {};
    return {
      numViolatedRows: Number(row.num_violated_rows ?? 0),
      pctViolatedRows: Number(row.pct_violated_rows ?? 0),
      numDenominatorRows: Number(row.num_denominator_rows ?? 0),
    };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** The cdm_source row with camelCase keys, as DQD's Metadata; a missing or empty table gives only the version. */
async function readMetadata(client: SqlClient): Promise<Record<string, SqlValue>> {
  const out: Record<string, SqlValue> = {};
  try {
    const rows = await client.query(`SELECT * FROM ${qualified(client, "cdm_source")}`);
    for (const [k, v] of Object.entries(rows[0] ?? {})) out[camelCase(k)] = v;
  } catch {
    // DQD refuses to run without cdm_source; we run and say so in the summary (cdmSourceName absent).
  }
  out.dqdVersion = DQD_VERSION;
  return out;
}

/** A schema name as the check queries need it: bare when it folds to itself, else quoted. */
const sqlName = (name: string) => (/^[a-z_][a-z0-9_]*$/.test(name) ? name : quoteIdent(name));

const camelCase = (name: string) =>
  name.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** `2026-11-27 14:03:11`: local time, as R prints Sys.time(). */
function timestamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
