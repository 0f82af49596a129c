// `crossmap demo` as a user runs it: a real process, the bundled OMOP sample and vocabulary, FHIR out.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, expect, it } from "vitest";
import { fhirProblems } from "../support/fhir.js";

const dir = mkdtempSync(join(tmpdir(), "crossmap-demo-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("maps every bundled OMOP record to valid FHIR R4 with real codes, with exit 0 and a summary", () => {
  const stdout = execFileSync(process.execPath, [resolve("bin/crossmap.js"), "demo", "--out-dir", "out"], {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  expect(stdout).toContain("out/fhir/Patient.ndjson: 28 resources");
  const summary = JSON.parse(readFileSync(join(dir, "out", "summary.json"), "utf8"));
  expect(summary).toMatchObject({
    records_in: 24850,
    records_out: 24850,
    records_failed: 0,
    errors: 0,
    completed: true,
  });
  const conditions = readFileSync(join(dir, "out", "fhir", "Condition.ndjson"), "utf8")
    .trim()
    .split("\n");
  expect(conditions).toHaveLength(470);
  const first = JSON.parse(conditions[0] as string);
  expect(first.code.coding).toEqual([
    { system: "http://snomed.info/sct", code: "65363002", display: "Otitis media", userSelected: true },
    { system: "https://fhir-terminology.ohdsi.org", code: "372328", display: "Otitis media" },
  ]);
  for (const line of conditions) expect(fhirProblems(JSON.parse(line))).toEqual([]);
});
