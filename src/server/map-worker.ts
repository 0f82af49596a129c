// Map worker entry: runs cross-map jobs (map-job.ts) sent by the server's map pool, one at a time.
import { parentPort, workerData } from "node:worker_threads";
import { createJobRunner, type MapJob, type MapJobConfig, type MapReply } from "./map-job.js";
import { lowerThreadPriority } from "./thread-priority.js";

const port = parentPort;
if (port) {
  // The event loop answers every request, /healthz included; a long mapping waits for it, not the reverse.
  lowerThreadPriority();
  const config = workerData as MapJobConfig;
  const vocabulary = config.vocab
    ? (await import("../vocab/lmdb-bridge.js")).openVocabulary(config.vocab)
    : undefined;
  const run = createJobRunner(config, vocabulary);
  const send = (reply: MapReply) =>
    port.postMessage(reply, reply.kind === "done" ? [reply.json.buffer as ArrayBuffer] : []);
  port.on("message", (job: MapJob) => run(job, send));
  port.postMessage({ kind: "ready" });
}
