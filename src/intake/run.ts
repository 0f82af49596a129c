// `crossmap listen`: opens the journal, the output and the conversion threads, converts what the journal
// kept and had not converted before the last stop, then takes MLLP connections until SIGTERM or SIGINT.

import { type HealthServer, startHealth } from "../scale/health.js";
import { onStopSignal } from "../scale/signals.js";
import type { ConnectionLimits } from "./connection.js";
import type { ConvertSettings } from "./convert.js";
import { startConverter } from "./convert-threads.js";
import { FileSink } from "./file-sink.js";
import { Intake } from "./intake.js";
import type { Journal } from "./journal.js";
import { listenMetrics } from "./metrics.js";
import { Reports, type ReportsState } from "./reports.js";
import type { RollingOptions } from "./rolling-file.js";
import { startMllpServer, type TlsFiles } from "./server.js";
import type { Sink } from "./sink.js";

export interface ListenOptions {
  host: string;
  port: number;
  tls?: TlsFiles;
  maxConnections: number;
  limits: ConnectionLimits;
  /** Opens the journal (LMDB or JetStream) once the rest has started. */
  journal: () => Promise<Journal>;
  /** The output: files in a folder, or a sink of another kind (sink.ts), given the journal it follows. */
  sink: (roll: RollingOptions, journal: Journal) => Sink;
  /** Where dead letters and issue lines go. */
  reportsDir: string;
  roll: Omit<RollingOptions, "sync">;
  durability: "flush" | "commit";
  convert: ConvertSettings;
  workers: number;
  maxPending: number;
  /** How often resend keys past the window are forgotten (ms). */
  pruneEveryMs: number;
  healthPort?: string;
  stderr: NodeJS.WritableStream;
}

export { FileSink };

export async function runListener(o: ListenOptions): Promise<number> {
  const log = (line: string) => o.stderr.write(`crossmap listen: ${line}\n`);
  const metrics = listenMetrics();
  const roll: RollingOptions = { ...o.roll, sync: o.durability === "flush" };
  const converter = await startConverter(o.convert, o.workers);
  let journal: Journal | undefined;
  let sink: Sink | undefined;
  let reports: Reports | undefined;
  let health: HealthServer | undefined;
  const timers: NodeJS.Timeout[] = [];
  let stop!: (code: number) => void;
  const stopped = new Promise<number>((resolve) => {
    stop = resolve;
  });
  let state: "starting" | "ok" | "stopping" = "starting";
  const offSignals = onStopSignal((name) => {
    if (state === "stopping") return false;
    log(`${name}: answering what is owed, converting what is in hand, then stopping`);
    stop(0);
    return true;
  });
  try {
    journal = await o.journal();
    const j = journal;
    const out = o.sink(roll, j);
    sink = out;
    const notes = new Reports(o.reportsDir, roll);
    reports = notes;
    const committed = j.outputState() as { sink?: unknown; reports?: ReportsState } | undefined;
    await out.open(committed?.sink);
    await notes.open(committed?.reports);
    let failure: Error | undefined;
    const intake = new Intake({
      journal: j,
      converter,
      sink: out,
      reports: notes,
      metrics,
      maxPending: o.maxPending,
      log,
      fatal: (err) => {
        if (failure) return;
        failure = err;
        log(`${err.message}; stopping (a restart goes on from the journal)`);
        stop(1);
      },
    });
    const recovered = await intake.recover();
    const server = await startMllpServer({
      host: o.host,
      port: o.port,
      ...(o.tls ? { tls: o.tls } : {}),
      maxConnections: o.maxConnections,
      limits: o.limits,
      intake,
      metrics,
      log,
    });
    let retriesCounted = 0;
    const refresh = () => {
      metrics.inJournal(j.pendingCount());
      metrics.lag(intake.lagSeconds(Date.now()));
      const retries = out.tries?.retries ?? 0;
      metrics.outputRetries(retries - retriesCounted);
      retriesCounted = retries;
    };
    if (o.healthPort !== undefined) {
      health = await startHealth(o.healthPort, {
        status: () => {
          if (state !== "ok") return state;
          if (intake.health !== "ok") return intake.health;
          // Degraded (503) while the output does not accept and is tried again: the listener still keeps
          // and acknowledges messages, but completes none, and stops (exit 1) if the tries run out.
          return out.tries?.failing !== undefined ? "degraded" : "ok";
        },
        details: () => {
          refresh();
          const failing = out.tries?.failing;
          return {
            mllp: `${server.host}:${server.port}`,
            journal: j.kind,
            output: out.description,
            ...(failing !== undefined ? { output_error: failing } : {}),
            waiting: intake.waiting,
            ...metrics.registry.toJSON(),
          };
        },
        metrics: metrics.registry,
        refresh: async () => refresh(),
      });
    }
    timers.push(setInterval(() => intake.kick(), 1000));
    timers.push(
      setInterval(() => {
        j.prune(Date.now()).catch((err: Error) => log(`cannot forget old resend keys: ${err.message}`));
      }, o.pruneEveryMs),
    );
    for (const t of timers) t.unref();
    state = "ok";
    log(
      `MLLP${o.tls ? " over TLS" : ""} on ${server.host}:${server.port}; journal ${j.kind}` +
        (recovered > 0 ? ` (${recovered} kept messages to convert)` : "") +
        `; output ${out.description}; dead letters and issues in ${o.reportsDir}` +
        (health ? `; health on ${health.url}` : ""),
    );
    const code = await stopped;
    state = "stopping";
    await server.close();
    // What is converted is committed; what is not stays in the journal for the next start.
    if (failure === undefined) await intake.settle(10_000);
    log("stopped");
    return code;
  } finally {
    offSignals();
    for (const t of timers) clearInterval(t);
    await sink?.close();
    await reports?.close();
    await converter.close();
    await health?.close();
    await journal?.close();
  }
}
