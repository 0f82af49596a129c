import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

const conditions = "test/fixtures/map/synthea27nj/CONDITION_OCCURRENCE.csv";

describe("crossmap map --vocab", () => {
  it("opens the index in every mapping thread and names concepts through it", async () => {
    const index = join(mkdtempSync(join(tmpdir(), "crossmap-vocab-")), "index");
    const build = await runCli(["vocab", "build", "vocab", "--out", index]);
    expect(build.code).toBe(0);
    for (const workers of ["1", "2"]) {
      const r = await runCli([
        "map",
        "-q",
        "--from",
        "omop_cdm_v5.4",
        "--to",
        "fhir_r4",
        "--vocab",
        index,
        "--workers",
        workers,
        conditions,
      ]);
      const first = JSON.parse(r.stdout.split("\n")[0]!);
      // The vocabulary names the standard coding (the concept's name is its display, not the text).
      expect(first.code.coding[0]).toMatchObject({
        system: "http://snomed.info/sct",
        display: "Otitis media",
      });
      expect(r.stdout.trimEnd().split("\n")).toHaveLength(470);
    }
  });

  it("exits 2 when the folder holds no index", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crossmap-novocab-"));
    const r = await runCli(["map", "--from", "omop_cdm_v5.4", "--to", "fhir_r4", "--vocab", dir, conditions]);
    expect(r).toEqual({
      code: 2,
      stdout: "",
      stderr: `crossmap: ${dir} holds no vocabulary index (expected vocab.mdb); build one with \`crossmap vocab build\`\n`,
    });
  });
});
