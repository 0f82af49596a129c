// Data worker entry: opens its own handle of the server's LMDB environment (and vocabulary), runs the
// data jobs the pool sends (data-job.ts) one at a time, and hands their bytes back a chunk per request.
import { parentPort, workerData } from "node:worker_threads";
import { openStores } from "../store/env.js";
import { type DataJob, type DataWorkerConfig, runDataJob } from "./data-job.js";
import type { DataReply, DataRequest } from "./data-pool.js";
import { lowerThreadPriority } from "./thread-priority.js";

const port = parentPort;
if (port) {
  // The event loop answers every request, /healthz included; an import waits for it, not the reverse.
  lowerThreadPriority();
  const config = workerData as DataWorkerConfig;
  const stores = openStores(config.dataDir, { durability: config.durability });
  const vocabulary = config.vocab
    ? (await import("../vocab/lmdb-bridge.js")).openVocabulary(config.vocab)
    : undefined;
  /** Output not yet taken by the pool, by job id, with how much of it was sent. */
  const outputs = new Map<number, { bytes: Uint8Array; sent: number }>();
  const send = (reply: DataReply) =>
    port.postMessage(reply, reply.kind === "chunk" ? [reply.bytes.buffer as ArrayBuffer] : []);
  const chunk = (id: number, size: number) => {
    const out = outputs.get(id);
    if (!out) return send({ kind: "chunk", id, bytes: new Uint8Array(0), last: true });
    const end = Math.min(out.bytes.length, out.sent + size);
    // A copy: its buffer moves to the pool, and the rest of the output stays here.
    const bytes = Uint8Array.prototype.slice.call(out.bytes, out.sent, end);
    out.sent = end;
    const last = end >= out.bytes.length;
    if (last) outputs.delete(id);
    send({ kind: "chunk", id, bytes, last });
  };
  port.on("message", async (msg: DataRequest) => {
    if (msg.kind === "more") return chunk(msg.id, msg.size);
    if (msg.kind === "drop") {
      outputs.delete(msg.id);
      return;
    }
    const result = await runDataJob(stores, vocabulary, msg.job as DataJob);
    if (!result.ok) return send({ kind: "failed", id: msg.id, error: result.error });
    outputs.set(msg.id, { bytes: result.bytes, sent: 0 });
    send({ kind: "done", id: msg.id, length: result.bytes.length });
  });
  port.postMessage({ kind: "ready" });
}
