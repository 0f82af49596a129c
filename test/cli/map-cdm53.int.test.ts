// An OMOP CDM v5.3 export mapped with the built-in v5.4 crossmap: the columns v5.4 renamed are read under
// either name, and a column the crossmap does not read is an `unread_column` warning, once per file and
// entity, in --errors and the summary.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot, runCli } from "./run-cli.js";

const CDM53 = join(repoRoot, "test/fixtures/map/cdm53");
const tmp = mkdtempSync(join(tmpdir(), "crossmap-cdm53-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// biome-ignore lint/suspicious/noExplicitAny: FHIR resources read in assertions
type Json = Record<string, any>;

describe("crossmap map of a CDM v5.3 export", () => {
  it("maps admitting_source_*, discharge_to_* and visit_detail_parent_id as their v5.4 names", async () => {
    const r = await runCli([
      "map",
      "-q",
      "--from",
      "omop",
      "--to",
      "fhir",
      "--out-dir",
      join(tmp, "out"),
      CDM53,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const encounters: Json[] = readFileSync(join(tmp, "out", "Encounter.ndjson"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const byId = new Map(encounters.map((e) => [e.id, e]));
    expect(byId.get("21")?.hospitalization).toEqual({
      admitSource: {
        coding: [{ system: "https://fhir-terminology.ohdsi.org", code: "8870" }],
        text: "EMERGENCY ROOM",
      },
      dischargeDisposition: {
        coding: [
          { system: "https://fhir-terminology.ohdsi.org", code: "4216643" },
          { code: "DIED", userSelected: true },
        ],
      },
    });
    expect(byId.get("visit-detail-32")?.hospitalization.dischargeDisposition.coding[1]).toEqual({
      code: "DIED",
      userSelected: true,
    });
    expect(byId.get("visit-detail-32")?.extension[1]).toEqual({
      url: "https://crossmap.dev/fhir/StructureDefinition/omop-parent-visit-detail",
      valueReference: { reference: "Encounter/visit-detail-31" },
    });
  });

  it("reports a column no field mapping reads once per file, in --errors and the summary", async () => {
    const errors = join(tmp, "issues.ndjson");
    const summary = join(tmp, "summary.json");
    const r = await runCli(
      [
        "map",
        "--from",
        "omop",
        "--to",
        "fhir",
        "-o",
        join(tmp, "all.ndjson"),
        "--errors",
        errors,
        "--summary",
        summary,
      ].concat([join(CDM53, "VISIT_OCCURRENCE.csv"), join(CDM53, "VISIT_DETAIL.csv")]),
    );
    expect(r.code).toBe(0);
    expect(
      readFileSync(errors, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([
      {
        file: join(CDM53, "VISIT_OCCURRENCE.csv"),
        line: 2,
        entity: "visit_occurrence",
        field: "visit_occurrence.site_ward",
        code: "unread_column",
        severity: "warning",
        message:
          "not read by the omop_cdm_v5.4 -> fhir_r4 crossmap: the values in this file are not mapped (reported once per file and entity)",
      },
    ]);
    expect(JSON.parse(readFileSync(summary, "utf8"))).toMatchObject({
      records_in: 4,
      warnings: 1,
      issues_by_code: { unread_column: 1 },
    });
  });
});
