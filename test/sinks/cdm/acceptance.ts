// The acceptance flow of issue 28, run by load-*.int.test.ts against each database kind: : `db init` with the sample vocabulary, `map --db` of the bundled OMOP sample (through
// FHIR) and the FHIR sample Bundles, `db finish`: every row loaded, every official primary and foreign key in
// force, an observation_period for every person; a second map adds nothing, more Bundles add theirs with the
// known patients' ids unchanged; `crossmap dq` then passes 99.5% of DQD's checks, every key, required-field and
// datatype check among them. On PostgreSQL (PGlite in this process, and Debian's server as CLI child
// processes where installed) and DuckDB (CLI child processes).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import type { SqlClient } from "../../../src/sinks/db/client.js";
import {
  type CliResult,
  completedVocabulary,
  FHIR_BUNDLES,
  OMOP_SAMPLE,
  vocabularyIndex,
} from "./support.js";

const OMOP_TABLES: Record<string, number> = {
  provider: 67,
  person: 28,
  observation_period: 28,
  visit_occurrence: 1791,
  visit_detail: 1791,
  condition_occurrence: 470,
  drug_exposure: 883,
  procedure_occurrence: 1649,
  device_exposure: 1,
  measurement: 10040,
  observation: 8099,
  death: 3,
};
/** The six FHIR sample Bundles' rows (each Organization, Practitioner and Location once). */
const FHIR_TABLES: Record<string, number> = {
  location: 15,
  care_site: 9,
  provider: 9,
  person: 6,
  visit_occurrence: 43,
  condition_occurrence: 21,
  drug_exposure: 46,
  procedure_occurrence: 11,
  measurement: 252,
  observation: 24,
  payer_plan_period: 43,
  cost: 95,
};

interface DqdJson {
  Overview: Record<string, number[]>;
  CheckResults: {
    checkName: string;
    cdmTableName: string;
    cdmFieldName?: string;
    failed: number;
    numViolatedRows: number;
  }[];
}
/** The checks issue 28 requires to pass without exception. */
const STRUCTURAL = ["isPrimaryKey", "isForeignKey", "isRequired", "cdmDatatype"];
/** DQD's overview of the loaded samples: 2,374 checks, 11 failed (99.54% passed as DQD counts). */
const DQ_OVERVIEW = {
  countTotal: [2374],
  countPassed: [2363],
  countErrorFailed: [0],
  countOverallFailed: [11],
  percentPassed: [99.54],
  countFailedPlausibility: [3],
  countFailedConformance: [0],
  countFailedCompleteness: [8],
};
/** Every failed check: what the samples' source data has (no drug ingredients in the shard, 0 concepts). */
const DQ_FAILURES = [
  ["measurePersonCompleteness", "DRUG_ERA", "", 34],
  // 470 OMOP sample rows with status 0, and the Synthea Bundles' 8 `active` conditions (no OMOP concept).
  ["standardConceptRecordCompleteness", "CONDITION_OCCURRENCE", "CONDITION_STATUS_CONCEPT_ID", 478],
  ["standardConceptRecordCompleteness", "MEASUREMENT", "UNIT_CONCEPT_ID", 1662],
  ["standardConceptRecordCompleteness", "OBSERVATION", "UNIT_CONCEPT_ID", 8099],
  ["standardConceptRecordCompleteness", "VISIT_DETAIL", "ADMITTED_FROM_CONCEPT_ID", 1791],
  ["standardConceptRecordCompleteness", "VISIT_DETAIL", "DISCHARGED_TO_CONCEPT_ID", 1791],
  ["standardConceptRecordCompleteness", "VISIT_OCCURRENCE", "ADMITTED_FROM_CONCEPT_ID", 1791],
  ["standardConceptRecordCompleteness", "VISIT_OCCURRENCE", "DISCHARGED_TO_CONCEPT_ID", 1791],
  ["plausibleValueLow", "DRUG_EXPOSURE", "DAYS_SUPPLY", 95],
  ["plausibleValueLow", "DRUG_EXPOSURE", "QUANTITY", 883],
  ["plausibleValueHigh", "DRUG_EXPOSURE", "DAYS_SUPPLY", 461],
];

let vocabDir: string;
let index: string;
/** A temporary directory for the calling test file, removed after it. */
export const temp = mkdtempSync(join(tmpdir(), "crossmap-cdm-load-"));

/** Registers the vocabulary set-up and clean-up of a test file that runs `acceptance`. */
export function withVocabulary(): void {
  beforeAll(async () => {
    vocabDir = completedVocabulary();
    index = await vocabularyIndex();
  });
  afterAll(() => {
    for (const d of [vocabDir, index, temp]) if (d) rmSync(d, { recursive: true, force: true });
  });
}

export type Exec = (...args: string[]) => Promise<CliResult> | CliResult;

async function counts(db: SqlClient, tables: string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of tables) {
    const [row] = await db.query<{ n: number }>(`SELECT count(*) AS n FROM "${db.schema}"."${t}"`);
    out[t] = row!.n;
  }
  return out;
}

const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
const plus = (a: Record<string, number>, b: Record<string, number>) => {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
};

/** The whole acceptance flow against one database. `connect` opens a client for checks between steps. */
export async function acceptance(exec: Exec, url: string, connect: () => Promise<SqlClient>) {
  const init = await exec("db", "init", url, "--vocab-dir", vocabDir, "-q");
  expect(init).toEqual({ code: 0, lines: [] });

  const omop = await exec(
    "map",
    "--from",
    "omop_cdm_v5.4",
    "--via",
    "fhir_r4",
    "--to",
    "omop_cdm_v5.4",
    "--vocab",
    index,
    "--workers",
    "1",
    "--db",
    url,
    OMOP_SAMPLE,
  );
  expect(omop.code).toBe(0);
  expect(omop.lines[0]).toBe("crossmap map: 24850 in, 24850 out, 0 failed, 0 with errors, 0 warnings");
  expect(omop.lines[1]).toBe(
    `crossmap map: rows into ${url}: 24850 written, 0 copies of rows already written left out`,
  );

  const fhir = [
    "map",
    "--from",
    "fhir_r4",
    "--to",
    "omop_cdm_v5.4",
    "--vocab",
    index,
    "--format",
    "fhir-bundle",
    "--workers",
    "1",
    "--errors",
    join(temp, `errors-${Date.now()}.ndjson`),
    "--db",
    url,
  ];
  const first = await exec(...fhir, ...FHIR_BUNDLES.slice(0, 3));
  expect(first.code).toBe(0);
  let db = await connect();
  // The OMOP sample's 28 persons came first and have ids 1..28; the Bundles' patients follow.
  const known = await db.query<{ person_source_value: string; person_id: number }>(
    `SELECT person_source_value, person_id FROM person WHERE person_id > 28 ORDER BY 1`,
  );
  expect(known).toHaveLength(3);
  const afterFirst = await counts(db, Object.keys(FHIR_TABLES));
  await db.close();

  // The same three Bundles again: nothing new.
  const again = await exec(...fhir, ...FHIR_BUNDLES.slice(0, 3));
  expect(again.code).toBe(0);
  const written = /: (\d+) written, 0 copies/.exec(first.lines.find((l) => l.includes("written")) ?? "")?.[1];
  expect(again.lines).toContain(
    `crossmap map: rows into ${url}: 0 written, ${written} copies of rows already written left out`,
  );
  db = await connect();
  expect(await counts(db, Object.keys(FHIR_TABLES))).toEqual(afterFirst);
  await db.close();

  // All six: the other three patients' rows come in, the first three keep their person_id.
  const all = await exec(...fhir, ...FHIR_BUNDLES);
  expect(all.code).toBe(0);
  db = await connect();
  expect(await counts(db, Object.keys(OMOP_TABLES))).toEqual(
    Object.fromEntries(Object.keys(OMOP_TABLES).map((t) => [t, OMOP_TABLES[t]! + (FHIR_TABLES[t] ?? 0)])),
  );
  expect(await counts(db, Object.keys(FHIR_TABLES))).toEqual(
    Object.fromEntries(Object.keys(FHIR_TABLES).map((t) => [t, (OMOP_TABLES[t] ?? 0) + FHIR_TABLES[t]!])),
  );
  const later = await db.query<{ person_source_value: string; person_id: number }>(
    `SELECT person_source_value, person_id FROM person WHERE person_id > 28 ORDER BY 1`,
  );
  expect(later).toHaveLength(6);
  for (const p of known) expect(later).toContainEqual(p);
  // Every id fits the DDL's integer keys (the registry numbers each table from 1).
  const [max] = await db.query<{ m: number }>("SELECT max(person_id) AS m FROM person");
  expect(max!.m).toBe(34);
  await db.close();

  const finish = await exec("db", "finish", url);
  expect(finish.code).toBe(0);
  expect(finish.lines[0]).toBe(`crossmap db finish: ${url}`);
  expect(finish.lines[1]).toBe("  observation_period: 6 derived, 0 widened");
  db = await connect();
  const [orphans] = await db.query<{ n: number }>(
    "SELECT count(*) AS n FROM person p WHERE NOT EXISTS (SELECT 1 FROM observation_period o WHERE o.person_id = p.person_id)",
  );
  expect(orphans!.n).toBe(0);
  const keys = await db.query<{ kind: string; n: number }>(
    "SELECT constraint_type AS kind, count(*) AS n FROM information_schema.table_constraints " +
      "WHERE constraint_schema = $1 AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY') AND table_name <> 'crossmap_id_map' " +
      "GROUP BY constraint_type ORDER BY 1",
    [db.schema],
  );
  await db.close();

  // The OHDSI Data Quality Dashboard's checks: exit 1 for the 11 failures the sample data really has (see
  // docs/data-quality.md), none of them a key, a required field or a datatype.
  const json = join(temp, `dq-${Date.now()}.json`);
  const dq = await exec("dq", url, "--json", json, "--quiet");
  expect(dq.code).toBe(1);
  const report = JSON.parse(readFileSync(json, "utf8")) as DqdJson;
  expect(report.Overview).toMatchObject(DQ_OVERVIEW);
  expect(report.Overview.percentPassed?.[0]).toBeGreaterThanOrEqual(99);
  const failed = report.CheckResults.filter((c) => c.failed === 1);
  expect(failed.filter((c) => STRUCTURAL.includes(c.checkName))).toEqual([]);
  expect(failed.map((c) => [c.checkName, c.cdmTableName, c.cdmFieldName ?? "", c.numViolatedRows])).toEqual(
    DQ_FAILURES,
  );
  return { finish, keys, total: sum(plus(OMOP_TABLES, FHIR_TABLES)) };
}
