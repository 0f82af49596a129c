// `crossmap publish` + `crossmap stream` against a real nats-server: 1,000 HL7 v2 messages from three
// senders, two poisoned (malformed) and two with a field `map` reports and leaves out. Order per sender is
// kept, the poisoned ones are dead letters with their issues, the others are published as `map` writes
// them, with their issues in headers, and none of them holds up the messages after it.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DeliverPolicy, jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";
import {
  describeWithNats,
  health,
  killAll,
  type NatsServer,
  startCli,
  startNatsServer,
  until,
} from "./nats-harness.js";

const describeNats = describeWithNats(import.meta.url);

const SENDERS = ["FAC_A", "FAC_B", "FAC_C"];
/** Message number -> what is wrong with it: it cannot be parsed, so `map` writes nothing of it. */
const POISON: Record<number, { code: string; edit: (m: string) => string }> = {
  // A segment id of two letters.
  300: { code: "malformed_message", edit: (m) => m.replace("\rOBX|1", "\rOB|1") },
  // MSH-2 that is not four distinct encoding characters.
  601: { code: "malformed_message", edit: (m) => m.replace("MSH|^~\\&|", "MSH|^^|") },
};
/** Message number -> a field `map` reports and leaves out, writing the rest of the Bundle. */
const LOSSY: Record<number, (m: string) => string> = {
  // An OBX without OBX-3: its Observation would be invalid FHIR, so it is left out of the Bundle.
  401: (m) => m.replace("2345-7^Glucose^LN", ""),
  // Local codes: PID-16 marital status `Married`, NK1-3 relationship `SO`.
  500: (m) => m.replace("|19800101|M\r", "|19800101|M||||||||Married\rNK1|1|DOE^JANE|SO\r"),
};

function message(i: number): { sender: string; id: string; text: string } {
  const sender = SENDERS[i % 3]!;
  const id = `${sender}-${String(i).padStart(4, "0")}`;
  const text =
    `MSH|^~\\&|LAB|${sender}|||20240101120000||ORU^R01|${id}|P|2.5.1\r` +
    `PID|1||${i}^^^${sender}^MR||DOE^J||19800101|M\r` +
    `OBX|1|NM|2345-7^Glucose^LN||${80 + (i % 40)}|mg/dL|||||F\r`;
  return { sender, id, text: POISON[i] ? POISON[i].edit(text) : LOSSY[i] ? LOSSY[i](text) : text };
}

let server: NatsServer;
let dir: string;

beforeAll(async () => {
  server = await startNatsServer();
  dir = mkdtempSync(join(tmpdir(), "crossmap-feed-"));
});
afterAll(async () => {
  await killAll();
  await server?.stop();
});

/** Every message of `subject.>` in stream order, with its subject and headers. */
async function readAll(url: string, subject: string, expected: number) {
  const nc = await connect({ servers: url });
  try {
    const js = jetstream(nc);
    const stream = await (await import("@nats-io/jetstream"))
      .jetstreamManager(nc)
      .then((m) => m.streams.find(`${subject}.>`));
    const consumer = await js.consumers.get(stream, {
      filter_subjects: `${subject}.>`,
      deliver_policy: DeliverPolicy.All,
    });
    const out: { subject: string; id: string; data: string; issues: string | undefined }[] = [];
    if (expected === 0) return out;
    const messages = await consumer.consume();
    for await (const m of messages) {
      const h = m.headers;
      const issues = h?.has("Crossmap-Issues")
        ? `${h.get("Crossmap-Errors") || 0} ${h.get("Crossmap-Warnings") || 0} ${h.get("Crossmap-Issues")}`
        : undefined;
      out.push({ subject: m.subject, id: h?.get("Crossmap-Source-Id") ?? "", data: m.string(), issues });
      if (out.length === expected) break;
    }
    await messages.close();
    return out;
  } finally {
    await nc.close();
  }
}

describeNats("crossmap stream: an HL7 v2 feed from three senders", () => {
  it("keeps each sender's order, publishes what `map` writes with its issues, dead-letters the rest", async () => {
    const all = Array.from({ length: 1000 }, (_, k) => message(k + 1));
    const file = join(dir, "feed.hl7");
    writeFileSync(file, all.map((m) => m.text).join("\n"));
    const published = await runCli(["publish", "--nats", server.url, "--subject", "hl7.in", file]);
    expect([published.code, published.stderr]).toEqual([
      0,
      "crossmap publish: 1000 messages to hl7.in.<partition> (FAC_B 334, FAC_C 333, FAC_A 333)\n",
    ]);

    const feed = startCli(
      ["stream", "--nats", server.url, "--from", "hl7v2_2.5.1", "--to", "fhir_r4", "--in", "hl7.in"].concat([
        "--out",
        "fhir.out",
        "--health-port",
        "127.0.0.1:0",
      ]),
    );
    const url = (await feed.waitFor(/health on (http:\/\/[\d.]+:\d+)/))[1]!;
    const sum = (v: unknown) => Object.values((v ?? {}) as Record<string, number>).reduce((a, b) => a + b, 0);
    await until(
      async () => {
        const { body } = await health(url);
        return sum(body.messages_total) + sum(body.dead_letters_total) === 1000;
      },
      180_000,
      "1,000 messages",
    );
    const { status, body } = await health(url);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: "ok",
      partitions: 3,
      messages_total: { FAC_A: 332, FAC_B: 333, FAC_C: 333 },
      dead_letters_total: { FAC_A: 1, FAC_B: 1 },
      redeliveries_total: 0,
      errors_total: 3,
    });
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toContain('crossmap_stream_dead_letters_total{partition="FAC_B"} 1\n');
    expect(metrics).toContain('crossmap_stream_lag{partition="FAC_A"} 0\n');

    // Order per sender: the output's source ids in stream order are the input's, less the poisoned ones.
    const out = await readAll(server.url, "fhir.out", 998);
    for (const sender of SENDERS) {
      const expected = all.filter((m, k) => m.sender === sender && !POISON[k + 1]).map((m) => m.id);
      const got = out.filter((m) => m.subject === `fhir.out.${sender}`).map((m) => m.id);
      expect(got).toEqual(expected);
    }
    // What `map` writes of the lossy messages, byte for byte, with its issues in the headers.
    const lossy = join(dir, "lossy.hl7");
    writeFileSync(
      lossy,
      Object.keys(LOSSY)
        .map((n) => message(Number(n)).text)
        .join("\n"),
    );
    const mapped = await runCli([
      "map",
      "-q",
      "--from",
      "hl7v2_2.5.1",
      "--to",
      "fhir_r4",
      "--errors",
      join(dir, "lossy.errors"),
      lossy,
    ]);
    expect(mapped.code).toBe(1);
    const bundles = mapped.stdout.trimEnd().split("\n");
    const mapIssues = readFileSync(join(dir, "lossy.errors"), "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    Object.keys(LOSSY).forEach((n, k) => {
      const m = message(Number(n));
      const published = out.find((o) => o.id === m.id)!;
      expect(published.data).toBe(bundles[k]);
      const [errors, warnings, ...json] = published.issues!.split(" ");
      const issues = JSON.parse(json.join(" "));
      // The same issues `map --errors` wrote, named after the feed message instead of the file.
      const expected = mapIssues
        .filter((i) => i.message_index === k + 1)
        .map((i) => ({ ...i, file: `hl7.in.${m.sender}#${n}`, message_index: 1 }));
      const count = (severity: string) => String(expected.filter((i) => i.severity === severity).length);
      expect([errors, warnings, issues]).toEqual([count("error"), count("warning"), expected]);
    });
    expect(mapIssues.map((i) => [i.field, i.code])).toEqual([
      ["OBX.3", "missing_required"],
      ["PID.16", "unmapped_value"],
      ["NK1.3", "unmapped_value"],
      // The Observation without OBX-3 has no filler number either: its id falls back (a warning).
      ["OBX", "no_identity"],
    ]);
    // Only the two lossy messages carry errors (every message of this feed has an OBX without a filler
    // number, so each carries the no_identity warning of its Observation's fallback id).
    expect(out.filter((o) => o.issues !== undefined && !o.issues.startsWith("0 "))).toHaveLength(2);

    const first = JSON.parse(out[0]!.data);
    expect(first.resourceType).toBe("Bundle");
    expect(first.entry.map((e: { resource: { resourceType: string } }) => e.resource.resourceType)).toEqual([
      "MessageHeader",
      "Patient",
      "Observation",
    ]);

    const dead = await readAll(server.url, "hl7.in-dead", 2);
    expect(
      dead.map((d) => {
        const letter = JSON.parse(d.data);
        return [
          d.subject,
          d.id,
          letter.source.id,
          letter.issues.map((i: { code: string }) => i.code),
          letter.message,
        ];
      }),
    ).toEqual(
      Object.keys(POISON).map((n) => {
        const m = message(Number(n));
        return [`hl7.in-dead.${m.sender}`, m.id, m.id, [POISON[Number(n)]!.code], m.text];
      }),
    );

    feed.kill("SIGTERM");
    expect(await feed.exited()).toBe(0);
    expect(feed.stderr()).toMatch(
      /SIGTERM: finishing the messages in hand, then stopping\ncrossmap stream: stopped\n$/,
    );
  }, 240_000);
});

describeNats("crossmap stream: an NDJSON record feed", () => {
  it("maps records in order per partition key, with their issues, and dead-letters a malformed one", async () => {
    const records = Array.from({ length: 60 }, (_, k) => {
      // Record 18 has a gender `map` reports and leaves out; record 41 is not JSON (so in partition `_`).
      const gender = k === 17 ? 1 : [8507, 8532][k % 2];
      const line = `{"person_id": ${k + 1}, "gender_concept_id": ${gender}, "care_site_id": ${(k % 2) + 1}}`;
      return k === 40 ? line.slice(0, -1) : line;
    });
    const file = join(dir, "person.ndjson");
    writeFileSync(file, `${records.join("\n")}\n`);
    const published = await runCli([
      "publish",
      "--nats",
      server.url,
      "--subject",
      "omop.person",
      "--key",
      "care_site_id",
      file,
    ]);
    expect([published.code, published.stderr]).toEqual([
      0,
      "crossmap publish: 60 messages to omop.person.<partition> (1 29, 2 30, _ 1)\n",
    ]);
    const feed = startCli(
      [
        "stream",
        "--nats",
        server.url,
        "--crossmap",
        "test/fixtures/map/omop-to-fhir.yaml",
        "--entity",
        "person",
      ].concat(["--in", "omop.person", "--out", "fhir.patient", "--health-port", "127.0.0.1:0"]),
    );
    const url = (await feed.waitFor(/health on (http:\/\/[\d.]+:\d+)/))[1]!;
    await until(async () => {
      const { body } = await health(url);
      const n = (v: unknown) => Object.values((v ?? {}) as Record<string, number>).reduce((a, b) => a + b, 0);
      return n(body.messages_total) + n(body.dead_letters_total) === 60;
    }, 120_000);
    const out = await readAll(server.url, "fhir.patient", 59);
    for (const site of ["1", "2"]) {
      const ids = out.filter((m) => m.subject === `fhir.patient.${site}`).map((m) => JSON.parse(m.data).id);
      const expected = records
        .map((_, k) => k + 1)
        .filter((id) => String(((id - 1) % 2) + 1) === site && id !== 41)
        .map(String);
      expect(ids).toEqual(expected);
    }
    const eighteen = out.find((m) => JSON.parse(m.data).id === "18")!;
    expect(eighteen.data).toBe('{"resourceType":"Patient","id":"18"}\n');
    expect(eighteen.issues).toBe(
      `1 0 [{"file":"omop.person.2#18","line":1,"entity":"person","field":"person.gender_concept_id","target":"Patient.gender","code":"unmapped_value","severity":"error","message":"1 is not in the value map (8507, 8532, 8551, 8570)","value":1}]`,
    );
    const [dead] = await readAll(server.url, "omop.person-dead", 1);
    const letter = JSON.parse(dead!.data);
    expect(dead!.subject).toBe("omop.person-dead._");
    expect(letter.issues).toMatchObject([{ line: 1, code: "malformed_json" }]);
    expect(letter.message).toBe(records[40]);
    feed.kill("SIGTERM");
    expect(await feed.exited()).toBe(0);
  }, 180_000);
});

describeNats("crossmap stream: two processes on one feed", () => {
  it("keep each sender's order between them (the server hands out one message per sender at a time)", async () => {
    const all = Array.from({ length: 300 }, (_, k) => message(2000 + k));
    const file = join(dir, "shared.hl7");
    writeFileSync(file, all.map((m) => m.text).join("\n"));
    const published = await runCli(["publish", "--nats", server.url, "--subject", "hl7.shared", file]);
    expect(published.code).toBe(0);
    const feeds = ["one", "two"].map(() =>
      startCli(
        ["stream", "--nats", server.url, "--from", "hl7v2_2.5.1", "--to", "fhir_r4"].concat([
          "--in",
          "hl7.shared",
          "--out",
          "fhir.shared",
          "--health-port",
          "127.0.0.1:0",
        ]),
      ),
    );
    const urls = await Promise.all(
      feeds.map(async (f) => (await f.waitFor(/health on (http:\/\/[\d.]+:\d+)/))[1]!),
    );
    const sum = (v: unknown) => Object.values((v ?? {}) as Record<string, number>).reduce((a, b) => a + b, 0);
    const done = async () => {
      let n = 0;
      for (const url of urls) n += sum((await health(url)).body.messages_total);
      return n;
    };
    await until(async () => (await done()) === 300, 180_000, "300 messages");
    const out = await readAll(server.url, "fhir.shared", 300);
    for (const sender of SENDERS) {
      const expected = all.filter((m) => m.sender === sender).map((m) => m.id);
      expect(out.filter((m) => m.subject === `fhir.shared.${sender}`).map((m) => m.id)).toEqual(expected);
    }
    for (const f of feeds) f.kill("SIGTERM");
    for (const f of feeds) expect(await f.exited()).toBe(0);
  }, 240_000);
});
