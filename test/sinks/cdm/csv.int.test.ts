// `map --out-dir DIR --out-format csv`: one CSV per table as OHDSI ships them (PERSON.csv, header row, DDL
// column order, empty for null, ISO dates) that PostgreSQL's COPY loads as they are; with --id-map the same
// records get the same ids in every run; shared records (Organization, Practitioner) are written once.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { initDatabase } from "../../../src/sinks/cdm/init.js";
import { openDatabase, qualified } from "../../../src/sinks/db/client.js";
import { cliProcess, FHIR_BUNDLES } from "./support.js";

const temp = mkdtempSync(join(tmpdir(), "crossmap-cdm-csv-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const csv = (out: string, idMap: string, ...files: string[]) =>
  cliProcess(
    "map",
    "--from",
    "fhir_r4",
    "--to",
    "omop_cdm_v5.4",
    "--format",
    "fhir-bundle",
    "--workers",
    "1",
    "--out-dir",
    out,
    "--out-format",
    "csv",
    "--id-map",
    idMap,
    ...files,
  );
const read = (dir: string, file: string) => readFileSync(join(dir, file), "utf8");
const rowsOf = (dir: string, file: string) => read(dir, file).trimEnd().split("\n").slice(1);

describe("map --out-format csv", () => {
  it("writes OHDSI-shaped CSV files whose ids stay the same across runs with --id-map", () => {
    const idMap = join(temp, "ids");
    const first = join(temp, "first");
    expect(csv(first, idMap, ...FHIR_BUNDLES.slice(0, 3)).code).toBe(0);
    expect(readdirSync(first).sort()).toEqual([
      "CARE_SITE.csv",
      "CONDITION_OCCURRENCE.csv",
      "COST.csv",
      "DRUG_EXPOSURE.csv",
      "LOCATION.csv",
      "MEASUREMENT.csv",
      "OBSERVATION.csv",
      "PAYER_PLAN_PERIOD.csv",
      "PERSON.csv",
      "PROCEDURE_OCCURRENCE.csv",
      "PROVIDER.csv",
      "VISIT_OCCURRENCE.csv",
    ]);
    expect(read(first, "PERSON.csv").split("\n")[0]).toBe(
      "person_id,gender_concept_id,year_of_birth,month_of_birth,day_of_birth,birth_datetime,race_concept_id," +
        "ethnicity_concept_id,location_id,provider_id,care_site_id,person_source_value,gender_source_value," +
        "gender_source_concept_id,race_source_value,race_source_concept_id,ethnicity_source_value,ethnicity_source_concept_id",
    );
    const people = rowsOf(first, "PERSON.csv");
    expect(people.map((r) => r.split(",")[0])).toEqual(["1", "2", "3"]);
    expect(people[0]).toMatch(
      /^1,8507,1993,6,7,1993-06-07 00:00:00,0,38003564,1,,,4e8ed886-fd5f-40bb-8feb-f339b04d853a,male,0,Other,,,$/,
    );

    // The same input again: the same files, byte for byte.
    const again = join(temp, "again");
    expect(csv(again, idMap, ...FHIR_BUNDLES.slice(0, 3)).code).toBe(0);
    for (const f of readdirSync(first)) expect(read(again, f)).toBe(read(first, f));

    // All six: the first three patients keep their ids; the other three come after them.
    const all = join(temp, "all");
    expect(csv(all, idMap, ...FHIR_BUNDLES).code).toBe(0);
    const everyone = rowsOf(all, "PERSON.csv");
    expect(everyone).toHaveLength(6);
    for (const p of people) expect(everyone).toContain(p);
    expect(everyone.map((r) => Number(r.split(",")[0])).sort()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("writes an Organization and a Practitioner several Bundles share once, and names a copy that differs", () => {
    const org = (name: string) => ({ resource: { resourceType: "Organization", id: "org-1", name } });
    const doc = {
      resource: { resourceType: "Practitioner", id: "dr-1", name: [{ family: "Hansen" }], gender: "female" },
    };
    const bundle = (patient: string, orgName: string) => ({
      resourceType: "Bundle",
      type: "collection",
      entry: [
        { resource: { resourceType: "Patient", id: patient, gender: "male", birthDate: "1970-05-06" } },
        org(orgName),
        doc,
      ],
    });
    const a = join(temp, "a.json");
    const b = join(temp, "b.json");
    writeFileSync(a, JSON.stringify(bundle("p-1", "General Hospital")));
    writeFileSync(b, JSON.stringify(bundle("p-2", "General Hospital (renamed)")));
    const out = join(temp, "shared");
    const r = csv(out, join(temp, "shared-ids"), a, b);
    expect(r.code).toBe(0);
    expect(rowsOf(out, "CARE_SITE.csv")).toEqual(["1,General Hospital,,,org-1,"]);
    expect(rowsOf(out, "PROVIDER.csv")).toEqual(["1,Hansen,,,,,,8532,dr-1,,,female,"]);
    expect(rowsOf(out, "PERSON.csv").map((p) => p.split(",").slice(0, 3).join(","))).toEqual([
      "1,8507,1970",
      "2,8507,1970",
    ]);
    expect(r.lines).toContain(
      "care_site: warning duplicate_differs: care_site care_site_id 1 (source id 4775935082734248934) was written before with other values; the first is kept",
    );
  });

  it("gives files that PostgreSQL's COPY loads as they are into the official DDL", async () => {
    const db = await openDatabase("pglite:memory");
    try {
      await initDatabase(db);
      const dir = join(temp, "first");
      for (const f of readdirSync(dir)) {
        const table = f.replace(/\.csv$/, "").toLowerCase();
        const [header, ...lines] = read(dir, f).split("\n");
        await db.copyIn(table, header!.split(","), [lines.join("\n")]);
      }
      const [n] = await db.query<{ n: number }>(`SELECT count(*) AS n FROM ${qualified(db, "measurement")}`);
      expect(n!.n).toBe(rowsOf(dir, "MEASUREMENT.csv").length);
    } finally {
      await db.close();
    }
  });
});
