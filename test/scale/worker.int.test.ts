// `crossmap worker` as operators meet it: a clean stop on SIGTERM with a batch in hand, health and metrics,
// threads with --concurrency, a worker that cannot map a run saying so, and its usage errors.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";
import {
  cleanUp,
  describeWithNats,
  health,
  killAll,
  type NatsServer,
  startCli,
  startNatsServer,
  startWorker,
  until,
} from "./nats-harness.js";

const describeNats = describeWithNats(import.meta.url);

const SMALL = "test/fixtures/map/synthea27nj";
const OMOP_TO_FHIR = ["--from", "omop_cdm_v5.4", "--to", "fhir_r4"];

let server: NatsServer;
let dir: string;

beforeAll(async () => {
  server = await startNatsServer();
  dir = mkdtempSync(join(tmpdir(), "crossmap-worker-"));
});
afterEach(() => cleanUp(server?.url));
afterAll(async () => {
  await killAll();
  await server?.stop();
});

describeNats("crossmap worker", () => {
  it("on SIGTERM finishes the batch in hand, gives back the rest and exits 0; another worker completes the run", async () => {
    const local = await runCli(["map", "-q", ...OMOP_TO_FHIR, SMALL]);
    expect(local.code).toBe(0);
    const first = await startWorker(server.url, "first", ["--verbose"]);
    const coordinator = startCli(["map", "-q", ...OMOP_TO_FHIR, "--nats", server.url, SMALL]);
    await first.proc.waitFor(/batch \d+: mapping/, 120_000);
    first.proc.kill("SIGTERM");
    expect(await first.proc.exited()).toBe(0);
    expect(first.proc.stderr()).toMatch(
      /\ncrossmap worker: SIGTERM: finishing [12] batch\(es\) in hand, then stopping\n(.*\n)*crossmap worker: stopped\n$/,
    );
    expect(first.proc.stderr()).toMatch(/batch \d+: stored in 1 message\(s\), \d+ ms\n/);

    // Two threads this time: the same bytes come out.
    const second = await startWorker(server.url, "second", ["--concurrency", "2"]);
    expect(await coordinator.exited()).toBe(0);
    expect(coordinator.stdout()).toBe(local.stdout);

    const { status, body } = await health(second.health);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: "ok",
      name: "second",
      in_flight: 0,
      failures_total: 0,
      refused_total: 0,
    });
    const metrics = await (await fetch(`${second.health}/metrics`)).text();
    expect(metrics).toContain("# TYPE crossmap_worker_batches_total counter\n");
    expect(metrics).toMatch(new RegExp(`\ncrossmap_worker_batches_total ${body.batches_total}\n`));
    expect(metrics).toContain("\ncrossmap_worker_lag 0\n");
    expect(metrics).toMatch(/\nprocess_cpu_seconds_total \d+(\.\d+)?\n/);
    expect((await fetch(`${second.health}/nope`)).status).toBe(404);
    second.proc.kill("SIGTERM");
    expect(await second.proc.exited()).toBe(0);
  }, 240_000);

  it("that cannot map a run says so to the coordinator, and leaves the batch to one that can", async () => {
    const crossmap = "test/fixtures/map/person-upper.yaml";
    const transforms = "test/fixtures/map/upper-transforms.mjs";
    const records = Array.from(
      { length: 500 },
      (_, i) => `{"person_id": ${i}, "person_source_value": "ab${i}"}`,
    );
    const input = join(dir, "person.ndjson");
    writeFileSync(input, records.join("\n"));
    const plain = await startWorker(server.url, "plain");
    const coordinator = startCli([
      "map",
      "--crossmap",
      crossmap,
      "--transforms",
      transforms,
      "--nats",
      server.url,
      input,
    ]);
    await coordinator.waitFor(/worker plain: /);
    expect(coordinator.stderr()).toContain(
      `crossmap map: worker plain: the run uses custom transforms (${resolve(transforms)}); start the worker with --transforms and the same module\n`,
    );
    const able = await startWorker(server.url, "able", ["--transforms", transforms]);
    expect(await coordinator.exited()).toBe(0);
    const out = coordinator.stdout().trimEnd().split("\n");
    expect(out).toHaveLength(500);
    expect(out[499]).toBe('{"id":"499","identifier":[{"value":"AB499"}]}');
    expect((await health(plain.health)).body).toMatchObject({ batches_total: 0 });
    expect(Number((await health(plain.health)).body.refused_total)).toBeGreaterThanOrEqual(1);
    expect((await health(able.health)).body).toMatchObject({ batches_total: 1 });
  }, 120_000);

  it("says it is disconnected when the server goes away, and still stops on SIGTERM", async () => {
    const own = await startNatsServer();
    const w = await startWorker(own.url, "lonely");
    expect((await health(w.health)).body).toMatchObject({ status: "ok" });
    await own.stop();
    await until(async () => (await health(w.health)).status === 503, 30_000, "503");
    expect((await health(w.health)).body).toMatchObject({ status: "disconnected", name: "lonely" });
    w.proc.kill("SIGTERM");
    expect(await w.proc.exited()).toBe(0);
  }, 60_000);

  it("reports usage errors and an unreachable server with exit 2", async () => {
    const bad = await runCli(["worker", "--concurrency", "0"]);
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'crossmap: --concurrency must be a whole number from 1 to 256, got "0"\n',
    ]);
    const port = await runCli(["worker", "--nats", server.url, "--health-port", "x"]);
    expect([port.code, port.stderr]).toEqual([
      2,
      'crossmap: --health-port must be PORT or HOST:PORT, got "x"\n',
    ]);
    const away = await runCli(["worker", "--nats", "nats://127.0.0.1:1"]);
    expect(away.code).toBe(2);
    expect(away.stderr).toMatch(/^crossmap: cannot connect to NATS at nats:\/\/127\.0\.0\.1:1: /);
  });
});
