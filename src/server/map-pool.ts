// The cross-mapping worker pool: each call's parsing, crossmap compilation, mapping and serialisation run
// in a worker thread with a deadline and a memory cap; a worker over either is terminated and replaced,
// and the call answers 422 naming the limit. The event loop only moves bytes.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { AppError } from "../errors.js";
import { FairQueue, type Waiting } from "./fair-queue.js";
import { type MapJob, type MapJobConfig, type MapReply, type RunInfo, touchKey } from "./map-job.js";

export interface MapPoolOptions {
  /** Worker threads; default 2 (at most the machine's cores). */
  workers?: number;
  /** Longest one call may run in its worker, in ms; default 20,000. */
  timeoutMs?: number;
  /** Heap of each worker, in MB; default 1024. */
  memoryMb?: number;
  /** Calls that may wait for a worker; more get 503. Default 100. */
  maxQueue?: number;
  /**
   * Calls whose body is at least this many bytes (a large crossmap to compile, many records) are heavy:
   * with two workers or more, heavy calls leave one worker to the others. Default 256 KiB.
   */
  heavyBytes?: number;
  job: MapJobConfig;
  /** The worker script; default the compiled map-worker.js beside this module (or in dist/ for tests). */
  workerUrl?: URL;
}

export const MAP_POOL_DEFAULTS = {
  workers: Math.max(1, Math.min(2, availableParallelism())),
  timeoutMs: 20_000,
  memoryMb: 1024,
  maxQueue: 100,
  heavyBytes: 256 * 1024,
};

export type FinalReply = Exclude<MapReply, { kind: "started" }>;

interface Call extends Waiting {
  job: Omit<MapJob, "id">;
  onStarted: ((run: RunInfo) => void) | undefined;
  resolve: (reply: FinalReply) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  /** The decision sets this worker holds, kept by the worker's own rule (touchKey). */
  decisionKeys: Map<string, true>;
  call?: Call & { id: number; timer: NodeJS.Timeout };
}

// Run from TypeScript sources (tests), the worker is the compiled one in dist/: a worker thread cannot
// load .ts files.
const defaultWorkerUrl = (): URL =>
  import.meta.url.endsWith(".ts")
    ? new URL("../../dist/server/map-worker.js", import.meta.url)
    : new URL("./map-worker.js", import.meta.url);

const limitError = (message: string, code: string) =>
  new AppError(422, code, message, [{ path: ["body"], message, code: `value_error.${code}` }]);

export class MapPool {
  private readonly slots: Slot[] = [];
  private readonly queue = new FairQueue<Call>();
  private nextId = 0;
  private closed = false;
  private readonly size: number;
  private readonly timeoutMs: number;
  private readonly memoryMb: number;
  private readonly maxQueue: number;
  private readonly heavyBytes: number;
  private readonly url: URL;

  constructor(private readonly options: MapPoolOptions) {
    this.size = options.workers ?? MAP_POOL_DEFAULTS.workers;
    this.timeoutMs = options.timeoutMs ?? MAP_POOL_DEFAULTS.timeoutMs;
    this.memoryMb = options.memoryMb ?? MAP_POOL_DEFAULTS.memoryMb;
    this.maxQueue = options.maxQueue ?? MAP_POOL_DEFAULTS.maxQueue;
    this.heavyBytes = options.heavyBytes ?? MAP_POOL_DEFAULTS.heavyBytes;
    this.url = options.workerUrl ?? defaultWorkerUrl();
  }

  /** Starts every worker now (they load their modules meanwhile) rather than on the first call. */
  prestart(): void {
    while (this.slots.length < this.size) this.slots.push(this.spawn());
  }

  /**
   * Runs one call. Resolves with the worker's final reply; `onStarted` hears when the request was valid
   * and mapping began. Rejects with a 422 AppError when the call passes the deadline or the memory cap,
   * 503 when too many calls wait, 500 when a worker dies otherwise. Calls wait in turn per `client`.
   */
  run(job: Omit<MapJob, "id">, onStarted?: (run: RunInfo) => void, client = ""): Promise<FinalReply> {
    if (this.closed) return Promise.reject(new AppError(503, "shutting_down", "The server is shutting down"));
    if (this.queue.length >= this.maxQueue) {
      return Promise.reject(
        new AppError(
          503,
          "busy",
          `The server is busy: ${this.queue.length} map calls are waiting; retry shortly`,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const heavy = (job.text?.length ?? 0) >= this.heavyBytes;
      this.queue.push({ job, onStarted, resolve, reject, client, heavy });
      this.dispatch();
    });
  }

  /** Terminates every worker; calls still running or waiting get 503. */
  async close(): Promise<void> {
    this.closed = true;
    const stopping = new AppError(503, "shutting_down", "The server is shutting down");
    for (const call of this.queue.drain()) call.reject(stopping);
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        if (slot.call) {
          clearTimeout(slot.call.timer);
          slot.call.reject(stopping);
        }
        return slot.worker.terminate();
      }),
    );
  }

  private spawn(): Slot {
    const worker = new Worker(this.url, {
      workerData: this.options.job,
      resourceLimits: { maxOldGenerationSizeMb: this.memoryMb },
    });
    // Idle workers never keep the process alive; a call in flight keeps its HTTP socket, which does.
    worker.unref();
    const slot: Slot = { worker, ready: false, decisionKeys: new Map() };
    worker.on("message", (msg: MapReply | { kind: "ready" }) => this.onMessage(slot, msg));
    worker.on("error", (err: Error & { code?: string }) => {
      const oom = err.code === "ERR_WORKER_OUT_OF_MEMORY";
      this.replace(
        slot,
        oom
          ? limitError(
              `mapping needed more memory than the limit of ${this.memoryMb} MB (crossmap serve --map-memory); send fewer records`,
              "memory_limit",
            )
          : new AppError(500, "worker_error", `a map worker failed: ${err.message}`),
      );
    });
    worker.on("exit", () => this.replace(slot, new AppError(500, "worker_error", "a map worker stopped")));
    return slot;
  }

  private onMessage(slot: Slot, msg: MapReply | { kind: "ready" }): void {
    if (msg.kind === "ready") {
      slot.ready = true;
      this.dispatch();
      return;
    }
    const call = slot.call;
    if (!call || call.id !== msg.id) return;
    if (msg.kind === "started") {
      call.onStarted?.(msg.run);
      return;
    }
    clearTimeout(call.timer);
    slot.call = undefined;
    call.resolve(msg);
    this.dispatch();
  }

  /** Takes a failed or timed-out worker out of the pool, answers its call with `err`, starts another. */
  private replace(slot: Slot, err: AppError): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    const call = slot.call;
    slot.call = undefined;
    if (call) {
      clearTimeout(call.timer);
      call.reject(err);
    }
    slot.worker.removeAllListeners("exit");
    slot.worker.removeAllListeners("message");
    void slot.worker.terminate();
    if (!this.closed) {
      this.slots.push(this.spawn());
      this.dispatch();
    }
  }

  /** Heavy calls may hold every worker but one (all of them when there is only one). */
  private heavyAllowed(): boolean {
    const heavy = this.slots.filter((s) => s.call?.heavy).length;
    return heavy < Math.max(1, this.size - 1);
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((s) => s.ready && !s.call);
      if (!slot) {
        // Start workers for the waiting calls, up to the pool's size; each takes calls once "ready".
        const starting = this.slots.filter((s) => !s.call).length;
        if (this.slots.length < this.size && starting < this.queue.length) {
          this.slots.push(this.spawn());
          continue;
        }
        return;
      }
      const call = this.queue.take(this.heavyAllowed());
      if (!call) return;
      const id = ++this.nextId;
      const timer = setTimeout(() => {
        this.replace(
          slot,
          limitError(
            `mapping took longer than the limit of ${this.timeoutMs / 1000} s (crossmap serve --map-timeout); send fewer records or a simpler crossmap`,
            "time_limit",
          ),
        );
      }, this.timeoutMs);
      slot.call = { ...call, id, timer };
      const { decisions } = call.job;
      // A project's decisions go to a worker once per change of them, not with every call.
      const held = decisions !== undefined && touchKey(slot.decisionKeys, decisions.key, () => true);
      const job: MapJob = held ? { ...call.job, id, decisions: { key: decisions.key } } : { ...call.job, id };
      slot.worker.postMessage(job);
    }
  }
}
