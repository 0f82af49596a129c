// `crossmap map --project P --nats`: the project's reviewed decisions are part of the compiled plan, so they
// travel with the run to the workers (and into its plan key), and the run goes into the project's history.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { openStores } from "../../src/store/env.js";
import type { LmdbVocabularyBridge } from "../../src/vocab/lmdb-bridge.js";
import { repoRoot, runCli } from "../cli/run-cli.js";
import { buildLabVocabularies, LAB, OLD_RELEASE } from "../support/lab-vocabularies.js";
import {
  cleanUp,
  describeWithNats,
  killAll,
  type NatsServer,
  startNatsServer,
  startWorker,
} from "./nats-harness.js";

const describeNats = describeWithNats(import.meta.url);

const LOCAL = "http://hospital.example.org/CodeSystem/lab";
const CODES = ["GLU", "K", "HB", "CHOL", "NA"];
let server: NatsServer;
let dir: string;
let data: string;
let project: string;
let oldIndex: string;
let bridges: LmdbVocabularyBridge[];
let input: string;

beforeAll(async () => {
  server = await startNatsServer();
  dir = mkdtempSync(join(tmpdir(), "crossmap-nats-project-"));
  data = join(dir, "data");
  const built = await buildLabVocabularies(join(dir, "vocab"));
  oldIndex = built.oldIndex;
  bridges = [built.old, built.next];
  const stores = openStores(data);
  project = (
    await stores.write(() => stores.projects.create({ name: "Lab codes", target_model: "omop_cdm_v5.4" }))
  ).id;
  await stores.close();
  const imported = await runCli([
    "import",
    join(repoRoot, "test/fixtures/usagi/lab-codes.usagi.csv"),
    "--project",
    project,
    "--source-column",
    "lab_code",
    "--data-dir",
    data,
  ]);
  // Three bad rows of the fixture are reported; six items are imported.
  expect(JSON.parse(imported.stdout)).toMatchObject({ created: 6 });
  // Enough records for several batches (2,000 records each).
  const lines: string[] = [];
  for (let n = 0; n < 7000; n++) {
    lines.push(
      JSON.stringify({
        resourceType: "Observation",
        id: String(n + 1),
        status: "final",
        subject: { reference: "Patient/7" },
        effectiveDateTime: "2024-03-01T08:00:00Z",
        code: { coding: [{ system: LOCAL, code: CODES[n % 5] }] },
      }),
    );
  }
  input = join(dir, "observations.ndjson");
  writeFileSync(input, `${lines.join("\n")}\n`);
}, 180_000);
afterEach(() => cleanUp(server?.url));
afterAll(async () => {
  await killAll();
  await server?.stop();
  for (const b of bridges ?? []) await b.close();
  rmSync(dir, { recursive: true, force: true });
});

describeNats("crossmap map --project --nats", () => {
  it("maps with the project's decisions on the workers and records the run in the project", async () => {
    const worker = await startWorker(server.url, "p1", ["--vocab", oldIndex]);
    const run = async (name: string, extra: string[]) => {
      const out = join(dir, `${name}.ndjson`);
      const summary = join(dir, `${name}.summary.json`);
      const r = await runCli(
        [
          "map",
          "--from",
          "fhir_r4",
          "--to",
          "omop_cdm_v5.4",
          "--project",
          project,
          "--data-dir",
          data,
        ].concat(["--vocab", oldIndex, "-o", out, "--summary", summary, ...extra, input]),
      );
      expect(r.code, r.stderr).toBe(0);
      return { r, out: readFileSync(out, "utf8"), summary: JSON.parse(readFileSync(summary, "utf8")) };
    };
    const local = await run("local", []);
    const nats = await run("nats", ["--nats", server.url]);
    expect(nats.out).toBe(local.out);
    // The decisions were applied where the records were mapped: on the worker.
    expect(nats.summary.nats.workers).toEqual({ p1: nats.summary.nats.published });
    expect(nats.summary.nats.published).toBeGreaterThanOrEqual(4);
    const expected: Record<string, number> = {
      GLU: LAB.glucose,
      K: LAB.potassiumBlood,
      HB: 0,
      CHOL: 0,
      NA: LAB.sodium,
    };
    const rows = nats.out
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { measurement_concept_id: number });
    expect(rows).toHaveLength(7000);
    expect(
      rows.filter((row, n) => row.measurement_concept_id !== expected[CODES[n % 5]!]).slice(0, 3),
    ).toEqual([]);
    expect(nats.summary.issues_by_code).toEqual(local.summary.issues_by_code);
    expect(nats.summary.issues_by_code).toMatchObject({ rejected_by_review: 1400, unreviewed_mapping: 1400 });
    expect(nats.summary.decision_snapshot).toEqual(local.summary.decision_snapshot);
    expect(nats.r.stderr).toContain(
      `crossmap map: recorded run ${nats.summary.run_id} in project ${project}: `,
    );
    const stores = openStores(data);
    try {
      expect(stores.runs.get(project, nats.summary.run_id)).toMatchObject({
        source_standard: "fhir_r4",
        target_standard: "omop_cdm_v5.4",
        record_count: 7000,
        status: "completed",
        decision_snapshot: local.summary.decision_snapshot,
        vocabulary_release: OLD_RELEASE,
      });
    } finally {
      await stores.close();
    }
    worker.proc.kill("SIGTERM");
    expect(await worker.proc.exited()).toBe(0);
  }, 180_000);
});
