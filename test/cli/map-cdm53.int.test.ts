// An OMOP CDM v5.3 export mapped with the built-in v5.4 crossmap: the columns v5.4 renamed are read under
// either name.
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
});
