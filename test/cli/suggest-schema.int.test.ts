// `crossmap suggest --schema` as a user runs it: a site's extract tables (CSV), FHIR resources and HL7 v2
// messages profiled column by column, each with the target standard's ranked table.column candidates as
// NDJSON, and pushed to a project as schema items whose second push never touches a decided one.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStores } from "../../src/store/env.js";
import { runCli } from "./run-cli.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "suggest-schema-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Line {
  source_table: string;
  source_column: string;
  kind: string;
  records: number;
  filled: number;
  samples: string[];
  candidates: { target_table: string; target_column: string; score: number }[];
}
const lines = (file: string): Line[] =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Line);
const top = (ls: Line[], table: string, column: string) => {
  const c = ls.find((l) => l.source_table === table && l.source_column === column)?.candidates[0];
  return c && `${c.target_table}.${c.target_column}`;
};

describe("crossmap suggest --schema", () => {
  it("ranks OMOP columns for each column of a site's CSV tables, one NDJSON line each", async () => {
    const out = join(dir, "site.ndjson");
    const r = await runCli([
      "suggest",
      "--schema",
      "test/fixtures/schema-suggest/site",
      "--to",
      "omop",
      "--candidates",
      "3",
      "--out",
      out,
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      columns: 47,
      with_candidates: 47,
      records: { diagnoses: 7, encounters: 6, labs: 7, meds: 5, patients: 7, procedures: 4 },
    });
    const ls = lines(out);
    const dob = ls.find((l) => l.source_table === "patients" && l.source_column === "dob")!;
    expect({ ...dob, candidates: dob.candidates.slice(0, 1) }).toEqual({
      source_table: "patients",
      source_column: "dob",
      kind: "date",
      records: 7,
      filled: 7,
      samples: ["1954-03-12", "1987-11-02", "2001-06-30", "1949-01-17", "1972-09-09"],
      candidates: [{ target_table: "person", target_column: "birth_datetime", score: 0.924 }],
    });
    expect(dob.candidates).toHaveLength(3);
    // death_dt is filled in 2 of 7 rows; the values decide between same-named columns.
    expect(ls.find((l) => l.source_column === "death_dt")).toMatchObject({ filled: 2, kind: "date" });
    expect(top(ls, "patients", "death_dt")).toBe("death.death_date");
    expect(top(ls, "labs", "result_num")).toBe("measurement.value_as_number");
    expect(top(ls, "labs", "collected_dttm")).toBe("measurement.measurement_datetime");
    expect(top(ls, "meds", "ndc")).toBe("drug_exposure.drug_source_value");
    expect(top(ls, "encounters", "admit_dt")).toBe("visit_occurrence.visit_start_date");
  });

  it("reads FHIR resources and HL7 v2 segments as tables, their leaves and fields as columns", async () => {
    const fhir = join(dir, "fhir.ndjson");
    const f = await runCli([
      "suggest",
      "--schema",
      "test/fixtures/fhir/synthea",
      "--from",
      "fhir",
      "--to",
      "omop",
      "--out",
      fhir,
    ]);
    expect(f.code).toBe(0);
    expect(top(lines(fhir), "Patient", "birthDate")).toBe("person.birth_datetime");
    const hl7 = join(dir, "hl7.ndjson");
    const h = await runCli([
      "suggest",
      "--schema",
      "test/fixtures/hl7v2/samples",
      "--from",
      "hl7v2",
      "--to",
      "omop",
      "--out",
      hl7,
    ]);
    expect(h.code).toBe(0);
    const ls = lines(hl7);
    expect(top(ls, "PID", "PID.7")).toBe("person.birth_datetime");
    expect(top(ls, "PID", "PID.8")).toBe("person.gender_source_value");
    // MSH-1 and MSH-2 are the message's delimiters, not columns.
    expect(ls.filter((l) => l.source_table === "MSH").map((l) => l.source_column)).not.toContain("MSH.1");
  });

  it("pushes schema items with candidates; a second push updates those awaiting review only", async () => {
    const data = join(dir, "data");
    const created = await runCli(["projects", "create", "site", "--data-dir", data, "--init"]);
    const project = (JSON.parse(created.stdout) as { id: string }).id;
    const table = join(dir, "patients.csv");
    writeFileSync(table, "mrn,dob,sex\nMRN1,1954-03-12,F\nMRN2,1987-11-02,M\n");
    const args = [
      "suggest",
      "--schema",
      table,
      "--to",
      "omop",
      "--candidates",
      "2",
      "--project",
      project,
      "--data-dir",
      data,
    ];
    const first = await runCli(args);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      columns: 3,
      pushed: { created: 3, updated: 0, unchanged: 0, skipped: 0 },
    });
    const stores = openStores(data);
    const items = stores.schemaItems.list(project).items;
    const dob = items.find((i) => i.source_column === "dob")!;
    expect(dob).toMatchObject({
      source_table: "patients",
      target_table: "person",
      target_column: "birth_datetime",
      confidence: 0.924,
      status: "needs_review",
    });
    expect(dob.candidates).toHaveLength(2);
    const sex = items.find((i) => i.source_column === "sex")!;
    // A reviewer overrides sex.
    await stores.write(() =>
      stores.schemaItems.put(project, {
        ...sex,
        status: "overridden",
        target_column: "gender_concept_id",
        version: 2,
        reviewed_at: "2026-01-01T00:00:00.000Z",
      }),
    );
    await stores.close();
    const second = await runCli([...args.slice(0, 6), "3", ...args.slice(7)]);
    expect(JSON.parse(second.stdout)).toMatchObject({
      pushed: { created: 0, updated: 2, unchanged: 0, skipped: 1 },
    });
    const after = openStores(data);
    try {
      const again = after.schemaItems.list(project).items;
      expect(again.find((i) => i.source_column === "sex")).toMatchObject({
        status: "overridden",
        target_column: "gender_concept_id",
        version: 2,
        candidates: sex.candidates,
      });
      expect(again.find((i) => i.source_column === "dob")).toMatchObject({
        status: "needs_review",
        version: 2,
      });
      expect(again.find((i) => i.source_column === "dob")!.candidates).toHaveLength(3);
    } finally {
      await after.close();
    }
  });

  it("says what it needs", async () => {
    const noTo = await runCli([
      "suggest",
      "--schema",
      "test/fixtures/schema-suggest/site",
      "--out",
      join(dir, "x"),
    ]);
    expect(noTo.code).not.toBe(0);
    expect(noTo.stderr).toContain("--schema needs --to STANDARD, the target of the columns");
    const noVocab = await runCli([
      "suggest",
      "--csv",
      "x.csv",
      "--description-column",
      "d",
      "--out",
      join(dir, "y"),
    ]);
    expect(noVocab.stderr).toContain("give --vocab DIR, the index to rank concepts from");
  });
});
