// `crossmap map --nats` with `crossmap worker`s against a real nats-server: the output is byte for byte a
// local run's, with three workers, with one of them killed mid-run, and after a stopped run is resumed.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { headers } from "@nats-io/transport-node";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { decodeBatch, encodeResult, splitPayload } from "../../src/scale/codec.js";
import { holdInHand, progressEvery } from "../../src/scale/in-hand.js";
import { closeNats, connectNats } from "../../src/scale/jetstream.js";
import { HEADER, resultSubject, WORK_STREAM, WORKERS_CONSUMER, workSubject } from "../../src/scale/names.js";
import { PlanCache } from "../../src/scale/plans.js";
import { readRun } from "../../src/scale/run-record.js";
import { runCli } from "../cli/run-cli.js";
import {
  cleanUp,
  describeWithNats,
  health,
  killAll,
  type NatsServer,
  type Proc,
  startCli,
  startNatsServer,
  startWorker,
  until,
} from "./nats-harness.js";

const describeNats = describeWithNats(import.meta.url);

const SAMPLE = "test/fixtures/synthea27nj";
const SMALL = "test/fixtures/map/synthea27nj";
const OMOP_TO_FHIR = ["--from", "omop_cdm_v5.4", "--to", "fhir_r4"];

let server: NatsServer;
let dir: string;
/** ten-persons.ndjson as a `person` table: one malformed line and one unmapped gender, for --errors. */
let persons: string;
/** A local run of the sample + persons: per-entity files and the errors file. */
let localDir: string;

/** Each file of a folder as its size and SHA-256 (a failure then names the file, not 6 MB of diff). */
const files = (d: string): Record<string, string> =>
  Object.fromEntries(
    readdirSync(d).map((f) => {
      const bytes = readFileSync(join(d, f));
      return [f, `${bytes.length} ${createHash("sha256").update(bytes).digest("hex")}`];
    }),
  );

async function stopWorkers(workers: Proc[]): Promise<void> {
  for (const w of workers) w.kill("SIGTERM");
  for (const w of workers) expect(await w.exited()).toBe(0);
}

async function metric(healthUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${healthUrl}/metrics`)).text();
  const m = new RegExp(`^crossmap_worker_${name} (\\S+)$`, "m").exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

/** Batches of `run` waiting in the work stream or out with a worker (not yet acknowledged). */
async function workMessages(run: string): Promise<number> {
  const nats = await connectNats(server.url, "test");
  try {
    const info = await nats.jsm.streams.info(WORK_STREAM, { subjects_filter: workSubject(run) });
    return info.state.subjects?.[workSubject(run)] ?? 0;
  } finally {
    await closeNats(nats);
  }
}

/**
 * Maps `n` batches of `run` as a worker does (its plan cache, result headers and message ids) and
 * acknowledges each once its result is stored; returns `n`.
 */
async function mapBatchesByHand(run: string, n: number): Promise<number> {
  const nats = await connectNats(server.url, "test worker");
  const plans = new PlanCache({ concurrency: 1 });
  try {
    const d = (await readRun(nats, run))!;
    const processor = await plans.processorFor(d);
    if (typeof processor === "string") throw new Error(processor);
    const consumer = await nats.js.consumers.get(WORK_STREAM, WORKERS_CONSUMER);
    for (let i = 0; i < n; i++) {
      const m = (await consumer.next({ expires: 60_000 }))!;
      // As a worker does: the batch is in progress until acknowledged, however slow the machine.
      const hand = holdInHand(m, progressEvery(3000));
      expect(m.headers?.get(HEADER.run)).toBe(run);
      const batch = m.headers!.get(HEADER.batch);
      const parts = splitPayload(encodeResult(await processor.submit(decodeBatch(m.data))), nats.maxBody);
      hand.working();
      for (let p = 0; p < parts.length; p++) {
        const h = headers();
        h.set(HEADER.run, run);
        h.set(HEADER.batch, batch);
        h.set(HEADER.worker, "test");
        h.set(HEADER.deliveries, String(m.info.deliveryCount));
        if (parts.length > 1) {
          h.set(HEADER.part, String(p));
          h.set(HEADER.parts, String(parts.length));
        }
        await nats.js.publish(resultSubject(run), parts[p]!, { msgID: `${run}.${batch}.${p}`, headers: h });
      }
      expect(await m.ackAck()).toBe(true);
      hand.release();
    }
    return n;
  } finally {
    await plans.close();
    await closeNats(nats);
  }
}

beforeAll(async () => {
  server = await startNatsServer();
  dir = mkdtempSync(join(tmpdir(), "crossmap-bulk-"));
  persons = join(dir, "person.ndjson");
  writeFileSync(persons, readFileSync("test/fixtures/map/ten-persons.ndjson"));
  localDir = join(dir, "local");
  mkdirSync(localDir);
  const r = await runCli(
    [
      "map",
      "-q",
      ...OMOP_TO_FHIR,
      "--out-dir",
      join(localDir, "out"),
      "--errors",
      join(localDir, "errors.ndjson"),
    ].concat([SAMPLE, persons]),
  );
  expect(r.code).toBe(1);
}, 180_000);

afterEach(() => cleanUp(server?.url));
afterAll(async () => {
  await killAll();
  await server?.stop();
});

describeNats("crossmap map --nats with three workers", () => {
  it("writes per-entity files, --errors and stdout byte for byte as a local run does", async () => {
    const workers = await Promise.all(["w1", "w2", "w3"].map((n) => startWorker(server.url, n)));
    const out = join(dir, "three");
    mkdirSync(out);
    const r = await runCli(
      ["map", ...OMOP_TO_FHIR, "--nats", server.url, "--out-dir", join(out, "out")].concat([
        "--errors",
        join(out, "errors.ndjson"),
        "--summary",
        join(out, "summary.json"),
        SAMPLE,
        persons,
      ]),
    );
    expect(r.code).toBe(1);
    expect(files(join(out, "out"))).toEqual(files(join(localDir, "out")));
    expect(readFileSync(join(out, "errors.ndjson"), "utf8")).toBe(
      readFileSync(join(localDir, "errors.ndjson"), "utf8"),
    );
    // The malformed line, and the unmapped gender twice: Patient.gender and the OMOP gender extension.
    const issues = readFileSync(join(out, "errors.ndjson"), "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { line: number; code: string; target?: string });
    expect(issues.map((i) => [i.line, i.code, i.target])).toEqual([
      [4, "malformed_json", undefined],
      [7, "unmapped_value", "Patient.gender"],
      // Patient.gender is required: a value that converts to nothing leaves it missing.
      [7, "missing_required", "Patient.gender"],
      [7, "invalid_value", "Patient.extension[+]"],
    ]);
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary).toMatchObject({ records_in: 24860, records_out: 24859, records_failed: 1, errors: 2 });
    const mappedBy = Object.values(summary.nats.workers as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(mappedBy).toBe(summary.nats.published);
    expect(summary.nats.batches).toBe(summary.nats.published);
    expect(summary.nats.duplicates_dropped).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(
        `^crossmap map: NATS run (\\S+) on ${server.url.replace(/\./g, "\\.")}\n` +
          "crossmap map: NATS run \\1: (\\d+) batches, \\2 mapped by [123] workers?, 0 from an earlier attempt, 0 mapped here \\(too large to send\\), 0 redelivered, 0 duplicate results dropped\n",
      ),
    );

    // Everything to stdout this time, issues included.
    const args = ["map", "-q", ...OMOP_TO_FHIR, SMALL, persons];
    const local = await runCli([...args, "--errors", join(out, "local-stdout-errors.ndjson")]);
    const remote = await runCli([
      ...args,
      "--nats",
      server.url,
      "--errors",
      join(out, "nats-stdout-errors.ndjson"),
    ]);
    expect([remote.code, remote.stderr]).toEqual([1, ""]);
    expect(remote.stdout).toBe(local.stdout);
    expect(remote.stdout.split("\n")).toHaveLength(2299);
    expect(readFileSync(join(out, "nats-stdout-errors.ndjson"), "utf8")).toBe(
      readFileSync(join(out, "local-stdout-errors.ndjson"), "utf8"),
    );
    // Both runs used the same crossmap: each worker compiled it once, whatever the output options.
    for (const w of workers) {
      if ((await metric(w.health, "batches_total")) > 0) expect(await metric(w.health, "plans")).toBe(1);
    }
    await stopWorkers(workers.map((w) => w.proc));
  }, 180_000);
});

describeNats("crossmap map --nats when a worker dies", () => {
  it("loses and duplicates nothing when one worker is killed mid-run and another starts later", async () => {
    // A short ack wait, so that the killed worker's batches come back within the test.
    const ackWait = ["--ack-wait", "3"];
    const [a, b, c] = await Promise.all(
      ["a", "b", "c"].map((n) => startWorker(server.url, n, n === "a" ? [...ackWait, "--verbose"] : ackWait)),
    );
    const out = join(dir, "killed");
    mkdirSync(out);
    const coordinator = startCli(
      [
        "map",
        "-q",
        ...OMOP_TO_FHIR,
        "--nats",
        server.url,
        "--in-flight",
        "3",
        "--out-dir",
        join(out, "out"),
      ].concat([
        "--errors",
        join(out, "errors.ndjson"),
        "--summary",
        join(out, "summary.json"),
        SAMPLE,
        persons,
      ]),
    );
    // Mid-run: `a` has stored a batch and started mapping its second (a log line is written before mapping).
    await a!.proc.waitFor(/stored in[\s\S]*batch \d+: mapping/, 120_000);
    a!.proc.kill("SIGKILL");
    const d = await startWorker(server.url, "d", ackWait);
    expect(await coordinator.exited()).toBe(1);
    expect(files(join(out, "out"))).toEqual(files(join(localDir, "out")));
    expect(readFileSync(join(out, "errors.ndjson"), "utf8")).toBe(
      readFileSync(join(localDir, "errors.ndjson"), "utf8"),
    );
    // Each batch `a` had taken and not stored when it was killed came back to another worker. (Usually
    // one; none when `a` stored its batch in the moment between its log line and the kill.)
    const log = a!.proc.stderr();
    const held = new Set([...log.matchAll(/batch (\d+): mapping/g)].map((m) => m[1]));
    for (const m of log.matchAll(/batch (\d+): stored/g)) held.delete(m[1]);
    let redelivered = 0;
    for (const w of [b!, c!, d]) redelivered += await metric(w.health, "redeliveries_total");
    expect(redelivered).toBeGreaterThanOrEqual(held.size);
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary.records_in).toBe(24860);
    expect((await health(d.health)).status).toBe(200);
    await stopWorkers([b!.proc, c!.proc, d.proc]);
  }, 240_000);
});

describeNats("crossmap map --nats --resume", () => {
  it("goes on with a stopped run without mapping its finished batches again", async () => {
    // The shared consumer the test takes batches from is made by a worker. Its ack wait is still the 3 s
    // the test before set: a batch waiting its turn in a loaded worker's hands for longer was delivered
    // again and mapped twice (seen on main: 28, 29 and 30 mappings of 27 batches) until workers signalled
    // progress on the batches they hold.
    const setup = await startWorker(server.url, "setup");
    await stopWorkers([setup.proc]);
    const out = join(dir, "resumed");
    mkdirSync(out);
    const args = [
      ...OMOP_TO_FHIR,
      "--nats",
      server.url,
      "--in-flight",
      "2",
      "--out-dir",
      join(out, "out"),
    ].concat([
      "--errors",
      join(out, "errors.ndjson"),
      "--summary",
      join(out, "summary.json"),
      SAMPLE,
      persons,
    ]);
    const first = startCli(["map", ...args]);
    const run = (await first.waitFor(/NATS run (\S+) on/))[1]!;
    // The test is the first attempt's worker: it maps exactly three batches, so the run cannot finish
    // before it is stopped however slow the machine (a real worker could map them all first).
    const mine = await mapBatchesByHand(run, 3);
    first.kill("SIGTERM");
    expect(await first.exited()).toBe(143);
    expect(first.stderr()).toContain(
      `crossmap map: interrupted by SIGTERM: run ${run} can be resumed with --resume ${run}\n`,
    );
    expect(first.stderr()).toMatch(
      /\ncrossmap: interrupted by SIGTERM after \d+ records; output not published/,
    );
    // What the first attempt had out (--in-flight 2) is finished by a worker and stored: the server has
    // no batch of the run left once each is acknowledged, which a worker does after storing its result.
    const w = await startWorker(server.url, "solo");
    await until(async () => (await workMessages(run)) === 0, 120_000, "the first attempt's batches");
    const before = mine + (await metric(w.health, "batches_total"));
    expect(before).toBeGreaterThanOrEqual(3);

    const second = await runCli(["map", ...args, "--resume", run]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(
      `crossmap map: NATS run ${run} on ${server.url}, resumed: ${before} batch(es) already mapped\n`,
    );
    expect(files(join(out, "out"))).toEqual(files(join(localDir, "out")));
    expect(readFileSync(join(out, "errors.ndjson"), "utf8")).toBe(
      readFileSync(join(localDir, "errors.ndjson"), "utf8"),
    );
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary.nats).toMatchObject({ run, from_earlier_attempt: before, duplicates_dropped: 0 });
    // Every batch of the run was mapped exactly once, over both attempts.
    expect(mine + (await metric(w.health, "batches_total"))).toBe(summary.nats.batches);
    expect(summary.nats.published).toBe(summary.nats.batches - before);

    // A finished run cannot be resumed again.
    const again = await runCli(["map", ...args, "--resume", run]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      new RegExp(`^crossmap: --resume ${run}: the run completed at \\S+; start a new run\n$`),
    );
    await stopWorkers([w.proc]);
  }, 240_000);

  it("refuses a run id it does not know", async () => {
    const unknown = await runCli(["map", ...OMOP_TO_FHIR, "--nats", server.url, "--resume", "nope", SMALL]);
    expect([unknown.code, unknown.stderr]).toEqual([
      2,
      `crossmap: --resume nope: NATS at ${server.url} has no such run\n`,
    ]);
    const noServer = await runCli(["map", ...OMOP_TO_FHIR, "--resume", "x", SMALL]);
    expect([noServer.code, noServer.stderr]).toEqual([
      2,
      "crossmap: --resume, --in-flight and --nats-wait need --nats\n",
    ]);
  });
});
