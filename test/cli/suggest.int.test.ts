// `crossmap suggest` as a user runs it: the source terms of the OMOP, FHIR and HL7 v2 samples with their
// frequencies (counted here independently of the collector), NDJSON and Usagi CSV out, a site's term
// list, and pushes to a project's data directory that never touch a decided item.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStores } from "../../src/store/env.js";
import { buildVocabulary } from "../../src/vocab/build.js";
import { repoRoot, runCli } from "./run-cli.js";

let dir: string;
let vocab: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "suggest-cli-"));
  vocab = join(dir, "index");
  await buildVocabulary({ sourceDir: join(repoRoot, "vocab"), outDir: vocab });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Line {
  source_code: string | null;
  source_description: string | null;
  source_vocabulary: string | null;
  frequency: number;
  fields: string[];
  candidates: { concept_id: number; score: number; match: string }[];
}
const readLines = (file: string): Line[] =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Line);
const find = (lines: Line[], code: string, field: string) =>
  lines.find((l) => l.source_code === code && l.fields.includes(field));

describe("crossmap suggest over records", () => {
  it("OMOP tables: each source value once, with the rows that hold it, and its concept first", async () => {
    const out = join(dir, "omop.ndjson");
    const r = await runCli([
      "suggest",
      "test/fixtures/synthea27nj",
      "--from",
      "omop",
      "--vocab",
      vocab,
      "--out",
      out,
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("VISIT_DETAIL is not a table whose source terms are declared");
    const lines = readLines(out);
    const rows = Papa.parse<Record<string, string>>(
      readFileSync(join(repoRoot, "test/fixtures/synthea27nj/MEASUREMENT.csv"), "utf8"),
      { header: true, skipEmptyLines: true },
    ).data;
    const count = (column: string, value: string) => rows.filter((x) => x[column] === value).length;
    expect(find(lines, "mg/dL", "measurement.unit_source_value")).toMatchObject({
      source_vocabulary: "UCUM",
      frequency: count("unit_source_value", "mg/dL"),
      candidates: [{ concept_id: 8840, score: 1, match: "code" }, {}],
    });
    const code = rows[0]!.measurement_source_value!;
    expect(find(lines, code, "measurement.measurement_source_value")?.frequency).toBe(
      count("measurement_source_value", code),
    );
    expect(JSON.parse(r.stdout)).toMatchObject({
      terms: lines.length,
      records: { measurement: rows.length },
    });
    // Most frequent first.
    const freqs = lines.map((l) => l.frequency);
    expect([...freqs].sort((a, b) => b - a)).toEqual(freqs);
  });

  it("FHIR Bundles: codings with their systems as vocabularies and their displays", async () => {
    const out = join(dir, "fhir.ndjson");
    const usagi = join(dir, "fhir.csv");
    const r = await runCli([
      "suggest",
      "test/fixtures/fhir/synthea",
      "--from",
      "fhir",
      "--vocab",
      vocab,
      "--out",
      out,
      "--usagi",
      usagi,
    ]);
    expect(r.code).toBe(0);
    const folder = join(repoRoot, "test/fixtures/fhir/synthea");
    let flu = 0;
    for (const f of readdirSync(folder).filter((n) => n.endsWith(".json"))) {
      const bundle = JSON.parse(readFileSync(join(folder, f), "utf8")) as {
        entry: { resource: { resourceType: string; vaccineCode?: { coding?: { code: string }[] } } }[];
      };
      for (const { resource } of bundle.entry) {
        if (
          resource.resourceType === "Immunization" &&
          resource.vaccineCode?.coding?.some((c) => c.code === "140")
        )
          flu++;
      }
    }
    const lines = readLines(out);
    expect(find(lines, "140", "Immunization.vaccineCode")).toMatchObject({
      source_description: "Influenza, seasonal, injectable, preservative free",
      source_vocabulary: "CVX",
      frequency: flu,
    });
    expect(find(lines, "140", "Immunization.vaccineCode")?.candidates[0]).toMatchObject({
      concept_id: 40213154,
      score: 1,
      match: "code",
    });
    const csv = Papa.parse<Record<string, string>>(readFileSync(usagi, "utf8"), {
      header: true,
      skipEmptyLines: true,
    });
    expect(csv.meta.fields?.slice(0, 6)).toEqual([
      "sourceCode",
      "sourceName",
      "sourceFrequency",
      "sourceAutoAssignedConceptIds",
      "matchScore",
      "mappingStatus",
    ]);
    expect(csv.data.find((x) => x.sourceCode === "140")).toMatchObject({
      sourceFrequency: String(flu),
      conceptId: "40213154",
      mappingStatus: "UNCHECKED",
      createdBy: "<auto>",
    });
  });

  it("HL7 v2 messages: coded fields and user-table codes, counted per segment", async () => {
    const out = join(dir, "hl7.ndjson");
    const r = await runCli([
      "suggest",
      "test/fixtures/hl7v2/samples",
      "--from",
      "hl7v2",
      "--vocab",
      vocab,
      "--out",
      out,
    ]);
    expect(r.code).toBe(0);
    const folder = join(repoRoot, "test/fixtures/hl7v2/samples");
    let male = 0;
    for (const f of readdirSync(folder).filter((n) => n.endsWith(".hl7"))) {
      for (const seg of readFileSync(join(folder, f), "utf8").split(/\r\n|\r|\n/)) {
        if (seg.startsWith("PID|") && seg.split("|")[8] === "M") male++;
      }
    }
    expect(male).toBeGreaterThan(0);
    expect(find(readLines(out), "M", "PID.8")).toMatchObject({
      source_vocabulary: "HL70001",
      frequency: male,
      candidates: [{ concept_id: 8507 }],
    });
  });
});

describe("crossmap suggest over a term list, pushed to a project", () => {
  it("ranks a site's list and a second push leaves decided items untouched", async () => {
    const list = join(dir, "terms.csv");
    writeFileSync(list, "code,name,count\nL1,HGB A1C,40\nL2,hemoglobn a1c,3\nL1,HGB A1C,2\nL3,,1\n");
    const data = join(dir, "data");
    const created = await runCli(["projects", "create", "labs", "--data-dir", data, "--init"]);
    const project = (JSON.parse(created.stdout) as { id: string }).id;
    const args = [
      "suggest",
      "--csv",
      list,
      "--description-column",
      "name",
      "--code-column",
      "code",
      "--frequency-column",
      "count",
      "--vocab",
      vocab,
      "--domain",
      "Measurement",
      "--project",
      project,
      "--data-dir",
      data,
    ];
    const first = await runCli(args);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      terms: 3,
      pushed: { created: 3, updated: 0, unchanged: 0, skipped: 0 },
    });
    // A reviewer decides L1 (candidate 2 of its list) in the data directory.
    const stores = openStores(data);
    const l1 = stores.conceptItems.list(project).items.find((i) => i.source_code === "L1")!;
    expect(l1).toMatchObject({
      source_frequency: 42,
      source_description: "HGB A1C",
      target_concept_id: 3004410,
    });
    await stores.write(() =>
      stores.conceptItems.put(project, {
        ...l1,
        method: "override",
        target_concept_id: 3000963,
        version: 2,
        reviewed_at: "2026-01-01T00:00:00.000Z",
      }),
    );
    await stores.close();
    writeFileSync(list, "code,name,count\nL1,HGB A1C,50\nL2,hemoglobn a1c,9\n");
    const second = await runCli(args);
    expect(JSON.parse(second.stdout)).toMatchObject({
      pushed: { created: 0, updated: 1, unchanged: 0, skipped: 1 },
    });
    const after = openStores(data);
    try {
      const items = after.conceptItems.list(project).items;
      expect(items.find((i) => i.source_code === "L1")).toMatchObject({
        source_frequency: 42,
        target_concept_id: 3000963,
        version: 2,
      });
      expect(items.find((i) => i.source_code === "L2")).toMatchObject({
        source_frequency: 9,
        target_concept_id: 3004410,
        version: 2,
      });
    } finally {
      await after.close();
    }
  });

  it("says where the suggestions go when no output is given", async () => {
    const r = await runCli(["suggest", "test/fixtures/synthea27nj", "--from", "omop", "--vocab", vocab]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("say where the suggestions go: --out FILE, --usagi FILE and/or --project P");
  });
});
