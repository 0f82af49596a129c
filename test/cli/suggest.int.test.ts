// `crossmap suggest` as a user runs it: the source terms of the OMOP, FHIR and HL7 v2 samples with their
// frequencies (counted here independently of the collector), NDJSON and Usagi CSV out, a site's term
// list, and pushes to a project's data directory that never touch a decided item.
import { spawn } from "node:child_process";
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

/** `crossmap serve --port 0` as a process; resolves with its URL and the admin key it printed once. */
async function serve(data: string) {
  const proc = spawn(
    process.execPath,
    [join(repoRoot, "bin/crossmap.js"), "serve", "--port", "0", "--data-dir", data, "--init"],
    {
      cwd: repoRoot,
    },
  );
  let out = "";
  let err = "";
  proc.stderr.on("data", (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout.on("data", (d) => {
      out += d;
      const m = /"msg":"listening","url":"([^"]+)"/.exec(out);
      if (m) resolve(m[1]!);
    });
    exited.then((code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  const admin = /It is shown only this once:\n(cmk_\S+)\n/.exec(err)![1]!;
  return { proc, url, admin, exited };
}

describe("crossmap suggest --server: pushed over HTTP to a running crossmap serve", () => {
  it("creates items with candidates, then updates those awaiting review and skips the decided one", async () => {
    const data = join(dir, "served");
    const server = await serve(data);
    try {
      const api = async (method: string, path: string, key: string, body?: unknown) => {
        const r = await fetch(`${server.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: r.status, json: (await r.json()) as Record<string, unknown> };
      };
      const project = (await api("POST", "/api/v1/projects", server.admin, { name: "labs" })).json
        .id as string;
      const keyFor = async (name: string) =>
        (
          JSON.parse(
            (
              await runCli([
                "keys",
                "create",
                "--project",
                project,
                "--scope",
                "write",
                "--name",
                name,
                "--data-dir",
                data,
              ])
            ).stdout,
          ) as { key: string }
        ).key;
      const bot = await keyFor("suggest bot");
      const ada = await keyFor("Dr. Ada");

      const list = join(dir, "served-terms.csv");
      writeFileSync(list, "code,name,count\nL1,HGB A1C,40\nL2,hemoglobn a1c,3\nL1,HGB A1C,2\n");
      const args = (candidates: string) => [
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
        "--candidates",
        candidates,
        "--project",
        project,
        "--server",
        server.url,
      ];
      const first = await runCli(args("2"), { env: { CROSSMAP_API_KEY: bot } });
      expect(first.stderr).toBe("");
      expect(first.code).toBe(0);
      expect(JSON.parse(first.stdout)).toMatchObject({
        terms: 2,
        pushed: { created: 2, updated: 0, unchanged: 0, skipped: 0 },
      });
      type Listed = {
        id: string;
        source_code: string;
        source_frequency: number;
        target_concept_id: number;
        method: string;
        version: number;
        candidates: { concept_id: number }[];
      };
      const items = async () =>
        (
          (await api("GET", `/v1/projects/${project}/concept-mapping?sort=id`, ada)).json as {
            items: Listed[];
          }
        ).items;
      const byCode = async (code: string) => (await items()).find((i) => i.source_code === code)!;
      const l1 = await byCode("L1");
      expect(l1).toMatchObject({
        source_frequency: 42,
        target_concept_id: 3004410,
        method: "review",
        version: 1,
      });
      expect(l1.candidates).toHaveLength(2);
      expect((await byCode("L2")).candidates).toHaveLength(2);

      // A reviewer chooses L1's second candidate through the server.
      const chosen = await api("POST", `/v1/projects/${project}/concept-mapping/${l1.id}/choose`, ada, {
        candidate: 2,
      });
      expect(chosen.status).toBe(200);
      const second = l1.candidates[1]!.concept_id;

      writeFileSync(list, "code,name,count\nL1,HGB A1C,50\nL2,hemoglobn a1c,9\nL3,glucose,4\n");
      const again = await runCli(args("3"), { env: { CROSSMAP_API_KEY: bot } });
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({
        terms: 3,
        pushed: { created: 1, updated: 1, unchanged: 0, skipped: 1 },
      });
      // The decided item is as the reviewer left it: not its frequency, candidates or version either.
      expect(await byCode("L1")).toEqual({ ...(chosen.json as object), candidates: l1.candidates });
      expect(await byCode("L1")).toMatchObject({
        method: "override",
        target_concept_id: second,
        source_frequency: 42,
        version: 2,
      });
      // The awaiting one has the new frequency and the new (longer) candidate list.
      const l2 = await byCode("L2");
      expect(l2).toMatchObject({ source_frequency: 9, method: "review", version: 2 });
      expect(l2.candidates).toHaveLength(3);
      expect((await byCode("L3")).candidates.length).toBeGreaterThan(0);
      const history = (await api("GET", `/v1/projects/${project}/concept-mapping/${l2.id}/history`, ada))
        .json as {
        events: { action: string; reviewer: string }[];
      };
      expect(history.events.map((e) => `${e.action} ${e.reviewer}`)).toEqual([
        "push_create suggest bot",
        "push_update suggest bot",
      ]);
      const l1History = (await api("GET", `/v1/projects/${project}/concept-mapping/${l1.id}/history`, ada))
        .json as { events: { action: string; reviewer: string }[] };
      expect(l1History.events.map((e) => `${e.action} ${e.reviewer}`)).toEqual([
        "push_create suggest bot",
        "choose Dr. Ada",
      ]);

      // Schema suggestions take the same way: schema items with candidates, a decided one kept.
      const table = join(dir, "patients.csv");
      writeFileSync(table, "mrn,dob\nMRN1,1954-03-12\nMRN2,1987-11-02\n");
      const schemaArgs = [
        "suggest",
        "--schema",
        table,
        "--to",
        "omop",
        "--project",
        project,
        "--server",
        server.url,
      ];
      const pushedSchema = await runCli(schemaArgs, { env: { CROSSMAP_API_KEY: bot } });
      expect(JSON.parse(pushedSchema.stdout)).toMatchObject({ pushed: { created: 2, skipped: 0 } });
      const schema = (await api("GET", `/v1/projects/${project}/schema-mapping?q=dob`, ada)).json as {
        items: { id: string; target_column: string; candidates: unknown[] }[];
      };
      expect(schema.items[0]).toMatchObject({ target_column: "birth_datetime" });
      expect(schema.items[0]!.candidates).toHaveLength(5);
      const approved = await api(
        "POST",
        `/v1/projects/${project}/schema-mapping/${schema.items[0]!.id}/approve`,
        ada,
      );
      expect(approved.status).toBe(200);
      const schemaAgain = await runCli(schemaArgs, { env: { CROSSMAP_API_KEY: bot } });
      expect(JSON.parse(schemaAgain.stdout)).toMatchObject({
        pushed: { created: 0, updated: 0, unchanged: 1, skipped: 1 },
      });

      // A wrong key is the server's 401, said in words; nothing is pushed.
      const wrong = await runCli(args("3"), { env: { CROSSMAP_API_KEY: "cmk_wrong" } });
      expect(wrong.code).not.toBe(0);
      expect(wrong.stderr).toMatch(/^crossmap: the server answered 401: /);
    } finally {
      server.proc.kill("SIGTERM");
      await server.exited;
    }
  }, 60_000);
});
