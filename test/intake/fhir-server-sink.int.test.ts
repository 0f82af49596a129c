// The `crossmap listen --fhir-server` sink's flush, with the FHIR server writer in front of a real FHIR server
// on loopback (Medplum's router and in-memory repository, test/support/fhir-server.ts) behind a test double
// that refuses one patient's Bundles: what a flush has queued is merged into transactions as `crossmap map`
// merges messages, each patient's messages still in arrival order, and a refused merged transaction is sent
// again message by message, so only the refused message is dead-lettered.
//
// Server behaviours relied on: transactions (`POST [base]`), `PUT Type/id` creating what does not exist and
// making a new version of what does.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FhirServerSink } from "../../src/intake/fhir-server-sink.js";
import type { SinkItem } from "../../src/intake/sink.js";
import { FhirServerWriter } from "../../src/sinks/fhir-server/writer.js";
import { repoRoot, runCli } from "../cli/run-cli.js";
import { type FhirTestServer, startFhirServer, unresolvedReferences } from "../support/fhir-server.js";
import { type FlakyProxy, startFlakyProxy } from "../support/flaky-proxy.js";

const SAMPLES = join(repoRoot, "test", "fixtures", "hl7v2", "samples");
/** Patient EVERYMAN twice (A01 then A02), BROS (refused by the double), Bixby. */
const FILES = ["ADT-A01-02.hl7", "ADT04-23.hl7", "ADT04-28.hl7", "ADT-A02-01.hl7"];
const KEYS = [["everyman"], ["bros"], ["bixby"], ["everyman"]];

let fhir: FhirTestServer;
let proxy: FlakyProxy;
const bundles: string[] = [];

beforeAll(async () => {
  fhir = await startFhirServer({ validate: false });
  proxy = await startFlakyProxy(fhir.url, (_n, body) =>
    body.includes('"family":"BROS"')
      ? { status: 422, diagnostics: "Patient: not on this ward" }
      : { forward: true },
  );
  const dir = mkdtempSync(join(tmpdir(), "crossmap-fhir-sink-"));
  for (const f of FILES) {
    const r = await runCli(
      ["map", "-q", "--from", "hl7v2", "--to", "fhir", "--bundle", "transaction", join(SAMPLES, f)],
      {
        cwd: dir,
      },
    );
    bundles.push(r.stdout.trimEnd());
  }
}, 120_000);
afterAll(async () => {
  await proxy?.close();
  await fhir?.close();
});

function sink(transactionMessages: number): FhirServerSink {
  const writer = new FhirServerWriter({
    url: proxy.url,
    authorizationSource: "CROSSMAP_FHIR_AUTHORIZATION",
    concurrency: 4,
    batchSize: 100,
    timeoutMs: 30_000,
    retries: 2,
    transactionMessages,
  });
  const s = new FhirServerSink({ writer, as: "transaction", concurrency: 4 });
  for (const [i, b] of bundles.entries()) {
    const item: SinkItem = {
      id: i + 1,
      sender: "ADT|HOSP",
      controlId: `C${i + 1}`,
      receivedAt: 0,
      bundle: new TextEncoder().encode(b),
      keys: KEYS[i] as string[],
    };
    s.write(item);
  }
  return s;
}

const refusedIssue = (id: number) => ({
  id,
  issues: [
    {
      file: `journal#${id}`,
      code: "fhir_rejected",
      severity: "error",
      message: "transaction of 12 entries rejected: 422: processing: Patient: not on this ward",
    },
  ],
});

describe("FhirServerSink.flush", () => {
  it("merges the queued messages' transactions; a refused one is sent again message by message", async () => {
    fhir.repo.clear();
    proxy.seen.length = 0;
    const { refused } = await sink(10).flush();
    expect(refused).toEqual([refusedIssue(2)]);
    // A01 + BROS + Bixby merged (refused), then each alone; A02 (EVERYMAN again) after them, in its own.
    expect(proxy.seen).toEqual(["422", "200", "422", "200", "200"]);
    const families = (await fhir.all("Patient")).map(
      (p) => (p as { name?: { family?: string }[] }).name?.[0]?.family,
    );
    expect(families.sort()).toEqual(["Bixby", "EVERYMAN"]);
    expect(await unresolvedReferences(fhir)).toEqual([]);
  }, 60_000);

  it("with --fhir-transaction-messages 1, sends each message's transaction as it is", async () => {
    fhir.repo.clear();
    proxy.seen.length = 0;
    const { refused } = await sink(1).flush();
    expect(refused).toEqual([refusedIssue(2)]);
    expect([...proxy.seen].sort()).toEqual(["200", "200", "200", "422"]);
  }, 60_000);
});
