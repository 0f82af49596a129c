// The decision commands as a user runs them, over a real data directory: import a Usagi export, map
// with --project (worker threads included), export, check and map the exported crossmap, revalidate.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pushItems, schemaFields } from "../../src/server/handlers/sync.js";
import { openStores } from "../../src/store/env.js";
import type { LmdbVocabularyBridge } from "../../src/vocab/lmdb-bridge.js";
import { startHarness } from "../server/harness.js";
import { fhirProblems } from "../support/fhir.js";
import { buildLabVocabularies, LAB, NEW_RELEASE, OLD_RELEASE } from "../support/lab-vocabularies.js";
import { repoRoot, runCli } from "./run-cli.js";

const LOCAL = "http://hospital.example.org/CodeSystem/lab";
const fixture = join(repoRoot, "test/fixtures/usagi/lab-codes.usagi.csv");
let dir: string;
let data: string;
let project: string;
let oldIndex: string;
let newIndex: string;
let bridges: LmdbVocabularyBridge[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "crossmap-cli-decisions-"));
  data = join(dir, "data");
  const built = await buildLabVocabularies(join(dir, "vocab"));
  ({ oldIndex, newIndex } = built);
  bridges = [built.old, built.next];
  const stores = openStores(data);
  project = (
    await stores.write(() => stores.projects.create({ name: "Lab codes", target_model: "omop_cdm_v5.4" }))
  ).id;
  await stores.close();
});
afterAll(async () => {
  for (const b of bridges) await b.close();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli(args);

describe("crossmap import", () => {
  it("imports a Usagi export, reporting each bad row as file:line and keeping the others (exit 1)", async () => {
    const r = await cli(
      "import",
      fixture,
      "--project",
      project,
      "--source-column",
      "lab_code",
      "--data-dir",
      data,
    );
    expect(r.code).toBe(1);
    expect(r.stderr.split("\n")).toEqual([
      `${fixture}:4: warning: code "K" already imported from line 3; this further target (concept 8753, MAPS_TO_UNIT) is not kept: an item maps a code to one concept`,
      `${fixture}:8: matchScore "high" is not a number`,
      `${fixture}:11: mappingStatus "MAYBE" is not one of APPROVED, UNCHECKED, AUTO_MAPPED, AUTO_MAPPED_TO_1, INVALID_TARGET, FLAGGED, IGNORED`,
      "",
    ]);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ format: "usagi", created: 6, updated: 0, unchanged: 0, skipped: 0 });
    expect(summary.items.map((i: { line: number; result: string }) => [i.line, i.result])).toEqual([
      [2, "created"],
      [3, "created"],
      [5, "created"],
      [6, "created"],
      [7, "created"],
      [9, "created"],
    ]);
    // Again: nothing changes, and a decided item is never overwritten by the file unless --force.
    const again = await cli(
      "import",
      fixture,
      "--project",
      project,
      "--source-column",
      "lab_code",
      "--data-dir",
      data,
    );
    expect(JSON.parse(again.stdout)).toMatchObject({ created: 0, unchanged: 6 });
  });
});

describe("crossmap import --server", () => {
  it("pushes the file to a running server's import endpoint with the key from CROSSMAP_API_KEY", async () => {
    const h = await startHarness();
    try {
      const writer = await h.key("write");
      const args = [
        "import",
        fixture,
        "--project",
        h.projectId,
        "--server",
        h.url,
        "--source-vocabulary",
        "LOCAL_LAB",
      ];
      const r = await runCli(args, { env: { CROSSMAP_API_KEY: writer } });
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stdout)).toMatchObject({ format: "usagi", created: 6 });
      expect(r.stderr.split("\n")[1]).toBe(`${fixture}:8: matchScore "high" is not a number`);
      const item = (await h.request("GET", `/v1/projects/${h.projectId}/concept-mapping?q=GLU`)).json as {
        items: Record<string, unknown>[];
      };
      expect(item.items[0]).toMatchObject({
        method: "auto",
        equivalence: "equal",
        source_vocabulary_id: "LOCAL_LAB",
      });
      const history = (
        await h.request("GET", `/v1/projects/${h.projectId}/concept-mapping/${item.items[0]!.id}/history`)
      ).json as { events: { action: string; key_id: string }[] };
      expect(history.events.map((e) => [e.action, e.key_id])).toEqual([["import", h.keyId(writer)]]);
      const noKey = await runCli(args);
      expect([noKey.code, noKey.stderr]).toEqual([
        2,
        "crossmap: --server needs the API key in the CROSSMAP_API_KEY environment variable\n",
      ]);
      const reader = await h.key("read");
      const denied = await runCli(args, { env: { CROSSMAP_API_KEY: reader } });
      expect([denied.code, denied.stderr]).toEqual([
        2,
        `crossmap: ${fixture}: the server answered 403: API key ${h.keyId(reader)} has read-only access to project ${h.projectId}\n`,
      ]);
    } finally {
      await h.stop();
    }
  });
});

describe("crossmap map --project", () => {
  it("applies the decisions in every worker thread, and records the run with its snapshot and release", async () => {
    // Enough records for the worker to take batches beside the main thread.
    const codes = ["GLU", "K", "HB", "CHOL", "NA"];
    const lines: string[] = [];
    for (let n = 0; n < 20_000; n++) {
      lines.push(
        JSON.stringify({
          resourceType: "Observation",
          id: String(n + 1),
          status: "final",
          subject: { reference: "Patient/7" },
          effectiveDateTime: "2024-03-01T08:00:00Z",
          code: { coding: [{ system: LOCAL, code: codes[n % 5] }] },
        }),
      );
    }
    const input = join(dir, "observations.ndjson");
    writeFileSync(input, `${lines.join("\n")}\n`);
    const out = join(dir, "measurement.ndjson");
    const summary = join(dir, "summary.json");
    const r = await cli(
      "map",
      "--from",
      "fhir_r4",
      "--to",
      "omop_cdm_v5.4",
      "--project",
      project,
      "--data-dir",
      data,
      "--vocab",
      oldIndex,
      "--workers",
      "2",
      "-o",
      out,
      "--summary",
      summary,
      input,
    );
    expect(r.code, r.stderr).toBe(0);
    const expected: Record<string, number> = {
      GLU: LAB.glucose,
      K: LAB.potassiumBlood,
      HB: 0,
      CHOL: 0,
      NA: LAB.sodium,
    };
    const rows = readFileSync(out, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(20_000);
    const wrong = rows.filter((row, n) => row.measurement_concept_id !== expected[codes[n % 5]!]);
    expect(wrong.slice(0, 3)).toEqual([]);
    const s = JSON.parse(readFileSync(summary, "utf8"));
    expect(s.issues_by_code).toMatchObject({ rejected_by_review: 4000, unreviewed_mapping: 4000 });
    expect(s.decision_snapshot).toMatchObject({ items: 6, unreviewed: "ignore" });
    expect(s.vocabulary_release).toBe(OLD_RELEASE);
    const line = r.stderr.split("\n").find((l) => l.includes("recorded run"));
    expect(line).toMatch(
      new RegExp(
        `^crossmap map: recorded run ${s.run_id} in project ${project}: 6 concept items \\(sha256 [0-9a-f]{12}…, unreviewed ignore\\), vocabulary release ${OLD_RELEASE.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`,
      ),
    );
    const stores = openStores(data);
    try {
      const run = stores.runs.get(project, s.run_id)!;
      expect(run).toMatchObject({
        source_standard: "fhir_r4",
        target_standard: "omop_cdm_v5.4",
        source_entity: "*",
        target_entity: "*",
        record_count: 20_000,
        status: "completed",
        crossmap_file: "fhir_r4-to-omop_cdm_v5.4.yaml",
        decision_snapshot: s.decision_snapshot,
        vocabulary_release: OLD_RELEASE,
      });
    } finally {
      await stores.close();
    }
  });

  it("--unreviewed without --project is a usage error; an unknown project exits 2", async () => {
    const u = await cli("map", "--from", "fhir_r4", "--to", "omop_cdm_v5.4", "--unreviewed", "use");
    expect([u.code, u.stderr]).toEqual([2, "crossmap: --unreviewed needs --project\n"]);
    const p = await cli(
      "map",
      "--from",
      "fhir_r4",
      "--to",
      "omop_cdm_v5.4",
      "--project",
      "nope",
      "--data-dir",
      data,
    );
    expect([p.code, p.stderr]).toEqual([
      2,
      `crossmap: Project nope not found in ${data} (\`crossmap projects list --data-dir ${data}\` prints the ids)\n`,
    ]);
  });
});

describe("crossmap export", () => {
  it("writes SOURCE_TO_CONCEPT_MAP and a ConceptMap from the data directory", async () => {
    const args = [
      "export",
      "source-to-concept-map",
      "--project",
      project,
      "--source-vocabulary",
      "LOCAL_LAB",
    ];
    // Rows come in item id order (the import's ids are random). Usagi files do not name the target's
    // vocabulary: without an index to find it in, every row is refused.
    const refused = await cli(...args, "--data-dir", data);
    expect(refused.code).toBe(2);
    expect(
      refused.stderr
        .split("\n")
        .filter((l) => l.endsWith("no target_vocabulary_id, and no vocabulary to find it in")),
    ).toHaveLength(3);
    expect(refused.stderr).toContain("crossmap: 3 item(s) cannot be written as SOURCE_TO_CONCEPT_MAP rows\n");
    const stcm = await cli(...args, "--vocab", oldIndex, "--data-dir", data);
    expect(stcm.code, stcm.stderr).toBe(0);
    const rows = Papa.parse<Record<string, string>>(stcm.stdout, { header: true, skipEmptyLines: true }).data;
    expect(
      rows
        .map((r) => [r.source_code, r.source_code_description, r.target_concept_id, r.target_vocabulary_id])
        .sort(),
    ).toEqual([
      ["GLU", "Glucose, serum", String(LAB.glucose), "LOINC"],
      ["K", "Potassium", String(LAB.potassiumBlood), "LOINC"],
      ["NA", "Sodium,\r\n serum", String(LAB.sodium), "LOINC"],
    ]);
    const out = join(dir, "concept-map.json");
    const cm = await cli(
      "export",
      "concept-map",
      "--project",
      project,
      "--vocab",
      oldIndex,
      "-o",
      out,
      "--data-dir",
      data,
    );
    expect(cm.code, cm.stderr).toBe(0);
    expect(fhirProblems(JSON.parse(readFileSync(out, "utf8")))).toEqual([]);
  });

  it("writes a crossmap of the approved schema items that check accepts and map runs", async () => {
    const stores = openStores(data);
    const push = [
      {
        source_table: "labs",
        source_column: "id",
        target_table: "measurement",
        target_column: "measurement_id",
        status: "approved" as const,
      },
      {
        source_table: "labs",
        source_column: "patient",
        target_table: "measurement",
        target_column: "person_id",
        status: "approved" as const,
      },
      {
        source_table: "labs",
        source_column: "code",
        target_table: "measurement",
        target_column: "measurement_source_value",
        status: "approved" as const,
      },
      {
        source_table: "labs",
        source_column: "value",
        target_table: "measurement",
        target_column: "value_as_number",
        status: "overridden" as const,
      },
      {
        source_table: "labs",
        source_column: "taken",
        target_table: "measurement",
        target_column: "measurement_date",
        status: "approved" as const,
      },
      {
        source_table: "labs",
        source_column: "site",
        target_table: "care_site",
        target_column: "care_site_name",
        status: "approved" as const,
      },
      {
        source_table: "labs",
        source_column: "unit",
        target_table: "measurement",
        target_column: "unit_source_value",
        status: "needs_review" as const,
      },
    ];
    await pushItems(stores, stores.schemaItems, "schema", {
      projectId: project,
      items: push.map((p, n) => ({ id: `s${n + 1}`, fields: schemaFields(p) })),
      force: false,
      keyId: null,
      reviewer: null,
    });
    await stores.close();
    const file = join(dir, "exported.yaml");
    const r = await cli(
      "export",
      "crossmap",
      "--project",
      project,
      "--source",
      "site_labs",
      "-o",
      file,
      "--data-dir",
      data,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      `crossmap export: not included: item s6: labs.site -> care_site.care_site_name: labs already maps to measurement (one target entity per source entity)\n`,
    );
    const yaml = readFileSync(file, "utf8");
    expect(yaml.split("\n").filter((l) => !l.startsWith("#"))).toEqual([
      "source: site_labs",
      "target: omop_cdm_v5.4",
      `name: Lab codes (crossmap project ${project})`,
      "entity_map:",
      "  labs: measurement",
      "field_map:",
      "  labs.id:",
      "    target: measurement.measurement_id",
      "    transform: int",
      "  labs.patient:",
      "    target: measurement.person_id",
      "    transform: int",
      "  labs.taken:",
      "    target: measurement.measurement_date",
      "    transform: format",
      "    config:",
      '      pattern: "%Y-%m-%d"',
      "  labs.value:",
      "    target: measurement.value_as_number",
      "    transform: float",
      "  labs.code:",
      "    target: measurement.measurement_source_value",
      "    transform: str",
      "",
    ]);
    const check = await cli("check", "--strict", file);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    const mapped = await runCli(["map", "--crossmap", file, "--entity", "labs"], {
      stdin: '{"id":"1","patient":"42","code":"GLU","value":"5.4","taken":"20240301","unit":"mmol/L"}\n',
    });
    expect(mapped.code, mapped.stderr).toBe(0);
    expect(JSON.parse(mapped.stdout)).toEqual({
      measurement_id: 1,
      person_id: 42,
      measurement_source_value: "GLU",
      value_as_number: 5.4,
      measurement_date: "2024-03-01",
    });
  });
});

describe("crossmap revalidate", () => {
  it("reopens what the new release invalidates (dry run first), and says so as JSON", async () => {
    const dry = await cli(
      "revalidate",
      "--project",
      project,
      "--vocab",
      newIndex,
      "--dry-run",
      "--data-dir",
      data,
    );
    expect(dry.code, dry.stderr).toBe(0);
    const expected = {
      release: NEW_RELEASE,
      checked: 3,
      reopened: 1,
      items: [
        {
          id: expect.any(String),
          reason: "invalid",
          previous_concept_id: LAB.glucose,
          suggested_concept_id: LAB.glucoseBlood,
          suggested_via: "Concept replaced by",
        },
      ],
    };
    expect(JSON.parse(dry.stdout)).toEqual({ ...expected, dry_run: true });
    const done = await cli("revalidate", "--project", project, "--vocab", newIndex, "--data-dir", data);
    expect(JSON.parse(done.stdout)).toEqual({ ...expected, dry_run: false });
    const again = await cli("revalidate", "--project", project, "--vocab", newIndex, "--data-dir", data);
    expect(JSON.parse(again.stdout)).toMatchObject({ checked: 2, reopened: 0 });
  });
});
