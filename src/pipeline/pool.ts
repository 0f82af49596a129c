// Where batches get mapped: on the calling thread, or spread over worker threads. Results come back as
// promises; the caller awaits them in submission order, which is what keeps output in input order.
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import { AppError } from "../errors.js";
import { debugPipeline, type ThreadStats } from "./debug.js";
import { DEFAULT_MAX_RECORD_BYTES, workerHeapMb } from "./limits.js";
import { type BatchMapper, encodeOutput } from "./stage.js";
import type { AnyBatch, BatchResult } from "./types.js";
import type { FromWorker, ToWorker, WorkerData, WorkerInit } from "./worker.js";

export interface BatchProcessor {
  /** How many batches may be in flight before the caller should wait for the oldest. */
  readonly capacity: number;
  submit(batch: AnyBatch): Promise<BatchResult>;
  close(): Promise<void>;
  /** CROSSMAP_DEBUG=pipeline: batches mapped on this thread, and each worker's stats (asked at close). */
  readonly mainBatches?: number;
  readonly workerStats?: ThreadStats[];
}

/**
 * Batches a worker may have queued before the main thread maps one itself. Deep enough for a worker to ride
 * out the main thread's pauses (its GC, a read or a write, a turn of the process's own GC and compiler
 * threads on the other core) instead of idling. Measured on 1M person rows, 2 cores, median of 6: with 2,
 * the worker sat idle 0.41 s and the busiest thread used 1.33 s CPU; with 8, 0.23 s and 1.23 s (worker
 * 1.21 s: balanced). The cost is memory: 8 x 64 KB per worker.
 */
const WORKER_QUEUE = 8;

/** A worker pool also says whether a worker could take a batch without queueing behind WORKER_QUEUE others. */
export interface WorkerPool extends BatchProcessor {
  hasRoom(): boolean;
}

/** --workers 1: map on this thread; reading and writing still overlap through the event loop. */
export function inProcess(mapBatch: BatchMapper): BatchProcessor {
  return {
    capacity: 1,
    submit: async (batch) => mapBatch(batch),
    close: async () => {},
  };
}

interface Slot {
  worker: Worker;
  /** Where the worker's results arrive (see `drain`). */
  results: MessagePort;
  pending: Map<number, { resolve: (r: BatchResult) => void; reject: (e: Error) => void }>;
  /** Set when the worker has compiled its plan; until then it is given no batches. */
  ready: boolean;
  stats?: (s: ThreadStats) => void;
}

// Each worker is a whole V8 heap, sized by default for the machine's memory. V8 paces its collections
// by the ceiling, so a modest one (still far above what a batch needs) halves each worker's heap
// (~48 -> ~28 MB measured), and a small young generation trims it further at no measurable CPU cost.
// The ceiling grows with the per-record limit (limits.ts), so that no record let through can kill one.
const YOUNG_MB = 8;

interface Started {
  worker: Worker;
  url: string;
  heapMb: number;
  /** Where the worker's results arrive (see `drain`). */
  results: MessagePort;
}

/** A worker that loads its modules and then waits for its WorkerInit, the first message it gets. */
function startWorker(url: URL, heapMb: number): Started {
  // Results come back on a port of their own, so that `drain` can take them synchronously.
  const { port1: results, port2: resultsForWorker } = new MessageChannel();
  const workerData: WorkerData = { results: resultsForWorker };
  const worker = new Worker(url, {
    workerData,
    transferList: [resultsForWorker],
    resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB, maxOldGenerationSizeMb: heapMb },
  });
  return { worker, url: url.href, heapMb, results };
}

const prestarted: Started[] = [];

/**
 * Starts `count` workers now, before the caller has a plan for them: loading a worker's modules takes
 * ~0.15 s, which then overlaps the main thread's own start-up instead of following it (measured: the
 * worker joined the run at ~0.35 s of a 1.5 s run; prestarted, at ~0.26 s). Unused ones do not keep the
 * process alive.
 */
export function prestartWorkers(
  count: number,
  workerUrl?: URL,
  heapMb = workerHeapMb(DEFAULT_MAX_RECORD_BYTES),
): void {
  const url = workerUrl ?? new URL("./worker.js", import.meta.url);
  for (let i = 0; i < count; i++) {
    const started = startWorker(url, heapMb);
    // Until a pool takes it: a worker that fails to start is noticed there (it never gets ready, and
    // the main thread maps every batch), not as an unhandled 'error' event.
    started.worker.on("error", () => {});
    started.worker.unref();
    started.results.unref();
    prestarted.push(started);
  }
}

/** How many prestarted workers wait for a pool. */
export const prestartedCount = (): number => prestarted.length;

function takePrestarted(url: URL, heapMb: number): Started | undefined {
  const i = prestarted.findIndex((p) => p.url === url.href && p.heapMb === heapMb);
  return i < 0 ? undefined : prestarted.splice(i, 1)[0];
}

/**
 * Starts `count` workers (compiled JS from dist), or takes prestarted ones. A worker has room for batches
 * only once it is ready: until then (~0.1-0.15 s, loading modules and compiling its plan) the main thread
 * maps every batch.
 */
export function startWorkerPool(options: {
  count: number;
  init: WorkerInit;
  workerUrl?: URL | undefined;
  /** Old-generation ceiling of each worker, MB (limits.ts). */
  heapMb?: number | undefined;
}): WorkerPool {
  const url = options.workerUrl ?? new URL("./worker.js", import.meta.url);
  const heapMb = options.heapMb ?? workerHeapMb(DEFAULT_MAX_RECORD_BYTES);
  const slots: Slot[] = [];
  let nextId = 0;
  let failure: Error | undefined;

  const settle = (slot: Slot, msg: FromWorker) => {
    if (msg.kind === "ready") slot.ready = true;
    if (msg.kind === "init_error") {
      fail(slot, new AppError(500, "worker_error", `a worker could not start: ${msg.message}`));
    }
    if (msg.kind === "stats") slot.stats?.(msg.stats);
    if (msg.kind !== "result" && msg.kind !== "error") return;
    const p = slot.pending.get(msg.id);
    slot.pending.delete(msg.id);
    if (msg.kind === "result") p?.resolve(msg.result);
    else p?.reject(new AppError(500, "worker_error", `a worker failed: ${msg.message}`));
  };

  /**
   * Takes the results that have arrived without waiting for the event loop to deliver them. The main
   * thread cuts and maps many batches between two turns of its loop; without this it would only see that
   * a worker finished at the next turn, and meanwhile keep mapping batches the idle worker could have had
   * (measured: the worker sat idle for two thirds of the run).
   */
  const drain = () => {
    for (const slot of slots) {
      for (
        let m = receiveMessageOnPort(slot.results);
        m !== undefined;
        m = receiveMessageOnPort(slot.results)
      ) {
        settle(slot, m.message as FromWorker);
      }
    }
  };

  const fail = (slot: Slot, err: Error) => {
    failure ??= err;
    for (const p of slot.pending.values()) p.reject(err);
    slot.pending.clear();
  };

  for (let i = 0; i < options.count; i++) {
    const { worker, results } = takePrestarted(url, heapMb) ?? startWorker(url, heapMb);
    worker.postMessage(options.init satisfies WorkerInit);
    worker.ref();
    const slot: Slot = { worker, results, pending: new Map(), ready: false };
    slots.push(slot);
    results.on("message", (msg: FromWorker) => settle(slot, msg));
    results.ref();
    worker.on("error", (err) => {
      fail(slot, new AppError(500, "worker_error", `a worker failed: ${err.stack ?? err.message}`));
    });
    worker.on("exit", (code) => {
      if (slot.pending.size > 0)
        fail(slot, new AppError(500, "worker_error", `a worker exited with code ${code}`));
    });
  }

  const workerStats: ThreadStats[] = [];
  const close = async () => {
    if (debugPipeline && failure === undefined) {
      for (const s of slots) {
        const stats = await new Promise<ThreadStats>((resolve) => {
          s.stats = resolve;
          s.worker.postMessage({ id: -1, stats: true } satisfies ToWorker);
        });
        workerStats.push(stats);
      }
    }
    await Promise.all(
      slots.map((s) => {
        s.results.close();
        return s.worker.terminate();
      }),
    );
  };

  return {
    capacity: options.count * WORKER_QUEUE,
    hasRoom: () => {
      drain();
      // A failed worker "has room" so that the next batch goes to submit(), which reports the failure.
      return failure !== undefined || slots.some((s) => s.ready && s.pending.size < WORKER_QUEUE);
    },
    submit(batch) {
      if (failure) return Promise.reject(failure);
      let slot: Slot | undefined;
      for (const s of slots)
        if (s.ready && (slot === undefined || s.pending.size < slot.pending.size)) slot = s;
      // Only hasRoom() decides that a batch goes to a worker; without a ready one, the first takes it.
      slot ??= slots[0]!;
      const id = nextId++;
      let message: ToWorker = { id, batch };
      const transfer: ArrayBuffer[] = [];
      if ((batch.kind === "lines" || batch.kind === "er7") && typeof batch.text !== "string") {
        // Bytes move to the worker, which decodes them: the main thread only copies them into a buffer
        // of their own (a memcpy) instead of decoding and then cloning a string.
        const bytes = ownBuffer(batch.text);
        message = { id, batch: { ...batch, text: bytes } };
        transfer.push(bytes.buffer as ArrayBuffer);
      }
      return new Promise<BatchResult>((resolve, reject) => {
        slot.pending.set(id, { resolve, reject });
        slot.worker.postMessage(message, transfer);
      });
    },
    close,
    workerStats,
  };
}

/**
 * --workers N on N cores: the main thread maps too, beside N-1 worker threads. Its own share of the work
 * (reading, cutting, writing) is small, so a third busy thread on two cores would only take turns with
 * the others; mapping here instead saves a worker's start-up, its heap (~30 MB) and the messages for
 * the batches it keeps. Workers get first claim on each batch; the main thread maps a batch when every
 * worker already has a full queue (WORKER_QUEUE).
 */
export function startMixed(options: {
  workers: number;
  mapBatch: BatchMapper;
  init: WorkerInit;
  workerUrl?: URL | undefined;
  heapMb?: number | undefined;
}): BatchProcessor {
  let pool: WorkerPool | undefined;
  const start = (): WorkerPool => {
    pool ??= startWorkerPool({
      count: options.workers - 1,
      init: options.init,
      workerUrl: options.workerUrl,
      heapMb: options.heapMb,
    });
    return pool;
  };
  // Workers start with the second batch, unless they were started before the run (map-workers.ts): an
  // input of one batch (a few records on stdin) is mapped here long before a worker could have loaded, and
  // starting one cost the first record ~15 ms of this thread and a core busy loading modules.
  if (prestartedCount() > 0) start();
  const { mapBatch } = options;
  let mainBatches = 0;
  let submitted = 0;
  return {
    // Room for the workers' queues plus as many batches again mapped here while the oldest is still out:
    // with less, the main thread waited for a worker's result instead of mapping (0.18 -> 0.12 s a run).
    capacity: options.workers * 2 * WORKER_QUEUE,
    async submit(batch) {
      // hasRoom() takes the workers' finished results first, so a worker that just finished gets this batch.
      const workers = submitted++ > 0 ? start() : pool;
      if (workers?.hasRoom()) return workers.submit(batch);
      mainBatches++;
      const result = mapBatch(batch);
      encodeOutput(result);
      return result;
    },
    close: async () => pool?.close(),
    get mainBatches() {
      return mainBatches;
    },
    get workerStats() {
      return pool?.workerStats;
    },
  };
}

/**
 * The bytes in an ArrayBuffer of their own, so that moving it to a worker detaches nothing else: a batch
 * is usually a view into a larger read chunk, which the reader is still cutting.
 */
function ownBuffer(bytes: Uint8Array): Uint8Array {
  // allocUnsafeSlow: never from Buffer's shared pool, and not zero-filled (every byte is overwritten).
  const own = Buffer.allocUnsafeSlow(bytes.byteLength);
  own.set(bytes);
  return own;
}
