// `crossmap map --fhir-server` when the server is busy, refuses a resource, a message or the credentials:
// a real FHIR server on loopback (Medplum's router and in-memory repository, test/support/fhir-server.ts),
// with a test double in front of it that answers 429/503, holds requests, or refuses Bundles for a while.
//
// Server behaviours relied on: batch and transaction Bundles, `PUT Type/id` as update-or-create, and
// (where named) Medplum's validation of each resource, which answers 400 with an OperationOutcome.

import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  content,
  type FhirTestServer,
  startFhirServer,
  unresolvedReferences,
} from "../support/fhir-server.js";
import { type Fault, startFlakyProxy } from "../support/flaky-proxy.js";
import { repoRoot, runCli } from "./run-cli.js";

const SMALL = join(repoRoot, "test", "fixtures", "map", "synthea27nj");
const SAMPLES = join(repoRoot, "test", "fixtures", "hl7v2", "samples");
const OMOP = ["map", "-q", "--from", "omop_cdm_v5.4", "--to", "fhir_r4"];

const PATIENTS_CROSSMAP = `source: people
target: fhir_r4
entity_map:
  person: Patient
constants:
  Patient:
    resourceType: Patient
field_map:
  person.id:
    target: Patient.id
  person.birth:
    target: Patient.birthDate
`;

let dir: string;
let plain: FhirTestServer;
let validating: FhirTestServer;
/** What the small OMOP sample maps to, by Type/id. */
const small = new Map<string, unknown>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "crossmap-fhir-faults-"));
  [plain, validating] = await Promise.all([startFhirServer({ validate: false }), startFhirServer()]);
  const files = await runCli([...OMOP, "--out-dir", join(dir, "files"), SMALL]);
  expect(files.code).toBe(0);
  for (const f of readdirSync(join(dir, "files"))) {
    for (const line of readFileSync(join(dir, "files", f), "utf8")
      .trimEnd()
      .split("\n")) {
      const r = JSON.parse(line) as { resourceType: string; id: string };
      small.set(`${r.resourceType}/${r.id}`, r);
    }
  }
}, 120_000);

afterAll(async () => {
  await Promise.all([plain?.close(), validating?.close()]);
});

async function held(server: FhirTestServer): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  for (const t of server.types()) for (const r of await server.all(t)) out.set(`${t}/${r.id}`, content(r));
  return out;
}

describe("a server that is busy for a while", () => {
  it("loses nothing: 503, 429 (with and without Retry-After) and an unanswered request are tried again", async () => {
    plain.repo.clear();
    // The server answers first: an unanswered request before any answer ends the run (see below).
    const faults: Fault[] = [
      { status: 503 },
      { hang: true },
      { status: 429, retryAfter: "0" },
      { status: 503, retryAfter: "0" },
    ];
    const proxy = await startFlakyProxy(plain.url, (n) => faults[n] ?? { forward: true });
    try {
      const summary = join(dir, "busy.json");
      const r = await runCli([
        ...OMOP,
        "--fhir-server",
        proxy.url,
        "--fhir-batch-size",
        "500",
        "--fhir-concurrency",
        "1",
        "--fhir-timeout",
        "2",
        "--summary",
        summary,
        SMALL,
      ]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      // A forwarded Bundle the loaded machine answers too slowly is abandoned and sent again too (the
      // server applied it twice: PUT makes that harmless), so only the faults' order is fixed.
      expect(proxy.seen.slice(0, 5)).toEqual(["503", "hang", "429", "503", "200"]);
      expect(proxy.seen.slice(4).every((s) => s === "200")).toBe(true);
      const report = JSON.parse(readFileSync(summary, "utf8")).fhir_server;
      expect(report).toMatchObject({ bundles: 5, resources_sent: 2289, accepted: 2289, rejected: 0 });
      // Every request beyond one per Bundle was a retry, and each was counted.
      expect(report.retries).toBe(proxy.seen.length - 5);
      expect(await held(plain)).toEqual(small);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it("stops with an error, exit 1, when the server does not recover within --fhir-retries", async () => {
    const proxy = await startFlakyProxy(plain.url, () => ({ status: 503, retryAfter: "0" }));
    try {
      const r = await runCli([...OMOP, "--fhir-server", proxy.url, "--fhir-retries", "2", SMALL]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `crossmap: the FHIR server at ${proxy.url} did not accept a Bundle after 3 tries (last: 503 Service Unavailable: throttled: try again later (503))\n`,
      );
    } finally {
      await proxy.close();
    }
  }, 60_000);
});

describe("a server that cannot be reached", () => {
  it("stops at once, exit 1, when nothing listens at the URL (no retries before a first answer)", async () => {
    const closed = createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/fhir`;
    await new Promise((r) => closed.close(r));
    const r = await runCli([...OMOP, "--fhir-server", url, SMALL]);
    expect(r.stderr).toBe(
      `crossmap: the FHIR server at ${url} cannot be reached (connect ECONNREFUSED ${new URL(url).host}): is the URL right and the server up?\n`,
    );
    expect(r.code).toBe(1);
  }, 60_000);

  it("stops after one --fhir-timeout, exit 1, when the server takes connections and never answers", async () => {
    // What a server whose event loop is blocked looks like: the connection is made, no answer comes.
    const silent = createServer((socket) => socket.resume());
    silent.listen(0, "127.0.0.1");
    await once(silent, "listening");
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/fhir`;
    try {
      const r = await runCli([...OMOP, "--fhir-server", url, "--fhir-timeout", "1", SMALL]);
      expect(r.stderr).toBe(
        `crossmap: the FHIR server at ${url} cannot be reached (no answer within 1 s (--fhir-timeout)): is the URL right and the server up?\n`,
      );
      expect(r.code).toBe(1);
    } finally {
      await new Promise((r) => silent.close(r));
    }
  }, 60_000);
});

describe("a server that rejects what it is sent", () => {
  it("makes a rejected resource an issue naming the record, and goes on with the others", async () => {
    validating.repo.clear();
    const crossmap = join(dir, "people.yaml");
    writeFileSync(crossmap, PATIENTS_CROSSMAP);
    const input = join(dir, "person.ndjson");
    writeFileSync(
      input,
      [
        '{"id":"p1","birth":"1990-01-01"}',
        '{"id":"p2","birth":"01/02/1990"}',
        '{"id":"p3","birth":"1991-02-03"}',
      ]
        .map((l) => `${l}\n`)
        .join(""),
    );
    const errors = join(dir, "people-errors.ndjson");
    const summary = join(dir, "people.json");
    const args = ["map", "-q", "--crossmap", crossmap, "--fhir-server", validating.url, input];
    const shown = await runCli(args);
    expect(shown.code).toBe(1);
    expect(shown.stderr).toBe(
      `${validating.url}: error fhir_rejected: PUT Patient/p2 rejected: 400: structure: Invalid date format (Patient.birthDate)\n`,
    );
    const filed = await runCli([...args, "--errors", errors, "--summary", summary]);
    expect(filed.code).toBe(1);
    expect(filed.stderr).toBe("");
    expect(readFileSync(errors, "utf8")).toBe(
      `${JSON.stringify({
        file: validating.url,
        entity: "Patient",
        target: "Patient/p2",
        code: "fhir_rejected",
        severity: "error",
        message: "PUT Patient/p2 rejected: 400: structure: Invalid date format (Patient.birthDate)",
      })}\n`,
    );
    expect(JSON.parse(readFileSync(summary, "utf8"))).toMatchObject({
      records_in: 3,
      // The rejected Patient is refused by the destination, not one more record with errors.
      records_out: 2,
      rows_refused: 1,
      errors: 0,
      issues_by_code: { fhir_rejected: 1 },
      fhir_server: { bundles: 1, resources_sent: 3, accepted: 2, rejected: 1 },
    });
    expect([...(await held(validating)).keys()].sort()).toEqual(["Patient/p1", "Patient/p3"]);
  }, 60_000);

  it("makes a rejected transaction an issue naming its HL7 v2 message, and sends the next messages", async () => {
    plain.repo.clear();
    const proxy = await startFlakyProxy(plain.url, (n) =>
      n === 1 ? { status: 422, diagnostics: "Patient.name: too many names" } : { forward: true },
    );
    try {
      const input = join(SAMPLES, "ADT-A01-02.hl7");
      const two = join(dir, "two.hl7");
      writeFileSync(
        two,
        `${readFileSync(input, "utf8").trimEnd()}\r${readFileSync(join(SAMPLES, "ADT04-23.hl7"), "utf8")}`,
      );
      const errors = join(dir, "two-errors.ndjson");
      const r = await runCli([
        "map",
        "-q",
        "--from",
        "hl7v2",
        "--to",
        "fhir",
        "--fhir-concurrency",
        "1",
        // One transaction per message (merged ones the server refuses: the next test).
        "--fhir-transaction-messages",
        "1",
        "--errors",
        errors,
        "--fhir-server",
        proxy.url,
        two,
      ]);
      expect(r.code).toBe(1);
      const line = readFileSync(errors, "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l))
        .filter((i) => i.code.startsWith("fhir_"));
      expect(line).toEqual([
        {
          file: two,
          message_index: 2,
          code: "fhir_rejected",
          severity: "error",
          message: "transaction of 12 entries rejected: 422: processing: Patient.name: too many names",
        },
      ]);
      expect(proxy.seen).toEqual(["200", "422"]);
      expect(plain.types()).toContain("Patient");
      expect(await unresolvedReferences(plain)).toEqual([]);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it("sends again one by one the messages of a merged transaction it refuses: the good land, the bad is one issue", async () => {
    plain.repo.clear();
    // The server refuses any transaction with the second message's patient (BROS) in it, as a server's
    // business rule would: the merged transaction of all three, then that message's own.
    const proxy = await startFlakyProxy(plain.url, (_n, body) =>
      body.includes('"family":"BROS"')
        ? { status: 422, diagnostics: "Patient.name: too many names" }
        : { forward: true },
    );
    try {
      const three = join(dir, "three.hl7");
      writeFileSync(
        three,
        ["ADT-A01-02.hl7", "ADT04-23.hl7", "ADT04-28.hl7"]
          .map((f) => readFileSync(join(SAMPLES, f), "utf8").trimEnd())
          .join("\r"),
      );
      const errors = join(dir, "three-errors.ndjson");
      const summary = join(dir, "three-summary.json");
      const r = await runCli([
        ...["map", "-q", "--from", "hl7v2", "--to", "fhir", "--errors", errors, "--summary", summary],
        // Merging is the default (--fhir-transaction-messages 10): the three share nothing and are ready together.
        ...["--fhir-server", proxy.url, three],
      ]);
      expect(r.code).toBe(1);
      const fhirIssues = readFileSync(errors, "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l))
        .filter((i) => i.code.startsWith("fhir_"));
      expect(fhirIssues).toEqual([
        {
          file: three,
          message_index: 2,
          code: "fhir_rejected",
          severity: "error",
          message: "transaction of 12 entries rejected: 422: processing: Patient.name: too many names",
        },
      ]);
      // One merged transaction of the three (refused), then each message's own.
      expect(proxy.seen).toEqual(["422", "200", "422", "200"]);
      expect(JSON.parse(readFileSync(summary, "utf8")).fhir_server).toMatchObject({
        bundles: 4,
        resources_sent: 33,
        accepted: 21,
        rejected: 12,
      });
      const families = (await plain.all("Patient")).map(
        (p) => (p as { name?: { family?: string }[] }).name?.[0]?.family,
      );
      expect(families.sort()).toEqual(["Bixby", "EVERYMAN"]);
      expect(await unresolvedReferences(plain)).toEqual([]);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it("stops at once, exit 2, when the server refuses the credentials, naming the variable (never its value)", async () => {
    const proxy = await startFlakyProxy(plain.url, () => ({ status: 401, diagnostics: "token expired" }));
    try {
      const r = await runCli(
        [
          "map",
          "-q",
          "--from",
          "omop",
          "--to",
          "fhir",
          "--fhir-concurrency",
          "1",
          "--fhir-server",
          proxy.url,
          SMALL,
        ],
        {
          env: { CROSSMAP_FHIR_AUTHORIZATION: "Bearer s3cret" },
        },
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `crossmap: the FHIR server at ${proxy.url} answered 401 (processing: token expired): the Authorization header from CROSSMAP_FHIR_AUTHORIZATION was refused\n`,
      );
      expect(proxy.authorization).toEqual(["Bearer s3cret"]);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it("sends the Authorization header from the variable --fhir-auth-env names", async () => {
    plain.repo.clear();
    const proxy = await startFlakyProxy(plain.url, () => ({ forward: true }));
    try {
      const r = await runCli(
        [...OMOP, "--fhir-server", proxy.url, "--fhir-auth-env", "MY_FHIR_TOKEN", join(SMALL, "PERSON.csv")],
        { env: { MY_FHIR_TOKEN: "Basic dXNlcjpwYXNz" } },
      );
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(proxy.authorization).toEqual(["Basic dXNlcjpwYXNz"]);
    } finally {
      await proxy.close();
    }
  }, 60_000);
});

describe("HL7 v2 as batch Bundles", () => {
  it("sends each message as a batch with references rewritten to Type/id, which all resolve", async () => {
    plain.repo.clear();
    const summary = join(dir, "batch.json");
    const r = await runCli([
      "map",
      "-q",
      "--from",
      "hl7v2",
      "--to",
      "fhir",
      "--bundle",
      "batch",
      "--summary",
      summary,
      "--fhir-server",
      plain.url,
      SAMPLES,
    ]);
    const s = JSON.parse(readFileSync(summary, "utf8"));
    expect(s.fhir_server).toMatchObject({ bundles: 22, accepted: s.records_out, rejected: 0 });
    expect(r.stderr).not.toContain("fhir_");
    expect(await unresolvedReferences(plain)).toEqual([]);
  }, 60_000);
});

describe("usage", () => {
  it.each([
    [
      ["--fhir-server", "http://127.0.0.1:1/fhir", "-o", "x.ndjson"],
      "--fhir-server sends the output to the server: give no -o/--output or --out-dir with it",
    ],
    [
      ["--fhir-server", "ftp://example.org/fhir"],
      '--fhir-server must be an http(s) URL, got "ftp://example.org/fhir"',
    ],
    [
      ["--fhir-server", "http://127.0.0.1:1/fhir", "--fhir-batch-size", "0"],
      '--fhir-batch-size must be a whole number from 1 to 10000, got "0"',
    ],
    [["--bundle", "batch"], "--bundle batch goes with --fhir-server"],
    [
      ["--bundle", "collection", "--fhir-server", "http://127.0.0.1:1/fhir"],
      "--fhir-server sends transaction or batch Bundles, not --bundle collection",
    ],
  ])("%j is a usage error", async (flags, message) => {
    const r = await runCli([
      "map",
      "--from",
      "hl7v2",
      "--to",
      "fhir",
      ...flags,
      join(SAMPLES, "ADT-A01-02.hl7"),
    ]);
    expect(r.stderr).toBe(`crossmap: ${message}\n`);
    expect(r.code).toBe(2);
  });
});
