// What a user sees when a load cannot go on (issue 28 item 7): one line and exit 2 for a database that
// cannot be reached, a schema without the CDM tables, a batch the database refuses (rolled back, the rows
// committed before it named); and `db finish` naming every constraint the data breaks.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../../src/sinks/db/client.js";
import { cliProcess, completedVocabulary } from "./support.js";

const temp = mkdtempSync(join(tmpdir(), "crossmap-cdm-errors-"));
let vocab: string;
beforeAll(() => {
  vocab = completedVocabulary();
});
afterAll(() => {
  rmSync(temp, { recursive: true, force: true });
  rmSync(vocab, { recursive: true, force: true });
});

const ndjson = (name: string, ...records: object[]) => {
  const file = join(temp, name);
  writeFileSync(file, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
  return file;
};
const patient = (id: string) => ({ resourceType: "Patient", id, gender: "female", birthDate: "1980-01-02" });
const map = (url: string, file: string) =>
  cliProcess("map", "--from", "fhir_r4", "--to", "omop_cdm_v5.4", "--workers", "1", "--db", url, file);

describe("map --db and db finish when things go wrong", () => {
  it("names a database that cannot be reached in one line, exit 2", async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    await new Promise((r) => server.close(r));
    const r = map(`postgresql://crossmap:secret@127.0.0.1:${port}/cdm`, ndjson("p.ndjson", patient("a")));
    expect(r).toEqual({
      code: 2,
      lines: [
        `crossmap: cannot open postgresql://crossmap:***@127.0.0.1:${port}/cdm: connect ECONNREFUSED 127.0.0.1:${port}`,
      ],
    });
  });

  it("says a schema has no CDM tables and how to make them, exit 2", async () => {
    const url = join(temp, "empty.duckdb");
    await (await openDatabase(url)).close();
    expect(map(url, ndjson("p.ndjson", patient("a")))).toEqual({
      code: 2,
      lines: [
        `crossmap: ${url}: schema main has no CDM tables (no table person); create them with \`crossmap db init\``,
      ],
    });
  });

  it("says a DuckDB file is not there and how to make it, exit 2, and leaves no file behind", () => {
    const url = join(temp, "absent.duckdb");
    expect(map(url, ndjson("p.ndjson", patient("a")))).toEqual({
      code: 2,
      lines: [`crossmap: ${url}: no such file, so no CDM tables; create them with \`crossmap db init\``],
    });
    expect(existsSync(url)).toBe(false);
  });

  it("refuses a registry table of the earlier one-row-per-id form in one line, exit 2", async () => {
    const url = join(temp, "old-registry.duckdb");
    expect(cliProcess("db", "init", url, "-q")).toEqual({ code: 0, lines: [] });
    const db = await openDatabase(url);
    try {
      await db.exec(
        "DROP TABLE crossmap_id_map; CREATE TABLE crossmap_id_map (namespace varchar(64) NOT NULL, " +
          "source_key text NOT NULL, id integer NOT NULL, row_hash integer NULL)",
      );
    } finally {
      await db.close();
    }
    expect(map(url, ndjson("p.ndjson", patient("a")))).toEqual({
      code: 2,
      lines: [
        `crossmap: ${url}: crossmap_id_map has the one-row-per-id form of an earlier crossmap version; load into a fresh database (crossmap db init)`,
      ],
    });
  });

  it("rolls back a batch the database refuses, says which table and what it said, and keeps the batches before it", async () => {
    const url = join(temp, "refused.duckdb");
    expect(cliProcess("db", "init", url, "-q")).toEqual({ code: 0, lines: [] });
    expect(map(url, ndjson("ok.ndjson", patient("a"))).code).toBe(0);
    // DuckDB's official DDL makes value_as_number DECIMAL(18,3): 1e20 does not fit.
    const observation = {
      resourceType: "Observation",
      id: "o1",
      status: "final",
      code: { coding: [{ system: "http://loinc.org", code: "8302-2" }] },
      subject: { reference: "Patient/b" },
      effectiveDateTime: "2020-01-01",
      valueQuantity: { value: 1e20, unit: "cm" },
    };
    const r = map(url, ndjson("bad.ndjson", patient("b"), observation));
    expect(r.code).toBe(2);
    expect(r.lines.at(-1)).toMatch(
      new RegExp(
        `^crossmap: ${url.replaceAll(".", "\\.")}: a batch of 2 rows was rolled back: measurement: Conversion Error: CSV Error on Line: 1: Error when converting column "value_as_number"\\. Could not convert string "100000000000000000000" to 'DECIMAL'; 0 rows were committed before it$`,
      ),
    );
    const db = await openDatabase(url);
    try {
      expect(await db.query("SELECT person_source_value FROM person")).toEqual([
        { person_source_value: "a" },
      ]);
      expect(await db.query("SELECT count(*) AS n FROM measurement")).toEqual([{ n: 0 }]);
      expect(await db.query("SELECT namespace, ids, row_hashes FROM crossmap_id_map ORDER BY 1")).toEqual([
        { namespace: "person", ids: "1", row_hashes: expect.stringMatching(/^-?[1-9]\d*$/) },
      ]);
    } finally {
      await db.close();
    }
  });

  it("loads a FHIR leap second (DuckDB refuses second 60 for the whole batch) as second 59, with a warning", async () => {
    const url = join(temp, "leap.duckdb");
    expect(cliProcess("db", "init", url, "-q")).toEqual({ code: 0, lines: [] });
    const condition = {
      resourceType: "Condition",
      id: "c1",
      code: { coding: [{ system: "http://snomed.info/sct", code: "44054006" }] },
      subject: { reference: "Patient/a" },
      onsetDateTime: "2016-12-31T23:59:60Z",
    };
    const r = map(url, ndjson("leap.ndjson", patient("a"), condition));
    expect(r.code).toBe(0);
    expect(r.lines.join("\n")).toContain("precision_reduced 1");
    const db = await openDatabase(url);
    try {
      expect(
        await db.query(
          "SELECT CAST(condition_start_datetime AS varchar) AS t FROM condition_occurrence JOIN person USING (person_id)",
        ),
      ).toEqual([{ t: "2016-12-31 23:59:59" }]);
    } finally {
      await db.close();
    }
  });

  it("db finish on a DuckDB file that is not there: one line, exit 2, no file made", () => {
    const url = join(temp, "absent-finish.duckdb");
    expect(cliProcess("db", "finish", url)).toEqual({
      code: 2,
      lines: [`crossmap: ${url}: no such file, so no CDM tables; create them with \`crossmap db init\``],
    });
    expect(existsSync(url)).toBe(false);
  });

  it("db finish names each foreign key the rows break, applies none of those, exit 2", () => {
    const url = join(temp, "dangling.duckdb");
    expect(cliProcess("db", "init", url, "--vocab-dir", vocab, "-q").code).toBe(0);
    const condition = {
      resourceType: "Condition",
      id: "c1",
      code: { coding: [{ system: "http://snomed.info/sct", code: "44054006" }] },
      subject: { reference: "Patient/nobody" },
      onsetDateTime: "2020-01-01",
    };
    expect(map(url, ndjson("c.ndjson", patient("a"), condition)).code).toBe(0);
    const r = cliProcess("db", "finish", url);
    expect(r.code).toBe(2);
    expect(r.lines.slice(-2)).toEqual([
      `crossmap: ${url}: 1 official constraint(s) not in force:`,
      "  condition_occurrence: fpk_condition_occurrence_person_id: foreign key (person_id) -> person not verified: 1 rows name a person that is not there, first person_id 2",
    ]);
  });
});
