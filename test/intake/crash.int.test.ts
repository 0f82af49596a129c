// Durable before acknowledged: 2,000 messages from 4 connections; the listener (a real CLI process) is
// killed with SIGKILL in the middle and started again on the same journal; the senders resend what they had
// no ACK for, as MLLP senders do. Every message is then converted exactly once, in order per patient.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { killAll, until } from "../scale/nats-harness.js";
import { bundleId, type Listener, linesOf, metricsOf, RawClient, startListener } from "./mllp-harness.js";

const CONNECTIONS = 4;
const PER_CONNECTION = 500;
const PATIENTS = 40;

afterAll(async () => {
  await killAll();
});

/** Message `i` of connection `c`: patients are spread so that each belongs to one connection. */
function message(c: number, i: number): { id: string; patient: number; text: string } {
  const patient = c + CONNECTIONS * (i % (PATIENTS / CONNECTIONS));
  const id = `C${c}-${String(i).padStart(4, "0")}`;
  const text =
    `MSH|^~\\&|ADT|WARD${c}|CROSSMAP|HOSP|20240101120000||ADT^A08^ADT_A01|${id}|P|2.5.1\r` +
    `EVN|A08|20240101120000\rPID|1||PAT${patient}^^^HOSP^MR||DOE^P${patient}||19700101|F\r` +
    `PV1|1|I|W${c}^${i}\r`;
  return { id, patient, text };
}

describe("crossmap listen after kill -9", () => {
  it("converts every acknowledged message exactly once, in order per patient", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crossmap-crash-"));
    const args = ["--journal", join(dir, "journal"), "--out-dir", join(dir, "out"), "--workers", "1"];
    let listener: Listener = await startListener(args);
    let acked = 0;
    const ackedIds = new Set<string>();

    // A sender as MLLP senders are: one message at a time, the next only after its ACK; on a broken
    // connection it reconnects and sends the unacknowledged message again.
    const sender = async (c: number) => {
      let client: RawClient | undefined;
      for (let i = 0; i < PER_CONNECTION; ) {
        const m = message(c, i);
        try {
          client ??= await RawClient.connect(listener.port);
          const answer = await client.send(m.text);
          if (answer === undefined) throw new Error("closed");
          expect(answer).toContain(`\rMSA|AA|${m.id}\r`);
          ackedIds.add(m.id);
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
    const senders = Array.from({ length: CONNECTIONS }, (_, c) => sender(c));

    await until(() => acked >= 600, 120_000, "600 messages acknowledged");
    listener.proc.kill("SIGKILL");
    await listener.proc.exited();
    const ackedBeforeKill = ackedIds.size;
    listener = await startListener(args);
    await Promise.all(senders);
    expect(ackedIds.size).toBe(CONNECTIONS * PER_CONNECTION);
    await until(
      async () => linesOf(join(dir, "out"), "bundles").length >= CONNECTIONS * PER_CONNECTION,
      120_000,
      "every message converted",
    );
    await until(async () => (await metricsOf(listener)).journal_pending === 0, 60_000, "journal emptied");

    // Every message exactly once: the Bundle ids in the output are those of the 2,000 messages.
    const all = Array.from({ length: CONNECTIONS }, (_, c) =>
      Array.from({ length: PER_CONNECTION }, (_, i) => message(c, i)),
    ).flat();
    const byBundle = new Map(all.map((m) => [bundleId(m.text), m]));
    const written = linesOf(join(dir, "out"), "bundles").map((l) => (JSON.parse(l) as { id: string }).id);
    expect(written.length).toBe(all.length);
    expect(new Set(written).size).toBe(all.length);
    expect(written.every((id) => byBundle.has(id))).toBe(true);
    // In order per patient: each patient's messages appear in the order they were sent.
    const seen = new Map<number, number>();
    const outOfOrder: string[] = [];
    for (const id of written) {
      const m = byBundle.get(id) as ReturnType<typeof message>;
      const n = Number(m.id.slice(m.id.indexOf("-") + 1));
      if ((seen.get(m.patient) ?? -1) > n) outOfOrder.push(m.id);
      seen.set(m.patient, n);
    }
    expect(outOfOrder).toEqual([]);
    // The kill came in the middle of the run, and the restart had some of it still to convert or to hear.
    expect(ackedBeforeKill).toBeGreaterThanOrEqual(600);
    expect(ackedBeforeKill).toBeLessThan(all.length);
  });
});
