// `crossmap dq` as a user runs it, on PGlite, DuckDB and (where installed) a real PostgreSQL server, each
// holding the official CDM tables with rows that break exactly the checks the test names.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dqdJson } from "../../src/dq/json.js";
import { runDataQuality } from "../../src/dq/run.js";
import { formatReport } from "../../src/dq/summary.js";
import { openDatabase, type SqlClient } from "../../src/sinks/db/client.js";
import { runCli } from "../cli/run-cli.js";
import { createCdmTables, insertRows } from "../support/cdm-ddl.js";
import { postgresAvailable, startPostgres } from "../support/postgres-server.js";

const temp = mkdtempSync(join(tmpdir(), "crossmap-dq-"));
const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
  rmSync(temp, { recursive: true, force: true });
});

const concept = (
  id: number,
  name: string,
  domain: string,
  vocabulary: string,
  cls: string,
  standard: string | null,
) => ({
  concept_id: id,
  concept_name: name,
  domain_id: domain,
  vocabulary_id: vocabulary,
  concept_class_id: cls,
  standard_concept: standard,
  concept_code: String(id),
  valid_start_date: "1970-01-01",
  valid_end_date: "2099-12-31",
  invalid_reason: null,
});

async function fill(client: SqlClient): Promise<void> {
  await createCdmTables(client);
  await insertRows(client, "concept", [
    concept(0, "No matching concept", "Metadata", "None", "Undefined", null),
    concept(8507, "MALE", "Gender", "Gender", "Gender", "S"),
    concept(8532, "FEMALE", "Gender", "Gender", "Gender", "S"),
    concept(32817, "EHR", "Type Concept", "Type Concept", "Type Concept", "S"),
    concept(201826, "Type 2 diabetes mellitus", "Condition", "SNOMED", "Clinical Finding", "S"),
  ]);
  const person = (id: number, gender: number, year: number) => ({
    person_id: id,
    gender_concept_id: gender,
    year_of_birth: year,
    month_of_birth: 5,
    day_of_birth: 1,
    race_concept_id: 0,
    ethnicity_concept_id: 0,
  });
  // Person 2 twice (a broken primary key), the second with a gender concept the vocabulary lacks.
  await insertRows(client, "person", [person(1, 8507, 1980), person(2, 8532, 1990), person(2, 999999, 1991)]);
  await insertRows(client, "observation_period", [
    {
      observation_period_id: 1,
      person_id: 1,
      observation_period_start_date: "2000-01-01",
      observation_period_end_date: "2020-12-31",
      period_type_concept_id: 32817,
    },
    {
      observation_period_id: 2,
      person_id: 2,
      observation_period_start_date: "2000-01-01",
      observation_period_end_date: "2020-12-31",
      period_type_concept_id: 32817,
    },
  ]);
  // A condition a year before its person was born.
  await insertRows(client, "condition_occurrence", [
    {
      condition_occurrence_id: 1,
      person_id: 1,
      condition_concept_id: 201826,
      condition_start_date: "1979-01-01",
      condition_type_concept_id: 32817,
    },
  ]);
}

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
  json: string;
}

const CHECKS = "cdmTable,cdmField,measureValueCompleteness,isPrimaryKey,isForeignKey,plausibleAfterBirth";

/** `crossmap dq` in its own process, on a database a URL names. */
async function viaCli(url: string, name: string): Promise<Outcome> {
  const client = await openDatabase(url);
  await fill(client);
  await client.close();
  const json = join(temp, `${name}.json`);
  const r = await runCli(["dq", url, "--checks", CHECKS, "--json", json]);
  return { ...r, json: readFileSync(json, "utf8") };
}

const targets: { name: string; run: () => Promise<Outcome> }[] = [
  { name: "DuckDB", run: () => viaCli(join(temp, "cdm.duckdb"), "duckdb") },
  {
    // In process: opening a PGlite directory costs each process seconds of WebAssembly start-up.
    name: "PGlite",
    run: async () => {
      const client = await openDatabase("pglite:memory");
      await fill(client);
      const run = await runDataQuality(client, { names: CHECKS.split(",") });
      await client.close();
      const failed = run.CheckResults.some((r) => r.failed === 1 || r.isError === 1);
      return {
        code: failed ? 1 : 0,
        stdout: `${formatReport(run, client.display).join("\n")}\n`,
        stderr: "",
        json: dqdJson(run),
      };
    },
  },
];
if (postgresAvailable()) {
  targets.push({
    name: "PostgreSQL server",
    run: async () => {
      const server = await startPostgres();
      stops.push(server.stop);
      return viaCli(`${server.url}?schema=cdm`, "postgresql");
    },
  });
}

describe.each(targets)("crossmap dq on $name", (target) => {
  it("prints DQD's summary, names each failure with its share and threshold, writes DQD's JSON, exits 1", async () => {
    const r = await target.run();
    expect(r.stderr).toBe("");
    expect(r.code).toBe(1);
    const lines = r.stdout.split("\n");
    expect(lines.slice(lines.indexOf("Failures:"))).toEqual([
      "Failures:",
      "  isPrimaryKey PERSON.PERSON_ID: 2 of 3 rows (66.67%) violate it, threshold 0%",
      "  isForeignKey PERSON.GENDER_CONCEPT_ID: 1 of 3 rows (33.33%) violate it, threshold 0%",
      "  plausibleAfterBirth CONDITION_OCCURRENCE.CONDITION_START_DATE: 1 of 1 rows (100.00%) violate it, threshold 1%",
      "",
    ]);
    const result = JSON.parse(r.json);
    expect(Object.keys(result)).toEqual([
      "startTimestamp",
      "endTimestamp",
      "executionTime",
      "executionTimeSeconds",
      "CheckResults",
      "Metadata",
      "Overview",
    ]);
    expect(result.Metadata).toEqual([{ dqdVersion: "2.8.4" }]);
    expect(result.Overview.countOverallFailed).toEqual([3]);
    const pk = result.CheckResults.find(
      (c: { checkId: string }) => c.checkId === "field_isprimarykey_person_person_id",
    );
    expect(pk).toMatchObject({
      numViolatedRows: 2,
      pctViolatedRows: 2 / 3,
      numDenominatorRows: 3,
      checkName: "isPrimaryKey",
      checkLevel: "FIELD",
      cdmTableName: "PERSON",
      cdmFieldName: "PERSON_ID",
      sqlFile: "field_is_primary_key.sql",
      category: "Conformance",
      subcategory: "Relational",
      context: "Verification",
      failed: 1,
      passed: 0,
      isError: 0,
      notApplicable: 0,
      thresholdValue: 0,
    });
    expect(pk).not.toHaveProperty("conceptId");
    expect(result.CheckResults.every((c: { isError: number }) => c.isError === 0)).toBe(true);
  });
});

describe("crossmap dq usage", () => {
  it("refuses an unknown level or a selection that matches no check, and an unreachable database, with exit 2", async () => {
    const bad = await runCli(["dq", "duckdb:memory", "--levels", "ROW"]);
    expect([bad.code, bad.stderr]).toEqual([
      2,
      "crossmap: --levels: unknown level ROW (TABLE, FIELD, CONCEPT)\n",
    ]);
    const none = await runCli(["dq", "duckdb:memory", "--checks", "noSuchCheck"]);
    expect([none.code, none.stderr]).toEqual([
      2,
      "crossmap: no checks match --checks, --levels and --severities\n",
    ]);
    const down = await runCli(["dq", "postgresql://nobody@127.0.0.1:1/cdm"]);
    expect(down.code).toBe(2);
    expect(down.stderr).toMatch(/^crossmap: cannot open postgresql:\/\/nobody@127\.0\.0\.1:1\/cdm: /);
  });

  it("refuses a DuckDB file that is not there in one line, exit 2, and makes no file", async () => {
    const file = join(temp, "missing.duckdb");
    const r = await runCli(["dq", file]);
    expect(r).toEqual({
      code: 2,
      stdout: "",
      stderr: `crossmap: ${file}: no such file, so no CDM tables; create them with \`crossmap db init\`\n`,
    });
    expect(existsSync(file)).toBe(false);
  });

  it("takes -q for --quiet, as map and db init do", async () => {
    const help = await runCli(["dq", "--help"]);
    expect(help.stdout).toMatch(/^ {2}-q, --quiet {2,}no progress line$/m);
    const file = join(temp, "quiet.duckdb");
    const r = await runCli(["dq", "-q", file]);
    expect([r.code, r.stderr]).toEqual([
      2,
      `crossmap: ${file}: no such file, so no CDM tables; create them with \`crossmap db init\`\n`,
    ]);
  });

  it("refuses a schema without the CDM tables in one line, exit 2, as map --db does", async () => {
    const file = join(temp, "no-schema.duckdb");
    const client = await openDatabase(file);
    await createCdmTables(client);
    await client.close();
    const r = await runCli(["dq", `${file}?schema=nope`]);
    expect(r).toEqual({
      code: 2,
      stdout: "",
      stderr: `crossmap: ${file}?schema=nope: schema nope has no CDM tables (no table person); create them with \`crossmap db init\`\n`,
    });
  });
});
