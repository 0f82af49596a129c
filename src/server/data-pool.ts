// The data worker pool: imports, exports, revalidation and pulls (work that grows with a project's data)
// run in worker threads of their own (data-worker.ts), never on the event loop, and their output is
// streamed to the client a chunk at a time as the socket takes it.
import { Readable } from "node:stream";
import { Worker } from "node:worker_threads";
import { AppError, type Problem } from "../errors.js";
import type { DataJob, DataWorkerConfig } from "./data-job.js";

export interface DataPoolOptions {
  config: DataWorkerConfig;
  /** Worker threads; default 1 (imports and revalidation write, and writes take turns anyway). */
  workers?: number;
  /** Jobs that may wait for a worker; more get 503. Default 100. */
  maxQueue?: number;
  /** The worker script; default the compiled data-worker.js beside this module (or in dist/ for tests). */
  workerUrl?: URL;
}

/** Bytes sent to the client per message from the worker. */
export const CHUNK_BYTES = 1 << 20;

export type DataRequest =
  | { kind: "job"; id: number; job: DataJob }
  | { kind: "more"; id: number; size: number }
  | { kind: "drop"; id: number };

export type DataReply =
  | { kind: "ready" }
  | { kind: "done"; id: number; length: number }
  | {
      kind: "failed";
      id: number;
      error: { status: number; code: string; message: string; problems: Problem[] };
    }
  | { kind: "chunk"; id: number; bytes: Uint8Array; last: boolean };

/** A finished job's output: its length, and a stream of it (read from the worker as it is consumed). */
export interface DataOutput {
  length: number;
  stream: Readable;
}

interface Call {
  job: DataJob;
  resolve: (out: DataOutput) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  running?: Call & { id: number };
  /** Streams still reading this worker's output, by job id: a chunk, or the error that ends them. */
  readers: Map<number, (reply: Extract<DataReply, { kind: "chunk" }> | Error) => void>;
}

const defaultWorkerUrl = (): URL =>
  import.meta.url.endsWith(".ts")
    ? new URL("../../dist/server/data-worker.js", import.meta.url)
    : new URL("./data-worker.js", import.meta.url);

export class DataPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Call[] = [];
  private nextId = 0;
  private closed = false;
  private readonly size: number;
  private readonly maxQueue: number;
  private readonly url: URL;

  constructor(private readonly options: DataPoolOptions) {
    this.size = options.workers ?? 1;
    this.maxQueue = options.maxQueue ?? 100;
    this.url = options.workerUrl ?? defaultWorkerUrl();
  }

  /** Runs a job; resolves when its output is ready (an AppError from the job rejects as thrown). */
  run(job: DataJob): Promise<DataOutput> {
    if (this.closed) return Promise.reject(new AppError(503, "shutting_down", "The server is shutting down"));
    if (this.queue.length >= this.maxQueue) {
      return Promise.reject(
        new AppError(
          503,
          "busy",
          `The server is busy: ${this.queue.length} data jobs are waiting; retry shortly`,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.dispatch();
    });
  }

  /** Runs a job and reads its whole output (for callers that need the value, not a stream). */
  async runToBuffer(job: DataJob): Promise<Buffer> {
    const out = await this.run(job);
    const parts: Buffer[] = [];
    for await (const part of out.stream) parts.push(part as Buffer);
    return Buffer.concat(parts);
  }

  async close(): Promise<void> {
    this.closed = true;
    const stopping = new AppError(503, "shutting_down", "The server is shutting down");
    for (const call of this.queue.splice(0)) call.reject(stopping);
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        slot.running?.reject(stopping);
        for (const reader of slot.readers.values()) reader(stopping);
        return slot.worker.terminate();
      }),
    );
  }

  private spawn(): Slot {
    const worker = new Worker(this.url, { workerData: this.options.config });
    worker.unref();
    const slot: Slot = { worker, ready: false, readers: new Map() };
    worker.on("message", (msg: DataReply) => this.onMessage(slot, msg));
    worker.on("error", (err: Error) =>
      this.replace(slot, new AppError(500, "worker_error", `a data worker failed: ${err.message}`)),
    );
    worker.on("exit", () => this.replace(slot, new AppError(500, "worker_error", "a data worker stopped")));
    return slot;
  }

  private onMessage(slot: Slot, msg: DataReply): void {
    if (msg.kind === "ready") {
      slot.ready = true;
      this.dispatch();
      return;
    }
    if (msg.kind === "chunk") {
      slot.readers.get(msg.id)?.(msg);
      return;
    }
    const call = slot.running;
    if (!call || call.id !== msg.id) return;
    slot.running = undefined;
    if (msg.kind === "failed") {
      const e = msg.error;
      call.reject(new AppError(e.status, e.code, e.message, e.problems));
    } else {
      call.resolve({ length: msg.length, stream: this.reader(slot, msg.id, msg.length) });
    }
    this.dispatch();
  }

  /** A stream of a finished job's output, asking the worker for a chunk each time it wants more. */
  private reader(slot: Slot, id: number, length: number): Readable {
    let asked = false;
    const stream = new Readable({
      highWaterMark: CHUNK_BYTES,
      read: () => {
        if (asked) return;
        if (length === 0) {
          stream.push(null);
          return;
        }
        asked = true;
        slot.worker.postMessage({ kind: "more", id, size: CHUNK_BYTES } satisfies DataRequest);
      },
      destroy: (err, done) => {
        if (slot.readers.delete(id)) slot.worker.postMessage({ kind: "drop", id } satisfies DataRequest);
        done(err);
      },
    });
    slot.readers.set(id, (reply) => {
      // A worker gone mid-output: the response is cut off (an error, never a short answer that looks whole).
      if (reply instanceof Error) {
        slot.readers.delete(id);
        stream.destroy(reply);
        return;
      }
      asked = false;
      if (reply.bytes.length > 0)
        stream.push(Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.length));
      if (reply.last) {
        slot.readers.delete(id);
        stream.push(null);
      }
    });
    return stream;
  }

  private replace(slot: Slot, err: AppError): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    slot.running?.reject(err);
    slot.running = undefined;
    for (const reader of [...slot.readers.values()]) reader(err);
    slot.readers.clear();
    slot.worker.removeAllListeners("exit");
    slot.worker.removeAllListeners("message");
    void slot.worker.terminate();
    if (!this.closed) this.dispatch();
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((s) => s.ready && !s.running);
      if (!slot) {
        if (this.slots.length < this.size) {
          this.slots.push(this.spawn());
          continue;
        }
        return;
      }
      const call = this.queue.shift() as Call;
      const id = ++this.nextId;
      slot.running = { ...call, id };
      let job = call.job;
      const transfer: ArrayBuffer[] = [];
      if (job.kind === "import") {
        // The file moves to the worker rather than being copied; a view of a shared (pooled) buffer is
        // copied first, since moving would take its neighbours too.
        const b = job.bytes;
        const own =
          b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : Uint8Array.prototype.slice.call(b);
        job = { ...job, bytes: own };
        transfer.push(own.buffer as ArrayBuffer);
      }
      slot.worker.postMessage({ kind: "job", id, job } satisfies DataRequest, transfer);
    }
  }
}

/** A route's answer streaming a data job's output, with its type, length and further headers. */
export function streamed(out: DataOutput, type: string, headers: Record<string, string> = {}) {
  return { body: out.stream, length: out.length, headers: { "Content-Type": type, ...headers } };
}
