// `crossmap roundtrip` as a user runs it: a real process over hand-written rows at the edges (64-bit and negative
// ids, a padded source code, a free-text source value, an unknown concept, partial dates of birth), the exact
// report, its JSON form and the exit codes of --min-rows / --min-values.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

const dir = mkdtempSync(join(tmpdir(), "crossmap-roundtrip-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const rows = "test/fixtures/roundtrip";
const args = ["roundtrip", "--from", "omop_cdm_v5.4", "--via", "fhir_r4"];

describe("crossmap roundtrip", () => {
  it("prints rows and values back per table and the columns that did not survive, with an example", async () => {
    const r = await runCli([...args, rows]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(
      [
        "omop_cdm_v5.4 -> fhir_r4 -> omop_cdm_v5.4 (no vocabulary)",
        "table                 rows     rows back  values   values back",
        "condition_occurrence     2  2 (100.00 %)      21  20 (95.23 %)",
        "person                   2  2 (100.00 %)      23  21 (91.30 %)",
        "total                    4  4 (100.00 %)      44  41 (93.18 %)",
        "",
        "columns that did not survive (rows; first example: key, value before -> after):",
        '  condition_occurrence.condition_source_value: 1 (-5: "78791  " -> "78791")',
        // A person with race and ethnicity 0 and no source value: OMOP -> FHIR writes nothing for them, and
        // FHIR -> OMOP leaves a nullable source concept column empty when the resource has nothing for it
        // (the CDM convention, issue 28): 0 comes back as null.
        '  person.ethnicity_source_concept_id: 1 (9223372036854775807: "0" -> (absent))',
        '  person.race_source_concept_id: 1 (9223372036854775807: "0" -> (absent))',
        "",
      ].join("\n"),
    );
    expect(r.code).toBe(0);
  });
  it("writes the report as JSON, and exits 1 when less than --min-values came back", async () => {
    const file = join(dir, "report.json");
    const r = await runCli([...args, "--min-rows", "100", "--min-values", "99", "--report", file, rows]);
    expect(r.code).toBe(1);
    const report = JSON.parse(readFileSync(file, "utf8"));
    expect(report.total).toEqual({
      rows: 4,
      rows_back: 4,
      rows_back_pct: 100,
      values: 44,
      values_back: 41,
      values_back_pct: 93.18,
    });
    expect(report.tables[1]).toEqual({
      table: "person",
      rows: 2,
      rows_back: 2,
      rows_back_pct: 100,
      values: 23,
      values_back: 21,
      values_back_pct: 91.3,
      lost_columns: ["ethnicity_source_concept_id", "race_source_concept_id"].map((column) => ({
        column,
        rows: 1,
        example: { key: "9223372036854775807", before: "0", after: null },
      })),
      added_columns: {},
      other_rows: {},
    });
    expect((await runCli([...args, "--min-rows", "100", "--min-values", "93", rows])).code).toBe(0);
  });
  it("is a usage error without --via, or with an unknown standard pair", async () => {
    const r = await runCli(["roundtrip", "--from", "omop_cdm_v5.4", rows]);
    expect([r.code, r.stderr]).toEqual([
      2,
      "crossmap: give --from and --via (or --crossmap twice: there, then back)\n",
    ]);
    const u = await runCli(["roundtrip", "--from", "omop_cdm_v5.4", "--via", "hl7v2_2.5.1", rows]);
    expect(u.code).toBe(2);
    expect(u.stderr).toMatch(/^crossmap: no built-in crossmap from omop_cdm_v5.4 to hl7v2_2.5.1/);
  });
});
