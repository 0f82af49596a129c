// `crossmap listen --fhir-server URL` against a real FHIR server on loopback (Medplum's router and in-memory
// repository, test/support/fhir-server.ts) behind a test double (test/support/flaky-proxy.ts): every message
// acknowledged once kept; its transaction Bundle posted in order per patient; a Bundle the server refuses
// goes to the dead-letter store with the server's OperationOutcome; while the server cannot be used the
// message stays in the journal (the listener stops) and a restart delivers it.
//
// Server behaviours relied on: transactions (`POST [base]`), `PUT Type/id` creating what does not exist and
// making a new version of what does.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killAll, until } from "../scale/nats-harness.js";
import { type FhirTestServer, startFhirServer } from "../support/fhir-server.js";
import { type FlakyProxy, startFlakyProxy } from "../support/flaky-proxy.js";
import { linesOf, metricsOf, RawClient, startListener } from "./mllp-harness.js";

const ORU = (id: string, patient: string, given: string) =>
  `MSH|^~\\&|LAB|FAC_A|||20240101120000||ORU^R01|${id}|P|2.5.1\r` +
  `PID|1||${patient}^^^FAC_A^MR||DOE^${given}||19800101|M\r` +
  "OBX|1|NM|2345-7^Glucose^LN||95|mg/dL|||||F\r";

let fhir: FhirTestServer;
const proxies: FlakyProxy[] = [];

beforeAll(async () => {
  fhir = await startFhirServer();
}, 120_000);
afterAll(async () => {
  await killAll();
  await Promise.all(proxies.map((p) => p.close()));
  await fhir?.close();
});

const AA = (id: string) => expect.stringMatching(new RegExp(`\\rMSA\\|AA\\|${id}\\r$`));

type Patient = { identifier?: { value?: string }[]; name?: { given?: string[] }[] };

describe("crossmap listen --fhir-server", () => {
  it("posts each message's transaction Bundle in order per patient, and dead-letters one the server refuses", async () => {
    const proxy = await startFlakyProxy(fhir.url, (_n, body) =>
      body.includes("REFUSED")
        ? { status: 400, diagnostics: "Observation.value: out of range" }
        : { forward: true },
    );
    proxies.push(proxy);
    const dir = mkdtempSync(join(tmpdir(), "crossmap-listen-fhir-"));
    const listener = await startListener([
      "--journal",
      join(dir, "journal"),
      "--dead-letter",
      join(dir, "dead"),
      "--fhir-server",
      proxy.url,
      "--workers",
      "1",
    ]);
    // Three versions of patient 1 on one connection, patient 2 and the refused message on another: sent
    // without waiting between connections, so Bundles of the two patients are in flight side by side.
    const [a, b] = await Promise.all([RawClient.connect(listener.port), RawClient.connect(listener.port)]);
    const first = (async () => {
      const acks: (string | undefined)[] = [];
      for (const given of ["FIRST", "SECOND", "THIRD"])
        acks.push(await a.send(ORU(`P1-${given}`, "1", given)));
      return acks;
    })();
    const second = (async () => [
      await b.send(ORU("P2-ONE", "2", "ONE")),
      await b.send(ORU("P3-REFUSED", "3", "REFUSED")),
      await b.send(ORU("P2-TWO", "2", "TWO")),
    ])();
    expect(await first).toEqual([AA("P1-FIRST"), AA("P1-SECOND"), AA("P1-THIRD")]);
    expect(await second).toEqual([AA("P2-ONE"), AA("P3-REFUSED"), AA("P2-TWO")]);
    a.close();
    b.close();
    await until(
      async () => {
        const m = await metricsOf(listener);
        return (m.converted_total as number) + (m.dead_letters_total as number) === 6;
      },
      60_000,
      "6 messages",
    );
    expect(await metricsOf(listener)).toMatchObject({
      converted_total: 5,
      dead_letters_total: 1,
      journal_pending: 0,
      acks_total: { AA: 6 },
    });
    // The last version of each patient is the one the server holds; the refused message's patient is not there.
    const names = Object.fromEntries(
      ((await fhir.all("Patient")) as Patient[]).map((p) => [
        p.identifier?.[0]?.value,
        p.name?.[0]?.given?.[0],
      ]),
    );
    expect(names).toEqual({ "1": "THIRD", "2": "TWO" });
    const letters = linesOf(join(dir, "dead"), "dead-letters").map((l) => JSON.parse(l));
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      sender: "LAB|FAC_A",
      control_id: "P3-REFUSED",
      message: ORU("P3-REFUSED", "3", "REFUSED"),
      issues: [
        {
          file: `journal#${letters[0].journal_id}`,
          code: "fhir_rejected",
          severity: "error",
          message: "transaction of 3 entries rejected: 400: processing: Observation.value: out of range",
        },
      ],
    });
    listener.proc.kill("SIGTERM");
    expect(await listener.proc.exited()).toBe(0);
  }, 120_000);

  it("keeps a message in the journal while the server cannot take it, and delivers it after a restart", async () => {
    const down = await startFlakyProxy(fhir.url, () => ({ status: 503, retryAfter: "0" }));
    proxies.push(down);
    const dir = mkdtempSync(join(tmpdir(), "crossmap-listen-fhir-down-"));
    const args = ["--journal", join(dir, "journal"), "--workers", "1", "--fhir-retries", "0"];
    const first = await startListener([...args, "--fhir-server", down.url]);
    const client = await RawClient.connect(first.port);
    // Acknowledged once kept: the server's state does not hold the answer back.
    expect(await client.send(ORU("P9-DOWN", "9", "DOWN"))).toEqual(AA("P9-DOWN"));
    // Not complete while the server answers 503: the listener stops, the message stays in the journal.
    expect(await first.proc.exited()).toBe(1);
    expect(first.proc.stderr()).toContain("cannot commit converted output");
    expect(down.seen).toEqual(["503"]);
    client.close();

    const again = await startListener([...args, "--fhir-server", fhir.url]);
    expect(again.proc.stderr()).toContain("(1 kept messages to convert)");
    await until(async () => (await metricsOf(again)).converted_total === 1, 60_000, "delivered");
    const patients = ((await fhir.all("Patient")) as Patient[]).map((p) => p.identifier?.[0]?.value);
    expect(patients).toContain("9");
    again.proc.kill("SIGTERM");
    expect(await again.proc.exited()).toBe(0);
  }, 120_000);

  it("says degraded on /healthz (503) while the server does not accept, ok once it does, and exits 1 when the tries run out", async () => {
    let down = true;
    const proxy = await startFlakyProxy(fhir.url, () =>
      down ? { status: 503, retryAfter: "1" } : { forward: true },
    );
    proxies.push(proxy);
    const dir = mkdtempSync(join(tmpdir(), "crossmap-listen-fhir-degraded-"));
    const listener = await startListener([
      "--journal",
      join(dir, "journal"),
      "--workers",
      "1",
      "--fhir-server",
      proxy.url,
      "--fhir-retries",
      "5",
    ]);
    const health = async () => {
      const res = await fetch(`${listener.health}/healthz`);
      return { code: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const client = await RawClient.connect(listener.port);
    expect(await client.send(ORU("P7-DEGRADED", "7", "DEGRADED"))).toEqual(AA("P7-DEGRADED"));
    // The server answers 503 (Retry-After 1 s): the writer tries again, and /healthz says why meanwhile.
    let seen = await health();
    await until(
      async () => {
        seen = await health();
        return seen.body.status !== "ok";
      },
      30_000,
      "degraded",
    );
    expect([seen.code, seen.body.status, seen.body.output, seen.body.output_error]).toEqual([
      503,
      "degraded",
      `FHIR server ${proxy.url}`,
      "503 Service Unavailable: throttled: try again later (503)",
    ]);
    expect(seen.body).toMatchObject({ journal_pending: 1, converted_total: 0, acks_total: { AA: 1 } });
    // The server takes Bundles again: the next try goes through, and /healthz is ok (no output_error).
    down = false;
    await until(async () => (await metricsOf(listener)).converted_total === 1, 30_000, "converted");
    seen = await health();
    expect([seen.code, seen.body.status, "output_error" in seen.body]).toEqual([200, "ok", false]);
    const retried = proxy.seen.filter((x) => x === "503").length;
    expect([retried > 0, seen.body.output_retries_total]).toEqual([true, retried]);
    const text = await (await fetch(`${listener.health}/metrics`)).text();
    expect(text).toContain(`crossmap_listen_output_retries_total ${retried}\n`);

    // Down for good: after --fhir-retries 5 (6 tries) the listener stops, exit 1, the message kept.
    down = true;
    expect(await client.send(ORU("P7-GIVEN-UP", "7", "GIVEN-UP"))).toEqual(AA("P7-GIVEN-UP"));
    expect(await listener.proc.exited()).toBe(1);
    expect(listener.proc.stderr()).toContain(
      `crossmap listen: cannot commit converted output: the FHIR server at ${proxy.url} did not accept a Bundle ` +
        "after 6 tries (last: 503 Service Unavailable: throttled: try again later (503)); stopping (a restart goes on from the journal)\n",
    );
    client.close();
  }, 120_000);
});
