// `crossmap list` as a user runs it: the built-in crossmaps as JSON, with the parameters `map --param` sets.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = new URL("../..", import.meta.url).pathname;
const exec = promisify(execFile);

describe("crossmap list", () => {
  it("names each built-in crossmap's parameters with their defaults, and none for a crossmap without", async () => {
    const { stdout } = await exec(process.execPath, [join(root, "bin/crossmap.js"), "list"], { cwd: root });
    const listed = JSON.parse(stdout) as {
      crossmaps: { file: string; parameters?: Record<string, { default?: string; description?: string }> }[];
      total: number;
    };
    expect(listed.total).toBe(listed.crossmaps.length);
    const byFile = new Map(listed.crossmaps.map((c) => [c.file, c.parameters]));
    const omop = byFile.get("fhir_r4-to-omop_cdm_v5.4.yaml");
    expect(Object.keys(omop ?? {})).toEqual(["extract_date"]);
    expect(omop?.extract_date?.default).toBe("");
    expect(omop?.extract_date?.description).toMatch(/data pull/);
    expect(Object.keys(byFile.get("omop_cdm_v5.4-to-openehr_1.0.4.yaml") ?? {})).toEqual([
      "language",
      "territory",
      "composer",
    ]);
    expect(byFile.has("hl7v2_2.5.1-to-fhir_r4.yaml")).toBe(true);
    expect(byFile.get("hl7v2_2.5.1-to-fhir_r4.yaml")).toBeUndefined();
  });
});
