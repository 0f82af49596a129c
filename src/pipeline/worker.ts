// Worker thread entry: compiles the plan once, then parses, maps and serialises the batches it is sent.
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { type ThreadStats, threadStats } from "./debug.js";
import { loadPlan, type PlanSpec } from "./load-plan.js";
import { type BatchMapper, createStage, encodeOutput, type StageOptions } from "./stage.js";
import type { AnyBatch } from "./types.js";

export interface WorkerInit {
  plan: PlanSpec;
  stage: StageOptions;
}

/** What a worker is started with: the port it sends results on. Its WorkerInit is the first message. */
export interface WorkerData {
  results: MessagePort;
}

export type ToWorker = { id: number; batch: AnyBatch } | { id: number; stats: true };
export type FromWorker =
  | { kind: "ready" }
  | { kind: "init_error"; message: string }
  | { kind: "result"; id: number; result: ReturnType<BatchMapper> }
  | { kind: "error"; id: number; message: string }
  | { kind: "stats"; id: number; stats: ThreadStats };

const port = parentPort;
if (port) {
  // Started before its plan is known (pool.prestartWorkers): the modules above load meanwhile.
  const { results } = workerData as WorkerData;
  port.once("message", (init: WorkerInit) => start(port, results, init));
}

function start(port: MessagePort, results: MessagePort, init: WorkerInit): void {
  // HL7 v2 comes in messages: a first crossmap may gather within each one before --via maps on.
  const units = init.stage.hl7v2 !== undefined ? () => true : undefined;
  loadPlan(init.plan, undefined, units)
    .then((plan) => createStage(plan, init.stage))
    .then(
      (mapBatch) => {
        let batches = 0;
        port.on("message", (msg: ToWorker) => {
          const id = msg.id;
          if ("stats" in msg) {
            results.postMessage({ kind: "stats", id, stats: threadStats(batches) } satisfies FromWorker);
            return;
          }
          const batch = msg.batch;
          batches++;
          let transfer: ArrayBuffer[] = [];
          let reply: FromWorker;
          try {
            const result = mapBatch(batch);
            transfer = encodeOutput(result);
            reply = { kind: "result", id, result };
          } catch (err) {
            reply = { kind: "error", id, message: (err as Error).stack ?? String(err) };
          }
          results.postMessage(reply, transfer);
        });
        // On the results port, like results, so that the pool sees it without waiting for its event loop.
        results.postMessage({ kind: "ready" } satisfies FromWorker);
      },
      (err: unknown) => {
        const message =
          err instanceof Error && "describe" in err
            ? (err as { describe(): string }).describe()
            : String(err);
        results.postMessage({ kind: "init_error", message } satisfies FromWorker);
      },
    );
}
