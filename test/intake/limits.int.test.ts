// `crossmap listen` over TLS with client certificates, at its limits: a connection cap, an idle timeout,
// a backlog bound of one message (answers wait, nothing is refused), and a message that converts to
// nothing (a dead letter with its issues, and an application AE in enhanced mode).
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killAll, until } from "../scale/nats-harness.js";
import {
  frame,
  type Listener,
  linesOf,
  metricsOf,
  RawClient,
  startListener,
  steady,
} from "./mllp-harness.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/mllp/", import.meta.url));
const tlsFile = (name: string) => join(FIXTURES, "tls", name);
const clientTls = {
  ca: readFileSync(tlsFile("ca.pem")),
  cert: readFileSync(tlsFile("client.pem")),
  key: readFileSync(tlsFile("client.key")),
  servername: "localhost",
};

let dir: string;
let listener: Listener;

const ADT = (id: string, pid = true) =>
  `MSH|^~\\&|LAB|HOSP|CROSSMAP|HOSP|20240101120000||ADT^A08^ADT_A01|${id}|P|2.5.1\r` +
  `EVN|A08|20240101120000\r${pid ? `PID|1||${id}^^^HOSP^MR||DOE^JOHN\r` : ""}`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "crossmap-listen-limits-"));
  listener = await startListener([
    "--journal",
    join(dir, "journal"),
    "--out-dir",
    join(dir, "out"),
    "--crossmap",
    join(FIXTURES, "pid-only.yaml"),
    "--tls-cert",
    tlsFile("server.pem"),
    "--tls-key",
    tlsFile("server.key"),
    "--tls-ca",
    tlsFile("ca.pem"),
    "--max-connections",
    "2",
    "--idle-timeout",
    "3s",
    "--max-pending",
    "1",
    "--workers",
    "1",
  ]);
});
afterAll(async () => {
  await killAll();
});

describe("crossmap listen at its limits", () => {
  it("takes a sender with a client certificate over TLS, and refuses one without", async () => {
    const c = await RawClient.connect(listener.port, clientTls);
    expect(await c.send(ADT("TLS-1"))).toContain("\rMSA|AA|TLS-1\r");
    c.close();
    const { ca, servername } = clientTls;
    const refused = await RawClient.connect(listener.port, { ca, servername }).then(
      async (r) => {
        // TLS 1.3 reports the missing certificate after the handshake: the connection is closed unanswered.
        r.write(frame(ADT("TLS-2")));
        return r.next();
      },
      (err: Error) => err.message,
    );
    expect(refused).toBeUndefined();
    await until(async () => (await metricsOf(listener)).connections === 0, 30_000, "connections closed");
    const m = await metricsOf(listener);
    expect([m.connections_closed_total, m.received_total]).toEqual([{ tls: 1 }, 1]);
  });

  it("makes a message that converts to nothing a dead letter, with an application AE naming why", async () => {
    const c = await RawClient.connect(listener.port, clientTls);
    c.write(frame(ADT("DEAD-1", false).replace("|P|2.5.1\r", "|P|2.5.1|||NE|AL\r")));
    const app = await c.next();
    c.close();
    expect(steady(app ?? "")).toBe(
      "MSH|^~\\&|CROSSMAP|HOSP|LAB|HOSP|<time>||ACK^A08^ACK|<id>|P|2.5.1\rMSA|AE|DEAD-1\r" +
        "ERR|||207^Application internal error^HL70357|E|||conversion_failed: no segment of the message became a resource\r",
    );
    const letters = linesOf(join(dir, "out"), "dead-letters").map((l) => JSON.parse(l));
    expect(letters).toHaveLength(1);
    const { received, journal_id, ...letter } = letters[0];
    expect(letter).toEqual({
      sender: "LAB|HOSP",
      control_id: "DEAD-1",
      issues: [
        {
          file: `journal#${journal_id}`,
          message_index: 1,
          segment: 1,
          segment_type: "MSH",
          code: "unmapped_segment",
          severity: "warning",
          message: "segment MSH is not mapped by the crossmap; its content is not in the Bundle",
        },
        {
          file: `journal#${journal_id}`,
          message_index: 1,
          segment: 2,
          segment_type: "EVN",
          code: "unmapped_segment",
          severity: "warning",
          message: "segment EVN is not mapped by the crossmap; its content is not in the Bundle",
        },
        {
          file: `journal#${journal_id}`,
          code: "conversion_failed",
          severity: "error",
          message: "no segment of the message became a resource",
        },
      ],
      message: ADT("DEAD-1", false).replace("|P|2.5.1\r", "|P|2.5.1|||NE|AL\r"),
    });
    expect(typeof received).toBe("string");
    expect((await metricsOf(listener)).dead_letters_total).toBe(1);
  });

  it("past the backlog bound delays answers instead of refusing: every message AA and converted", async () => {
    const before = await metricsOf(listener);
    const senders = [0, 1].map(async (c) => {
      const client = await RawClient.connect(listener.port, clientTls);
      const codes: string[] = [];
      for (let i = 0; i < 10; i++) {
        const answer = await client.send(ADT(`BP-${c}-${i}`));
        codes.push(/\rMSA\|(\w\w)\|/.exec(answer ?? "")?.[1] ?? "none");
      }
      client.close();
      return codes;
    });
    expect(await Promise.all(senders)).toEqual([Array(10).fill("AA"), Array(10).fill("AA")]);
    await until(
      async () => (await metricsOf(listener)).converted_total === (before.converted_total as number) + 20,
      60_000,
      "all converted",
    );
    const after = await metricsOf(listener);
    expect((after.acks_delayed_total as number) - (before.acks_delayed_total as number)).toBeGreaterThan(0);
    expect(after.refused_total).toEqual(before.refused_total);
  });

  it("refuses connections past the cap, and closes a silent one after the idle timeout", async () => {
    await until(async () => (await metricsOf(listener)).connections === 0, 30_000, "connections closed");
    const a = await RawClient.connect(listener.port, clientTls);
    const b = await RawClient.connect(listener.port, clientTls);
    const third = await RawClient.connect(listener.port, clientTls).then(
      async (c) => {
        await c.closed;
        return "closed";
      },
      () => "closed",
    );
    expect(third).toBe("closed");
    expect((await metricsOf(listener)).connections_refused_total).toBe(1);
    // The two others hear nothing and say nothing: the idle timeout closes them.
    await Promise.all([a.closed, b.closed]);
    expect(((await metricsOf(listener)).connections_closed_total as Record<string, number>).idle).toBe(2);
  });
});
