// Delivery guarantees of `crossmap map --nats` that no friendly worker shows: the coordinator keeps at most
// --in-flight batches out (backpressure), and a worker that stored a result but died before acknowledging
// its batch (so the batch is mapped and stored again by another) still gives each record exactly once.
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect, headers } from "@nats-io/transport-node";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { loadPlan, resolvePlanSpec } from "../../src/pipeline/load-plan.js";
import { createBatchMapper } from "../../src/pipeline/stage.js";
import { decodeBatch, encodeResult, splitPayload } from "../../src/scale/codec.js";
import { HEADER, resultSubject, WORK_STREAM, WORKERS_CONSUMER, workSubject } from "../../src/scale/names.js";
import { runCli } from "../cli/run-cli.js";
import {
  cleanUp,
  describeWithNats,
  killAll,
  type NatsServer,
  startCli,
  startNatsServer,
  startWorker,
  until,
} from "./nats-harness.js";

const describeNats = describeWithNats(import.meta.url);

const SAMPLE = "test/fixtures/synthea27nj";
const OMOP_TO_FHIR = ["--from", "omop_cdm_v5.4", "--to", "fhir_r4"];

let server: NatsServer;
let local: string;

/** Batches of `run` waiting in the work stream or out with a worker (not yet acknowledged). */
async function workMessages(run: string): Promise<number> {
  const nc = await connect({ servers: server.url });
  try {
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(WORK_STREAM, { subjects_filter: workSubject(run) });
    return info.state.subjects?.[workSubject(run)] ?? 0;
  } finally {
    await nc.close();
  }
}

beforeAll(async () => {
  server = await startNatsServer();
  const r = await runCli(["map", "-q", ...OMOP_TO_FHIR, SAMPLE]);
  expect(r.code).toBe(0);
  local = r.stdout;
  // The shared consumer, with a short ack wait so that an unacknowledged batch comes back within the test.
  const setup = await startWorker(server.url, "setup", ["--ack-wait", "3"]);
  setup.proc.kill("SIGTERM");
  expect(await setup.proc.exited()).toBe(0);
}, 180_000);
afterEach(() => cleanUp(server?.url));
afterAll(async () => {
  await killAll();
  await server?.stop();
});

describeNats("crossmap map --nats delivery", () => {
  it("keeps at most --in-flight batches out while no worker takes them, then finishes when one does", async () => {
    const coordinator = startCli(["map", ...OMOP_TO_FHIR, "--nats", server.url, "--in-flight", "2", SAMPLE]);
    const run = (await coordinator.waitFor(/NATS run (\S+) on/))[1]!;
    await until(async () => (await workMessages(run)) === 2, 60_000, "two batches out");
    // The input has 26 batches and was read long ago at this pace; the coordinator still waits.
    await new Promise((r) => setTimeout(r, 2000));
    expect(await workMessages(run)).toBe(2);
    expect(coordinator.child.exitCode).toBeNull();
    const worker = await startWorker(server.url, "late");
    expect(await coordinator.exited()).toBe(0);
    expect(coordinator.stdout()).toBe(local);
    expect(coordinator.stderr()).toContain(
      `crossmap map: NATS run ${run}: 26 batches, 26 mapped by 1 worker, 0 from an earlier attempt, ` +
        "0 mapped here (too large to send), 0 redelivered, 0 duplicate results dropped\n",
    );
    worker.proc.kill("SIGTERM");
    expect(await worker.proc.exited()).toBe(0);
  }, 180_000);

  it("writes each record once when a worker stored a result and died before acknowledging its batch", async () => {
    const coordinator = startCli(["map", ...OMOP_TO_FHIR, "--nats", server.url, "--in-flight", "4", SAMPLE]);
    const run = (await coordinator.waitFor(/NATS run (\S+) on/))[1]!;

    // The dying worker: takes one batch from the shared consumer, maps it, stores its result under a
    // message id of its own (as a copy stored after the server's duplicate window would be), and goes
    // away without acknowledging, so the server hands the batch to the next worker after the ack wait.
    const plan = await loadPlan(
      await resolvePlanSpec({
        from: "omop_cdm_v5.4",
        to: "fhir_r4",
        via: undefined,
        crossmaps: [],
        transforms: undefined,
        vocab: undefined,
      }),
    );
    const mapBatch = createBatchMapper(plan, { onError: "skip", perEntity: false });
    const nc = await connect({ servers: server.url });
    const js = jetstream(nc);
    const consumer = await js.consumers.get(WORK_STREAM, WORKERS_CONSUMER);
    const m = await consumer.next({ expires: 30_000 });
    expect(m?.headers?.get(HEADER.run)).toBe(run);
    const batch = m!.headers!.get(HEADER.batch);
    const h = headers();
    h.set(HEADER.run, run);
    h.set(HEADER.batch, batch);
    h.set(HEADER.worker, "dying");
    h.set(HEADER.deliveries, "1");
    const result = encodeResult(mapBatch(decodeBatch(m!.data)));
    await js.publish(resultSubject(run), result, { msgID: `dying.${run}.${batch}`, headers: h });
    // What the server does once the dying worker's ack wait has passed, done now: the batch goes back.
    m!.nak();

    // The next worker: the test itself, so that the batch surely comes back before the run can end (a
    // real worker could map every other batch before an ack wait passes). It maps and stores what it is
    // handed, as a worker does, until the server redelivers the dying worker's batch, which it stores
    // again under a worker's own message id.
    const store = async (msg: NonNullable<typeof m>, payload: Uint8Array) => {
      const b = msg.headers!.get(HEADER.batch);
      const hs = headers();
      hs.set(HEADER.run, run);
      hs.set(HEADER.batch, b);
      hs.set(HEADER.worker, "second");
      hs.set(HEADER.deliveries, String(msg.info.deliveryCount));
      // Split as a worker does when a result is larger than one message (room left for the headers).
      const parts = splitPayload(payload, nc.info!.max_payload - 4096);
      for (let i = 0; i < parts.length; i++) {
        if (parts.length > 1) {
          hs.set(HEADER.part, String(i));
          hs.set(HEADER.parts, String(parts.length));
        }
        await js.publish(resultSubject(run), parts[i]!, { msgID: `${run}.${b}.${i}`, headers: hs });
      }
      msg.ack();
    };
    for (;;) {
      const next = await consumer.next({ expires: 30_000 });
      expect(next, "the dying worker's batch was not redelivered").not.toBeNull();
      if (next!.headers?.get(HEADER.batch) === batch) {
        expect(next!.info.deliveryCount).toBe(2);
        await store(next!, result);
        break;
      }
      await store(next!, encodeResult(mapBatch(decodeBatch(next!.data))));
    }
    await nc.close();

    const worker = await startWorker(server.url, "survivor");
    expect(await coordinator.exited(), coordinator.stderr()).toBe(0);
    expect(coordinator.stdout()).toBe(local);
    // The batch was mapped and stored twice; the second result was dropped, whichever came first.
    expect(coordinator.stderr()).toMatch(/ redelivered, 1 duplicate results dropped\n/);
    worker.proc.kill("SIGTERM");
    expect(await worker.proc.exited()).toBe(0);
  }, 180_000);
});
