// `crossmap map --from omop --to fhir --fhir-server URL` with the Synthea27Nj OMOP sample against a real FHIR
// server on loopback (Medplum's router and in-memory repository, test/support/fhir-server.ts), sent twice.
//
// Server behaviours relied on: batch Bundles (`POST [base]`, each entry applied on its own) and `PUT Type/id`
// creating what does not exist ("update as create", with the ids the crossmap writes) and updating what does.
// The server runs without Medplum's per-write validation here: 25,000 resources twice would take minutes,
// and the validity of this output is checked by the R4 validator in the crossmap tests.
//
// "Content" of a resource is everything but meta.versionId and meta.lastUpdated, which the server stamps.
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  content,
  type FhirTestServer,
  startFhirServer,
  unresolvedReferences,
} from "../support/fhir-server.js";
import { repoRoot, runCli } from "./run-cli.js";

const SAMPLE = join(repoRoot, "test", "fixtures", "synthea27nj");
const MAP = ["map", "-q", "--from", "omop_cdm_v5.4", "--to", "fhir_r4"];

describe("crossmap map --fhir-server with the OMOP sample mapped to FHIR", () => {
  let server: FhirTestServer;
  let dir: string;
  /** What the same map writes to files, by type: the resources the server must hold. */
  const expected = new Map<string, Map<string, unknown>>();
  const runs: { code: number | null; stderr: string; summary: Record<string, unknown> }[] = [];
  const snapshots: Map<string, { content: unknown; version: string }>[] = [];

  const send = async () => {
    const summary = join(dir, `summary-${runs.length}.json`);
    const r = await runCli([...MAP, "--summary", summary, "--fhir-server", server.url, SAMPLE]);
    runs.push({ ...r, summary: JSON.parse(readFileSync(summary, "utf8")) });
    const snap = new Map<string, { content: unknown; version: string }>();
    for (const t of server.types()) {
      for (const res of await server.all(t)) {
        snap.set(`${t}/${res.id}`, { content: content(res), version: String(res.meta?.versionId) });
      }
    }
    snapshots.push(snap);
  };

  beforeAll(async () => {
    server = await startFhirServer({ validate: false });
    dir = mkdtempSync(join(tmpdir(), "crossmap-fhir-omop-"));
    const files = await runCli([...MAP, "--out-dir", join(dir, "files"), SAMPLE]);
    expect(files.code).toBe(0);
    for (const f of readdirSync(join(dir, "files"))) {
      const byId = new Map<string, unknown>();
      for (const line of readFileSync(join(dir, "files", f), "utf8")
        .trimEnd()
        .split("\n")) {
        const r = JSON.parse(line) as { id: string };
        byId.set(r.id, r);
      }
      expected.set(f.replace(/\.ndjson$/, ""), byId);
    }
    await send();
    await send();
  }, 300_000);

  afterAll(async () => {
    await server?.close();
  });

  it("puts every resource on the server, as the crossmap wrote it", async () => {
    const total = [...expected.values()].reduce((n, m) => n + m.size, 0);
    expect(total).toBe(24850);
    expect(server.types()).toEqual([...expected.keys()].sort());
    for (const [type, byId] of expected) {
      const held = await server.all(type);
      expect([type, held.length]).toEqual([type, byId.size]);
      for (const r of held) expect(content(r)).toEqual(byId.get(r.id as string));
    }
    for (const run of runs) {
      expect(run.code).toBe(0);
      expect(run.stderr).toBe("");
      expect(run.summary.fhir_server).toMatchObject({
        url: server.url,
        bundles: 249,
        resources_sent: total,
        accepted: total,
        rejected: 0,
        not_sent: 0,
      });
    }
  });

  it("leaves every reference resolvable on the server", async () => {
    expect(await unresolvedReferences(server)).toEqual([]);
  });

  it("changes nothing when sent a second time", () => {
    const [first, second] = snapshots;
    expect(snapshots.length).toBe(2);
    expect(second?.size).toBe(first?.size);
    let rewritten = 0;
    for (const [key, now] of second ?? []) {
      const before = first?.get(key);
      // Compared as text (25,000 deep comparisons are slow); a readable diff only on a difference.
      if (JSON.stringify(now.content) !== JSON.stringify(before?.content)) {
        expect([key, now.content]).toEqual([key, before?.content]);
      }
      if (now.version !== before?.version) rewritten++;
    }
    // ...though the second send did write every resource again (a new version each).
    expect(rewritten).toBe(second?.size);
  });
});
