// `crossmap stream --fhir-server URL` against a real nats-server and a real FHIR server on loopback
// (Medplum's router and in-memory repository, test/support/fhir-server.ts) behind a test double: a message
// is acknowledged only once the server accepted its transaction Bundle; while the server is down the message
// is redelivered, not lost; a message whose Bundle the server rejects goes to the dead-letter subject with
// the server's words.
//
// Server behaviours relied on: transactions (`POST [base]`), `PUT Type/id` creating what does not exist.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DeliverPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";
import { type FhirTestServer, startFhirServer } from "../support/fhir-server.js";
import { type FlakyProxy, startFlakyProxy } from "../support/flaky-proxy.js";
import {
  describeWithNats,
  health,
  killAll,
  type NatsServer,
  startCli,
  startNatsServer,
  until,
} from "./nats-harness.js";

const SENDERS = ["FAC_A", "FAC_B"];

function message(i: number): { sender: string; id: string; text: string } {
  const sender = SENDERS[i % 2] as string;
  const id = `${sender}-${i}`;
  const text =
    `MSH|^~\\&|LAB|${sender}|||20240101120000||ORU^R01|${id}|P|2.5.1\r` +
    `PID|1||${i}^^^${sender}^MR||DOE^${i === 4 ? "REFUSED" : "J"}||19800101|M\r` +
    `OBX|1|NM|2345-7^Glucose^LN||${80 + i}|mg/dL|||||F\r`;
  return { sender, id, text };
}

let nats: NatsServer;
let fhir: FhirTestServer;
let proxy: FlakyProxy;
let dir: string;

beforeAll(async () => {
  [nats, fhir] = await Promise.all([startNatsServer(), startFhirServer()]);
  dir = mkdtempSync(join(tmpdir(), "crossmap-feed-fhir-"));
}, 120_000);
afterAll(async () => {
  await killAll();
  await proxy?.close();
  await Promise.all([nats?.stop(), fhir?.close()]);
});

describeWithNats(import.meta.url)("crossmap stream --fhir-server", () => {
  it("acknowledges a message once the server accepted it, redelivers it while the server is down, dead-letters a rejected one", async () => {
    const all = Array.from({ length: 6 }, (_, k) => message(k + 1));
    // The first three requests find the server down (503). With --fhir-retries 1 a delivery tries twice,
    // and two partitions are in flight at once, so exactly one delivery meets two 503s whatever the
    // interleaving: that message is redelivered. The Bundle of message 4 (FAC_A-4) is refused.
    proxy = await startFlakyProxy(fhir.url, (n, body) =>
      n < 3
        ? { status: 503, retryAfter: "0" }
        : body.includes("REFUSED")
          ? { status: 400, diagnostics: "Observation.value: out of range" }
          : { forward: true },
    );
    const file = join(dir, "feed.hl7");
    writeFileSync(file, all.map((m) => m.text).join("\n"));
    const published = await runCli(["publish", "--nats", nats.url, "--subject", "hl7.fhir", file]);
    expect(published.code).toBe(0);

    const feed = startCli(
      ["stream", "--nats", nats.url, "--from", "hl7v2_2.5.1", "--to", "fhir_r4", "--in", "hl7.fhir"].concat([
        "--fhir-server",
        proxy.url,
        "--fhir-retries",
        "1",
        "--health-port",
        "127.0.0.1:0",
      ]),
    );
    const url = (await feed.waitFor(/health on (http:\/\/[\d.]+:\d+)/))[1] as string;
    const sum = (v: unknown) => Object.values((v ?? {}) as Record<string, number>).reduce((a, b) => a + b, 0);
    await until(
      async () => {
        const { body } = await health(url);
        return sum(body.messages_total) + sum(body.dead_letters_total) === 6;
      },
      120_000,
      "6 messages",
    );
    const { body } = await health(url);
    expect(body).toMatchObject({
      messages_total: { FAC_A: 2, FAC_B: 3 },
      dead_letters_total: { FAC_A: 1 },
      redeliveries_total: 1,
      failures_total: 1,
    });
    // Five messages' patients on the server; the refused one's not.
    const mrns = (await fhir.all("Patient")).map(
      (p) => (p as { identifier?: { value?: string }[] }).identifier?.[0]?.value,
    );
    expect(mrns.sort()).toEqual(["1", "2", "3", "5", "6"]);

    const nc = await connect({ servers: nats.url });
    try {
      const stream = await (await jetstreamManager(nc)).streams.find("hl7.fhir-dead.>");
      const consumer = await jetstream(nc).consumers.get(stream, { deliver_policy: DeliverPolicy.All });
      const letter = JSON.parse((await consumer.next())?.string() ?? "{}");
      expect(letter.source.id).toBe("FAC_A-4");
      // What the conversion said of the message (its Observation's id fell back), then the server's answer.
      expect(letter.issues.map((i: { code: string }) => i.code)).toEqual(["no_identity", "fhir_rejected"]);
      expect(letter.issues.slice(1)).toEqual([
        {
          file: expect.stringMatching(/^hl7\.fhir\.FAC_A#\d+$/),
          code: "fhir_rejected",
          severity: "error",
          message: "transaction of 3 entries rejected: 400: processing: Observation.value: out of range",
        },
      ]);
    } finally {
      await nc.close();
    }
    expect(feed.stderr()).toContain("it will be redelivered");
    feed.kill("SIGTERM");
    expect(await feed.exited()).toBe(0);
  }, 180_000);
});
