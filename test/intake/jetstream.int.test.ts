// `crossmap listen --nats URL --out-subject S` against a real nats-server: the journal is a JetStream
// stream (resends recognised by its duplicate window), Bundles are published in order per patient, and
// after kill -9 and a restart nothing is converted or published again.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DeliverPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWithNats, killAll, type NatsServer, startNatsServer, until } from "../scale/nats-harness.js";
import { bundleId, metricsOf, RawClient, startListener } from "./mllp-harness.js";

let server: NatsServer;

beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await killAll();
  await server?.stop();
});

const message = (c: number, i: number) =>
  `MSH|^~\\&|ADT|WARD${c}|CROSSMAP|HOSP|20240101120000||ADT^A08^ADT_A01|N${c}-${i}|P|2.5.1\r` +
  `EVN|A08|20240101120000\rPID|1||PAT${c}^^^HOSP^MR||DOE^P${c}||19700101|F\rPV1|1|I|W${c}^${i}\r`;

/** The Bundle ids published on `subject`, in stream order. */
async function published(url: string, subject: string): Promise<string[]> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    const stream = await jsm.streams.find(subject);
    const total = (await jsm.streams.info(stream)).state.messages;
    const out: string[] = [];
    if (total === 0) return out;
    const consumer = await jetstream(nc).consumers.get(stream, { deliver_policy: DeliverPolicy.All });
    const messages = await consumer.consume();
    for await (const m of messages) {
      out.push((m.json() as { id: string }).id);
      if (out.length === total) break;
    }
    await messages.close();
    return out;
  } finally {
    await nc.close();
  }
}

const PER = 60;

describeWithNats(import.meta.url)("crossmap listen --nats", () => {
  it("keeps messages in JetStream, publishes each Bundle once in order, through a kill -9 mid-run", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crossmap-listen-nats-"));
    const args = ["--nats", server.url, "--out-subject", "fhir.bundles", "--journal", join(dir, "progress")];
    let listener = await startListener(args);
    expect(listener.proc.stderr()).toContain(
      `journal jetstream; output NATS subject fhir.bundles; dead letters and issues in ${join(dir, "progress", "dead-letter")}`,
    );
    let acked = 0;
    // Senders as MLLP senders are: the next message after the ACK; after a broken connection, the same again.
    const sender = async (c: number) => {
      let client: RawClient | undefined;
      for (let i = 0; i < PER; ) {
        try {
          client ??= await RawClient.connect(listener.port);
          const answer = await client.send(message(c, i));
          if (answer === undefined) throw new Error("closed");
          expect(answer).toContain(`\rMSA|AA|N${c}-${i}\r`);
          acked++;
          i++;
        } catch {
          client?.close();
          client = undefined;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      client?.close();
    };
    const senders = [0, 1, 2].map(sender);
    await until(() => acked >= 60, 60_000, "60 acknowledged");
    listener.proc.kill("SIGKILL");
    await listener.proc.exited();
    listener = await startListener(args);
    await Promise.all(senders);
    await until(async () => (await metricsOf(listener)).journal_pending === 0, 60_000, "all converted");

    const expected = [0, 1, 2].map((c) => Array.from({ length: PER }, (_, i) => bundleId(message(c, i))));
    const inOrder = (ids: string[]) => expected.map((list) => ids.filter((id) => list.includes(id)));
    await until(
      async () => (await published(server.url, "fhir.bundles")).length >= 3 * PER,
      60_000,
      "published",
    );
    const ids = await published(server.url, "fhir.bundles");
    expect([ids.length, new Set(ids).size, inOrder(ids)]).toEqual([3 * PER, 3 * PER, expected]);

    // A resend after all that: recognised by the stream's duplicate window, answered, not converted again.
    const client = await RawClient.connect(listener.port);
    const resend = await client.send(message(1, 3));
    client.close();
    expect(resend).toContain("\rMSA|AA|N1-3\r");
    expect((await metricsOf(listener)).journal_pending).toBe(0);
    expect(await published(server.url, "fhir.bundles")).toEqual(ids);
  });
});
