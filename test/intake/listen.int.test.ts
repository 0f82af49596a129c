// `crossmap listen --mllp` as a sender meets it: an independent MLLP client (@medplum/hl7's Hl7Client) and
// raw sockets against the real CLI process. Every sample is acknowledged AA and converted into the very
// Bundle `crossmap map` makes of it; garbage, a frame without its end, a message over the cap and a
// slowloris client each get their documented answer while other connections go on being answered.
import { mkdtempSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { Hl7Message } from "@medplum/core";
import { Hl7Client } from "@medplum/hl7";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";
import { killAll, until } from "../scale/nats-harness.js";
import {
  adtA08,
  bundleId,
  frame,
  type Listener,
  linesOf,
  metricsOf,
  RawClient,
  samples,
  startListener,
  steady,
  withControlId,
} from "./mllp-harness.js";

let dir: string;
let out: string;
let listener: Listener;
const converted = async () => (await metricsOf(listener)).converted_total as number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "crossmap-listen-"));
  out = join(dir, "out");
  listener = await startListener([
    "--journal",
    join(dir, "journal"),
    "--out-dir",
    out,
    "--max-message-bytes",
    "64k",
    "--frame-timeout",
    "4s",
    "--workers",
    "1",
  ]);
});
afterAll(async () => {
  await killAll();
});

describe("crossmap listen --mllp", () => {
  it("acknowledges every sample AA (Hl7Client) and converts it into the Bundle `crossmap map` makes", async () => {
    // The samples share control ids (MSG00001): each gets its own, or they would be resends.
    const messages = samples().map((s, i) => ({ ...s, text: withControlId(s.text, `S${i + 1}`) }));
    const client = new Hl7Client({ host: "127.0.0.1", port: listener.port });
    const acks: string[] = [];
    for (const m of messages) {
      const ack = await client.sendAndWait(Hl7Message.parse(m.text), { timeoutMs: 60_000 });
      acks.push(
        `${ack.getSegment("MSA")?.getField(1)?.toString()} ${ack.getSegment("MSA")?.getField(2)?.toString()}`,
      );
    }
    await client.close();
    expect(acks).toEqual(messages.map((_, i) => `AA S${i + 1}`));
    await until(async () => (await converted()) === messages.length, 60_000, "every sample converted");

    const inputs = join(dir, "samples");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(inputs);
    for (const m of messages) writeFileSync(join(inputs, m.name), m.text.replaceAll("\r", "\n"));
    const mapped = await runCli(["map", "--from", "hl7v2_2.5.1", "--to", "fhir_r4", inputs, "--quiet"]);
    const expected = mapped.stdout.split("\n").filter((l) => l !== "");
    const byId = (lines: string[]) =>
      lines.map((l) => JSON.parse(l) as { id: string }).sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(expected.length).toBe(messages.length);
    expect(byId(linesOf(out, "bundles"))).toEqual(byId(expected));
    // The messages with issues have one line each in the issues file, as `map --errors` lists them.
    const issues = linesOf(out, "issues").map(
      (l) => JSON.parse(l) as { control_id: string; issues: unknown[] },
    );
    const mapErrors = await runCli([
      "map",
      "--from",
      "hl7v2_2.5.1",
      "--to",
      "fhir_r4",
      inputs,
      "--quiet",
      "--errors",
      join(dir, "errors.ndjson"),
    ]);
    const { readFileSync } = await import("node:fs");
    const mapIssues = readFileSync(join(dir, "errors.ndjson"), "utf8").split("\n").filter(Boolean);
    expect([mapErrors.code, issues.reduce((n, l) => n + l.issues.length, 0)]).toEqual([1, mapIssues.length]);
  });

  it("answers a resend of a kept message with the original ACK, and converts it once", async () => {
    const before = await converted();
    const c = await RawClient.connect(listener.port);
    const first = await c.send(adtA08("RESEND-1"));
    await until(async () => (await converted()) === before + 1, 60_000, "first conversion");
    const again = await c.send(adtA08("RESEND-1"));
    c.close();
    expect(again).toBe(first);
    expect(steady(first ?? "")).toBe(
      "MSH|^~\\&|CROSSMAP|HOSP|LAB|HOSP|<time>||ACK^A08^ACK|<id>|P|2.5.1\rMSA|AA|RESEND-1\r",
    );
    const m = await metricsOf(listener);
    expect([m.converted_total, m.duplicates_total]).toEqual([before + 1, 1]);
    const id = bundleId(adtA08("RESEND-1"));
    expect(
      linesOf(out, "bundles").filter((l) => l.startsWith(`{"resourceType":"Bundle","id":"${id}"`)).length,
    ).toBe(1);
  });

  it("answers garbage, a message over the cap and a frame cut short with AR naming why", async () => {
    const c = await RawClient.connect(listener.port);
    c.write("GET / HTTP/1.1\r\n\r\n");
    expect(steady((await c.next()) ?? "")).toBe(
      "MSH|^~\\&|||||<time>||ACK|<id>|P|2.5.1\rMSA|AR|\r" +
        'ERR|||100^Segment sequence error^HL70357|E|||18 bytes outside an MLLP frame ("GET / HTTP/1.1<0D><0A><0D><0A>"): ' +
        "a message starts with 0x0B and ends with 0x1C 0x0D\r",
    );
    const big = `${adtA08("BIG-1")}NTE|1||${"x".repeat(70_000)}\r`;
    expect(steady((await c.send(big)) ?? "")).toBe(
      "MSH|^~\\&|CROSSMAP|HOSP|LAB|HOSP|<time>||ACK^A08^ACK|<id>|P|2.5.1\rMSA|AR|BIG-1\r" +
        `ERR|||207^Application internal error^HL70357|E|||the message is ${Buffer.byteLength(big)} bytes, ` +
        "over the limit of 65536 (--max-message-bytes)\r",
    );
    c.write(Buffer.concat([Buffer.of(0x0b), Buffer.from(adtA08("CUT-1"))]));
    c.write(frame(adtA08("AFTER-CUT")));
    expect(steady((await c.next()) ?? "")).toBe(
      "MSH|^~\\&|CROSSMAP|HOSP|LAB|HOSP|<time>||ACK^A08^ACK|<id>|P|2.5.1\rMSA|AR|CUT-1\r" +
        "ERR|||100^Segment sequence error^HL70357|E|||the frame was not ended (0x1C 0x0D) before the next one started (0x0B)\r",
    );
    expect(steady((await c.next()) ?? "")).toContain("MSA|AA|AFTER-CUT\r");
    c.close();
  });

  it("answers a message breaking a rule with AE, and one it cannot read with AR", async () => {
    const c = await RawClient.connect(listener.port);
    expect(steady((await c.send(adtA08(""))) ?? "")).toBe(
      "MSH|^~\\&|CROSSMAP|HOSP|LAB|HOSP|<time>||ACK^A08^ACK|<id>|P|2.5.1\rMSA|AE|\r" +
        "ERR||MSH^1^10|101^Required field missing^HL70357|E|||MSH-10 (message control id) is empty: it is what recognises a resend\r",
    );
    expect(steady((await c.send(adtA08("V3").replace("|2.5.1\r", "|3.0\r"))) ?? "")).toBe(
      "MSH|^~\\&|CROSSMAP|HOSP|LAB|HOSP|<time>||ACK^A08^ACK|<id>|P|3.0\rMSA|AE|V3\r" +
        'ERR||MSH^1^12|203^Unsupported version id^HL70357|E|||MSH-12 version "3.0" is not supported: ' +
        "only HL7 v2 messages are accepted (MSH-12 2.x, such as 2.3.1 or 2.5.1)\r",
    );
    expect(steady((await c.send(`${adtA08("BAD-SEG")}ZZ|x\r`)) ?? "")).toBe(
      "MSH|^~\\&|CROSSMAP|HOSP|LAB|HOSP|<time>||ACK^A08^ACK|<id>|P|2.5.1\rMSA|AR|BAD-SEG\r" +
        'ERR|||100^Segment sequence error^HL70357|E|||segment 4: "ZZ\\F\\x" is not a segment: expected a 3-character id and "\\F\\"\r',
    );
    c.close();
  });

  it("answers a message whose MSH-15 or MSH-16 is not an acknowledgment type with AE, in original mode", async () => {
    const c = await RawClient.connect(listener.port);
    const ack = (id: string, n: number, value: string) =>
      `MSH|^~\\&|CROSSMAP|HOSP|LAB|HOSP|<time>||ACK^A08^ACK|<id>|P|2.5.1\rMSA|AE|${id}\r` +
      `ERR||MSH^1^${n}|103^Table value not found^HL70357|E|||MSH-${n} "${value}" is not an acknowledgment type (AL, NE, ER or SU)\r`;
    const refused = [
      adtA08("MODE-15", "P1", "|||XX"),
      adtA08("MODE-16", "P1", "||||YY"),
      adtA08("MODE-AL-16", "P1", "|||AL|YY"),
    ];
    // One after the other on one connection, each answered before the next is sent (as a sender does).
    expect(steady((await c.send(refused[0] as string)) ?? "")).toBe(ack("MODE-15", 15, "XX"));
    expect(steady((await c.send(refused[1] as string)) ?? "")).toBe(ack("MODE-16", 16, "YY"));
    expect(steady((await c.send(refused[2] as string)) ?? "")).toBe(ack("MODE-AL-16", 16, "YY"));
    // Not kept: the connection goes on, and the next message of the same patient (which would be converted
    // after them) is the only one written.
    expect(steady((await c.send(adtA08("MODE-OK"))) ?? "")).toContain("\rMSA|AA|MODE-OK\r");
    c.close();
    const written = (text: string) =>
      linesOf(out, "bundles").some((l) => l.startsWith(`{"resourceType":"Bundle","id":"${bundleId(text)}"`));
    await until(() => written(adtA08("MODE-OK")), 60_000, "MODE-OK written");
    expect(refused.filter(written)).toEqual([]);
  });

  it("reads MSH-18 ASCII as UTF-8 and acknowledges it AA", async () => {
    const c = await RawClient.connect(listener.port);
    expect(steady((await c.send(adtA08("ASCII-1", "P1", "||||||ASCII"))) ?? "")).toBe(
      "MSH|^~\\&|CROSSMAP|HOSP|LAB|HOSP|<time>||ACK^A08^ACK|<id>|P|2.5.1\rMSA|AA|ASCII-1\r",
    );
    c.close();
  });

  it("answers a message in 8859/1 in Latin-1, naming 8859/1 in the ACK's MSH-18", async () => {
    const c = await RawClient.connect(listener.port);
    // A sending facility with a character outside ASCII, which the ACK copies into MSH-6.
    const text = adtA08("LATIN-1", "P1", "||||||8859/1").replace("|LAB|HOSP|", "|LAB|MÜNCHEN|");
    c.write(frame(Buffer.from(text, "latin1")));
    const answer = await c.nextBytes();
    c.close();
    // Read as Latin-1, the bytes give this text only if they were written in Latin-1 (Ü is 0xDC, not C3 9C).
    expect(steady(answer?.toString("latin1") ?? "")).toBe(
      "MSH|^~\\&|CROSSMAP|HOSP|LAB|MÜNCHEN|<time>||ACK^A08^ACK|<id>|P|2.5.1||||||8859/1\rMSA|AA|LATIN-1\r",
    );
  });

  it("answers a message in UTF-8 in UTF-8, copying its MSH fields byte for byte", async () => {
    const c = await RawClient.connect(listener.port);
    const text = adtA08("UTF-8-Ä1").replace("|LAB|HOSP|", "|LAB|MÜNCHEN|");
    c.write(frame(Buffer.from(text, "utf8")));
    const answer = await c.nextBytes();
    c.close();
    // Ü as sent (C3 9C), in MSH-6 and in MSA-2's Ä (C3 84); not read as two Latin-1 characters and
    // written again as four bytes (C3 83 C2 9C).
    expect(steady(answer?.toString("utf8") ?? "")).toBe(
      "MSH|^~\\&|CROSSMAP|HOSP|LAB|MÜNCHEN|<time>||ACK^A08^ACK|<id>|P|2.5.1\rMSA|AA|UTF-8-Ä1\r",
    );
    expect(answer?.includes(Buffer.from("|LAB|M\u00dcNCHEN|", "utf8"))).toBe(true);
  });

  it("answers a message in 8859/1 over the cap in 8859/1 too, naming 8859/1 in MSH-18", async () => {
    const c = await RawClient.connect(listener.port);
    const text = `${adtA08("BIG-LATIN-1", "P1", "||||||8859/1").replace("|LAB|HOSP|", "|LAB|MÜNCHEN|")}NTE|1||${"x".repeat(70_000)}\r`;
    c.write(frame(Buffer.from(text, "latin1")));
    const answer = await c.nextBytes();
    c.close();
    // Read as Latin-1, the bytes give this text only if they were written in Latin-1 (Ü is 0xDC, not C3 9C).
    expect(steady(answer?.toString("latin1") ?? "")).toBe(
      "MSH|^~\\&|CROSSMAP|HOSP|LAB|MÜNCHEN|<time>||ACK^A08^ACK|<id>|P|2.5.1||||||8859/1\rMSA|AR|BIG-LATIN-1\r" +
        `ERR|||207^Application internal error^HL70357|E|||the message is ${text.length} bytes, ` +
        "over the limit of 65536 (--max-message-bytes)\r",
    );
  });

  it("closes a slowloris connection after the frame timeout, while other connections are answered", async () => {
    const slow = await RawClient.connect(listener.port);
    const bytes = Buffer.concat([Buffer.of(0x0b), Buffer.from(adtA08("SLOW-1"))]);
    let sent = 0;
    const drip = setInterval(() => {
      if (sent < bytes.length && !slow.isClosed) slow.write(bytes.subarray(sent, ++sent));
    }, 100);
    try {
      // Meanwhile another sender is answered, message after message, before the slow one hears anything.
      const client = new Hl7Client({ host: "127.0.0.1", port: listener.port });
      for (let i = 0; i < 5; i++) {
        const ack = await client.sendAndWait(Hl7Message.parse(adtA08(`FAST-${i}`, `F${i}`)), {
          timeoutMs: 60_000,
        });
        expect(ack.getSegment("MSA")?.getField(1)?.toString()).toBe("AA");
      }
      await client.close();
      expect(slow.isClosed).toBe(false);
      const answer = await slow.next();
      // Its MSH came only in part (one byte every 0.1 s): the answer copies what it has of it.
      expect(steady(answer ?? "")).toBe(
        "MSH|^~\\&|CROSSMAP|HOSP|LAB|HOSP|<time>||ACK|<id>|P|2.5.1\rMSA|AR|\r" +
          "ERR|||100^Segment sequence error^HL70357|E|||the frame was not ended (0x1C 0x0D) within 4 s\r",
      );
      await slow.closed;
    } finally {
      clearInterval(drip);
    }
    const m = await metricsOf(listener);
    expect(m.connections_closed_total).toEqual({ frame_timeout: 1 });
  });

  it("in enhanced mode answers CA once kept, then the application ACK once converted", async () => {
    const c = await RawClient.connect(listener.port);
    const text = adtA08("ENH-1").replace("|P|2.5.1\r", "|P|2.5.1|||AL|AL\r");
    c.write(frame(text));
    const commit = await c.next();
    const app = await c.next();
    c.close();
    expect([steady(commit ?? ""), steady(app ?? "")]).toEqual([
      "MSH|^~\\&|CROSSMAP|HOSP|LAB|HOSP|<time>||ACK^A08^ACK|<id>|P|2.5.1\rMSA|CA|ENH-1\r",
      "MSH|^~\\&|CROSSMAP|HOSP|LAB|HOSP|<time>||ACK^A08^ACK|<id>|P|2.5.1\rMSA|AA|ENH-1\r",
    ]);
  });

  it("refuses a second listener on its journal, exit 2, naming the first", async () => {
    const journal = join(dir, "journal");
    const second = await runCli([
      "listen",
      "--mllp",
      "0",
      "--host",
      "127.0.0.1",
      "--journal",
      journal,
      "--out-dir",
      join(dir, "second"),
    ]);
    expect(second.code).toBe(2);
    expect(second.stderr).toBe(
      `crossmap: --journal ${journal} is in use by the listener with pid ${listener.proc.child.pid} on ${hostname()}: one listener per journal (stop it first, or give another --journal; if it is gone, remove ${join(journal, "listener.lock")})\n`,
    );
    expect(await converted()).toBeGreaterThan(0);
  });

  it("serves Prometheus metrics", async () => {
    const text = await (await fetch(`${listener.health}/metrics`)).text();
    const m = await metricsOf(listener);
    expect(text).toContain(`crossmap_listen_converted_total ${m.converted_total}\n`);
    expect(text).toContain('crossmap_listen_acks_total{code="CA"} 1\n');
    expect(text).toContain("crossmap_listen_duplicates_total 1\n");
    expect(text).toContain("crossmap_listen_journal_pending 0\n");
    expect(text).toContain("# TYPE crossmap_listen_lag_seconds gauge\n");
    expect(m.refused_total).toEqual({
      outside_frame: 1,
      too_large: 2,
      unended: 1,
      rule: 5,
      unreadable: 1,
      frame_timeout: 1,
    });
  });
});
