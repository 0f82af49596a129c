// `crossmap map --nats --resume` after the coordinator was killed (SIGKILL), stopped (SIGTERM) or lost its
// server, with real workers and a real nats-server: over 200 stored batches are fetched back without
// overflowing what the server buffers for the coordinator, and the output is byte for byte a local run's.
//
// The server takes messages of 64 KB and buffers 2 MB per client (max_payload, max_pending), so that 256 KB
// batches become ~8 pieces each and 200 batches' results are 10 MB of input's worth, not the 50 MB a
// default server needs to show the same overflow (64 MB buffered: 64 results of ~1 MB at once).
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JsMsg } from "@nats-io/jetstream";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { closeNats, connectNats, type Nats } from "../../src/scale/jetstream.js";
import { HEADER, WORK_STREAM, WORKERS_CONSUMER, workSubject } from "../../src/scale/names.js";
import { runCli } from "../cli/run-cli.js";
import {
  cleanUp,
  describeWithNats,
  killAll,
  type NatsServer,
  type Proc,
  startCli,
  startNatsServer,
  startWorker,
  until,
} from "./nats-harness.js";

const describeNats = describeWithNats(import.meta.url);

const OMOP_TO_FHIR = ["--from", "omop_cdm_v5.4", "--to", "fhir_r4"];
/** ~32 batches of 256 KB, each cut in ~8 pieces of 32 KB to fit a 64 KB message: ~250 batches. */
const PERSONS = 36_000;

let server: NatsServer;
let dir: string;
let input: string;
let expected: string;
/** A few batches, for the server outages. */
let small: string;
let smallExpected: string;

const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

function personRows(n: number): string {
  let out = "";
  for (let i = 0; i < n; i++) {
    const gender = [8507, 8532, 8551][i % 3];
    const year = 1920 + (i % 97);
    out +=
      `{"person_id":${i + 1},"gender_concept_id":${gender},"year_of_birth":${year},"month_of_birth":${1 + (i % 12)},` +
      `"day_of_birth":${1 + (i % 28)},"race_concept_id":${i % 2 ? 8527 : 8516},"ethnicity_concept_id":38003564,` +
      `"location_id":${i % 5000},"person_source_value":"P-${i.toString(36)}","gender_source_value":"${"MFU"[i % 3]}"}\n`;
  }
  return out;
}

async function metric(healthUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${healthUrl}/metrics`)).text();
  const m = new RegExp(`^crossmap_worker_${name} (\\S+)$`, "m").exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

async function mapped(workers: { health: string }[]): Promise<number> {
  let n = 0;
  for (const w of workers) n += await metric(w.health, "batches_total");
  return n;
}

async function workMessages(nats: Nats, run: string): Promise<number> {
  const info = await nats.jsm.streams.info(WORK_STREAM, { subjects_filter: workSubject(run) });
  return info.state.subjects?.[workSubject(run)] ?? 0;
}

/**
 * Starts a run whose first batch the test takes and holds, as a worker that never finishes would: the run
 * cannot complete, however fast the workers are, and everything else it sends out is mapped and stored.
 */
async function startHeldRun(
  nats: Nats,
  args: string[],
): Promise<{ coordinator: Proc; run: string; held: JsMsg }> {
  const coordinator = startCli(["map", ...args]);
  const run = (await coordinator.waitFor(/NATS run (\S+) on/))[1]!;
  const consumer = await nats.js.consumers.get(WORK_STREAM, WORKERS_CONSUMER);
  const held = (await consumer.next({ expires: 60_000 }))!;
  expect([held.headers?.get(HEADER.run), held.headers?.get(HEADER.batch)]).toEqual([run, "0"]);
  return { coordinator, run, held };
}

describeNats("crossmap map --nats --resume", () => {
  let nats: Nats;

  beforeAll(async () => {
    server = await startNatsServer({ config: "max_payload: 65536\nmax_pending: 2097152" });
    nats = await connectNats(server.url, "test");
    dir = mkdtempSync(join(tmpdir(), "crossmap-resume-"));
    input = join(dir, "person.ndjson");
    writeFileSync(input, personRows(PERSONS));
    expected = join(dir, "local.ndjson");
    const local = await runCli(["map", "-q", ...OMOP_TO_FHIR, "-o", expected, input]);
    expect([local.code, local.stderr]).toEqual([0, ""]);
    mkdirSync(join(dir, "small"));
    small = join(dir, "small", "person.ndjson");
    writeFileSync(small, personRows(3000));
    smallExpected = join(dir, "small.ndjson");
    const localSmall = await runCli(["map", "-q", ...OMOP_TO_FHIR, "-o", smallExpected, small]);
    expect([localSmall.code, localSmall.stderr]).toEqual([0, ""]);
    // The shared consumer, made by a worker, with an ack wait longer than any test holds a batch.
    const setup = await startWorker(server.url, "setup", ["--ack-wait", "600"]);
    setup.proc.kill("SIGTERM");
    expect(await setup.proc.exited()).toBe(0);
  }, 120_000);

  afterEach(() => cleanUp(server?.url));
  afterAll(async () => {
    await killAll();
    if (nats) await closeNats(nats);
    await server?.stop();
  });

  for (const signal of ["SIGKILL", "SIGTERM"] as const) {
    it(`goes on after a ${signal} of the coordinator with over 200 batches stored`, async () => {
      const out = join(dir, `${signal}.ndjson`);
      const args = [...OMOP_TO_FHIR, "--nats", server.url, "--in-flight", "28", "-o", out, input];
      const { coordinator, run, held } = await startHeldRun(nats, args);
      const workers = [await startWorker(server.url, "w1")];
      // Everything the coordinator sent out but the held batch is stored, and that is over 200 batches.
      await until(
        async () => (await mapped(workers)) >= 200 && (await workMessages(nats, run)) === 1,
        120_000,
        "200 batches stored",
      );
      coordinator.kill(signal);
      const code = await coordinator.exited();
      if (signal === "SIGTERM") {
        expect(code).toBe(143);
        expect(coordinator.stderr()).toContain(
          `crossmap map: interrupted by SIGTERM: run ${run} can be resumed with --resume ${run}\n`,
        );
      } else {
        expect(coordinator.child.signalCode).toBe("SIGKILL");
      }
      // The held batch goes back to the workers, and every batch of the first attempt is stored.
      held.nak();
      await until(async () => (await workMessages(nats, run)) === 0, 120_000, "the first attempt's batches");
      const stored = await mapped(workers);
      expect(stored).toBeGreaterThan(200);

      const resumed = await runCli(["map", ...args, "--resume", run]);
      expect(resumed.code).toBe(0);
      expect(resumed.stderr).toContain(
        `crossmap map: NATS run ${run} on ${server.url}, resumed: ${stored} batch(es) already mapped\n`,
      );
      expect(resumed.stderr).toMatch(
        new RegExp(
          `\ncrossmap map: NATS run ${run}: (\\d+) batches, \\d+ mapped by \\d workers?, ${stored} from an earlier attempt, 0 mapped here`,
        ),
      );
      expect(sha(out)).toBe(sha(expected));
      expect(server.log()).not.toContain("Slow Consumer");
      for (const w of workers) w.proc.kill("SIGTERM");
      for (const w of workers) expect(await w.proc.exited()).toBe(0);
    }, 240_000);
  }

  /** Resolves when the test's own connection is back after the server's restart. */
  const reconnected = async () => {
    for await (const s of nats.nc.status()) if (s.type === "reconnect") return;
  };

  it("says at once that the server is gone and goes on when it is back", async () => {
    const out = join(dir, "outage.ndjson");
    const args = [...OMOP_TO_FHIR, "--nats", server.url, "--in-flight", "1", "-o", out, small];
    const { coordinator, run, held } = await startHeldRun(nats, args);
    const worker = await startWorker(server.url, "w1");
    await until(async () => (await workMessages(nats, run)) === 1, 60_000, "all but the held batch");
    const back = reconnected();
    await server.halt();
    await coordinator.waitFor(
      new RegExp(
        `\ncrossmap map: lost the connection to NATS at ${server.url}; trying again for up to 300 s \\(--nats-wait\\)\n`,
      ),
    );
    await server.restart();
    await coordinator.waitFor(
      new RegExp(`\ncrossmap map: connected to NATS at ${server.url} again after \\d+ s\n`),
    );
    await back;
    held.nak();
    expect(await coordinator.exited()).toBe(0);
    expect(sha(out)).toBe(sha(smallExpected));
    worker.proc.kill("SIGTERM");
    expect(await worker.proc.exited()).toBe(0);
  }, 240_000);

  it("stops the run after --nats-wait without the server, and the run resumes", async () => {
    const out = join(dir, "gone.ndjson");
    const args = [...OMOP_TO_FHIR, "--nats", server.url, "--nats-wait", "2", "-o", out, small];
    const { coordinator, run, held } = await startHeldRun(nats, args);
    const worker = await startWorker(server.url, "w1");
    await until(async () => (await workMessages(nats, run)) === 1, 60_000, "all but the held batch");
    const back = reconnected();
    await server.halt();
    expect(await coordinator.exited()).toBe(1);
    expect(coordinator.stderr()).toContain(
      `crossmap map: lost the connection to NATS at ${server.url}; trying again for up to 2 s (--nats-wait)\n` +
        `crossmap map: the run stopped; run ${run} can be resumed with --resume ${run}\n` +
        `crossmap: NATS at ${server.url} could not be reached for 2 s (--nats-wait)\n`,
    );
    await server.restart();
    await back;
    held.nak();
    const resumed = await runCli(["map", ...args, "--resume", run]);
    expect(resumed.code).toBe(0);
    expect(sha(out)).toBe(sha(smallExpected));
    worker.proc.kill("SIGTERM");
    expect(await worker.proc.exited()).toBe(0);
  }, 240_000);
});
