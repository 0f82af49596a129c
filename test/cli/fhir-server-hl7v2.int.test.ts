// `crossmap map --from hl7v2 --to fhir --fhir-server URL` against a real FHIR server on loopback (Medplum's
// router and in-memory repository, test/support/fhir-server.ts): every sample message, each twice, in a
// shuffled order, as transaction Bundles; then all of it again.
//
// Server behaviours relied on: transactions (`POST [base]` of a transaction Bundle, urn:uuid references
// rewritten to the ids of the entries), `PUT Type/id` creating what does not exist ("update as create")
// and updating what does, and Medplum's validation of every resource written.
//
// "Content" of a resource is everything but meta.versionId and meta.lastUpdated, which the server stamps on
// every write.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  distinctPatients,
  type SampleMessage,
  sampleMessages,
  shuffled,
  visitNumbers,
} from "../support/er7-identities.js";
import {
  content,
  type FhirTestServer,
  startFhirServer,
  unresolvedReferences,
} from "../support/fhir-server.js";
import { repoRoot, runCli } from "./run-cli.js";

const SAMPLES = join(repoRoot, "test", "fixtures", "hl7v2", "samples");

type Snapshot = Map<string, { content: unknown; versionId: string }>;

async function snapshot(server: FhirTestServer): Promise<Snapshot> {
  const out: Snapshot = new Map();
  for (const t of server.types()) {
    for (const r of await server.all(t)) {
      out.set(`${t}/${r.id}`, { content: content(r), versionId: String(r.meta?.versionId) });
    }
  }
  return out;
}

describe("crossmap map --fhir-server with the HL7 v2 samples", () => {
  let server: FhirTestServer;
  let messages: SampleMessage[];
  let input: string;
  let errors: string;
  let first: Snapshot;
  let second: Snapshot;
  const runs: { code: number | null; stderr: string; summary: Record<string, unknown> }[] = [];

  const send = async () => {
    const summary = join(input, "..", `summary-${runs.length}.json`);
    const r = await runCli([
      "map",
      "-q",
      "--from",
      "hl7v2",
      "--to",
      "fhir",
      "--errors",
      errors,
      "--summary",
      summary,
      "--fhir-server",
      server.url,
      // Merged transactions (the default is one per message): what they write must be the same.
      "--fhir-transaction-messages",
      "10",
      input,
    ]);
    runs.push({ ...r, summary: JSON.parse(readFileSync(summary, "utf8")) });
  };

  beforeAll(async () => {
    server = await startFhirServer();
    messages = sampleMessages(SAMPLES);
    const dir = mkdtempSync(join(tmpdir(), "crossmap-fhir-hl7-"));
    input = join(dir, "feed.hl7");
    errors = join(dir, "errors.ndjson");
    // Each message twice, in an order no sender would keep: the server must not care.
    const order = shuffled([...messages, ...messages], 29);
    writeFileSync(input, `${order.map((m) => m.text).join("\r")}\r`);
    await send();
    first = await snapshot(server);
    await send();
    second = await snapshot(server);
  }, 240_000);

  afterAll(async () => {
    await server?.close();
  });

  it("sends every message's transaction, and the server accepts every resource", () => {
    expect(messages.length).toBe(22);
    for (const run of runs) {
      const s = run.summary as { bundles: number; records_out: number; fhir_server: Record<string, unknown> };
      expect(s.bundles).toBe(44);
      // The messages ready when a request can start go as one transaction (10 messages or 50 entries at
      // most); how many are ready depends on when the server answers, so the count of transactions is not
      // fixed: fewer than the 44 messages (the pipeline hands them over together), never fewer than 5.
      const bundles = s.fhir_server.bundles as number;
      expect(bundles).toBeLessThan(44);
      expect(bundles).toBeGreaterThanOrEqual(5);
      expect(s.fhir_server).toMatchObject({
        url: server.url,
        resources_sent: s.records_out,
        accepted: s.records_out,
        rejected: 0,
        not_sent: 0,
      });
      // Exit 1 comes from the mapping's own error issues (counted before any sending), none from the server.
      expect(Object.keys(run.summary.issues_by_code as object).filter((c) => c.startsWith("fhir_"))).toEqual(
        [],
      );
    }
    expect(readFileSync(errors, "utf8")).not.toContain('"code":"fhir_');
    const posts = server.log.filter((l) => l.method === "POST");
    // Every one accepted as it was sent: none refused and sent again message by message.
    expect(posts.length).toBe(
      runs.reduce((n, r) => n + (r.summary.fhir_server as { bundles: number }).bundles, 0),
    );
    expect(posts.filter((l) => l.status !== 200)).toEqual([]);
  });

  it("leaves every reference resolvable on the server", async () => {
    expect(await unresolvedReferences(server)).toEqual([]);
  });

  it("changes no resource's content when everything is sent again", () => {
    expect([...second.keys()].sort()).toEqual([...first.keys()].sort());
    for (const [key, now] of second) expect([key, now.content]).toEqual([key, first.get(key)?.content]);
    // ...though it did write them all again (a new version each).
    for (const [key, now] of second)
      expect([key, now.versionId === first.get(key)?.versionId]).toEqual([key, false]);
  });

  // Identity from business identifiers (issue 29 items 1-3): the same patient or visit in many messages is
  // one resource on the server.
  it("holds exactly one Patient per distinct patient (PID-3 identifiers)", async () => {
    expect(distinctPatients(messages)).toBe(7);
    expect((await server.all("Patient")).length).toBe(distinctPatients(messages));
  });

  it("holds exactly one Encounter per visit number (PV1-19)", async () => {
    const encounters = await server.all("Encounter");
    const holding = (value: string) =>
      encounters.filter((e) =>
        ((e as { identifier?: { value?: string }[] }).identifier ?? []).some((i) => i.value === value),
      ).length;
    const numbers = visitNumbers(messages);
    expect(numbers.length).toBeGreaterThan(0);
    for (const key of numbers) {
      const value = key.slice(0, key.indexOf("|"));
      const expected = numbers.filter((k) => k.startsWith(`${value}|`)).length;
      expect([key, holding(value)]).toEqual([key, expected]);
    }
  });

  it("holds exactly one Practitioner per provider id (identifier system or assigner, and value)", async () => {
    const byId = new Map<string, string[]>();
    for (const p of await server.all("Practitioner")) {
      const ids = (
        p as { identifier?: { system?: string; value?: string; assigner?: { display?: string } }[] }
      ).identifier;
      for (const i of ids ?? []) {
        const key = `${i.system ?? i.assigner?.display ?? ""}|${i.value}`;
        byId.set(key, [...(byId.get(key) ?? []), p.id as string]);
      }
    }
    expect(byId.size).toBeGreaterThan(0);
    for (const [key, ids] of byId) expect([key, ids.length]).toEqual([key, 1]);
  });
});
