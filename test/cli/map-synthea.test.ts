import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listBuiltinCrossmaps } from "../../src/crossmap/catalog.js";
import { repoRoot, runCli } from "./run-cli.js";

// The bundled Synthea27Nj OMOP export: every clinical table the built-in crossmap maps.
const folder = join(repoRoot, "test", "fixtures", "synthea27nj");

/** Data rows of a CSV table with no quoted newlines (true of this export). */
const rowCount = (file: string) => readFileSync(file, "utf8").trimEnd().split("\n").length - 1;

describe("crossmap map with the built-in OMOP -> FHIR crossmap on Synthea27Nj", () => {
  it("maps the folder in one command, with counts in = counts out for every table it covers", async () => {
    const builtin = listBuiltinCrossmaps().find(
      (e) => e.source === "omop_cdm_v5.4" && e.target === "fhir_r4",
    );
    expect(builtin).toBeDefined();
    const out = mkdtempSync(join(tmpdir(), "crossmap-synthea-"));
    const r = await runCli(
      ["map", "-q", "--from", "omop_cdm_v5.4", "--to", "fhir_r4", "--out-dir", join(out, "fhir")].concat([
        "--summary",
        join(out, "summary.json"),
        folder,
      ]),
    );
    expect(r.stderr).toBe("");
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    const tables = readdirSync(folder).filter((f) => f.endsWith(".csv"));
    // Several tables may map to one target entity (measurement and observation -> Observation).
    const byTarget = new Map<string, number>();
    let expected = 0;
    for (const [source, target] of Object.entries(builtin!.entity_map)) {
      // One row, one resource: this test covers tables the crossmap maps one to one.
      if (typeof target !== "string")
        throw new Error(`${source} maps to several entities: ${target.join(", ")}`);
      const table = tables.find((t) => t.toLowerCase() === `${source}.csv`);
      if (!table) continue;
      const rows = rowCount(join(folder, table));
      expected += rows;
      byTarget.set(target, (byTarget.get(target) ?? 0) + rows);
    }
    for (const [target, rows] of byTarget) {
      const written = readFileSync(join(out, "fhir", `${target}.ndjson`), "utf8")
        .trimEnd()
        .split("\n");
      expect([target, written.length]).toEqual([target, rows]);
    }
    expect(expected).toBeGreaterThanOrEqual(28);
    expect(summary).toMatchObject({
      records_in: expected,
      records_out: expected,
      records_failed: 0,
      completed: true,
    });
    expect(r.code).toBe(summary.errors === 0 ? 0 : 1);
  });
});
