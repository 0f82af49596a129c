// `crossmap serve`: the review and sync server on LMDB, until SIGTERM or SIGINT.
import { rmSync } from "node:fs";
import type { Command } from "commander";
import { AppError } from "../errors.js";
import { createApp } from "../server/app.js";
import { checkOrigin } from "../server/cors.js";
import { DataPool } from "../server/data-pool.js";
import { CONNECTION_DEFAULTS, listen, type RunningServer } from "../server/listen.js";
import { jsonLineLogger } from "../server/logging.js";
import { MAP_POOL_DEFAULTS, MapPool } from "../server/map-pool.js";
import { DEFAULT_MAX_RECORDS } from "../server/routes/cross-mapping.js";
import { openStores } from "../store/env.js";
import { openVocabulary } from "../vocab/lmdb-bridge.js";
import { type DataDirOptions, prepareDataDir, withDataDir } from "./data-dir.js";

interface ServeOptions extends DataDirOptions {
  port: string;
  host: string;
  vocab?: string;
  durability: string;
  maxRecords: string;
  maxConnections: string;
  maxConnectionsPerAddress: string;
  healthReserve: string;
  headersTimeout: string;
  requestTimeout: string;
  keepAliveTimeout: string;
  mapWorkers: string;
  mapTimeout: string;
  mapMemory: string;
  corsOrigin: string[];
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];
const seconds = (ms: number) => String(ms / 1000);

export function registerServe(program: Command): void {
  const cmd = withDataDir(
    program
      .command("serve")
      .description("run the review and sync HTTP server")
      .option("--port <port>", "port to listen on (0 picks a free one)", "8080")
      .option("--host <host>", "address to bind", "127.0.0.1")
      .option("--vocab <dir>", "vocabulary index directory, for cross-mapping and concept search")
      .option("--max-records <n>", "most records one cross-map call may carry", String(DEFAULT_MAX_RECORDS))
      .option(
        "--durability <mode>",
        "acknowledge writes after the fsync (flush) or right after the commit (commit)",
        "flush",
      )
      .option(
        "--max-connections <n>",
        "most open connections; more are refused",
        String(CONNECTION_DEFAULTS.maxConnections),
      )
      .option(
        "--max-connections-per-address <n>",
        "most open connections from one remote address (0: no cap; raise it behind a proxy)",
        String(CONNECTION_DEFAULTS.maxConnectionsPerAddress),
      )
      .option(
        "--health-reserve <n>",
        "connections kept beyond the caps for /healthz alone",
        String(CONNECTION_DEFAULTS.healthReserve),
      )
      .option(
        "--headers-timeout <s>",
        "seconds a client has to send a request's headers",
        seconds(CONNECTION_DEFAULTS.headersTimeoutMs),
      )
      .option(
        "--request-timeout <s>",
        "seconds a client has to send a whole request, body included",
        seconds(CONNECTION_DEFAULTS.requestTimeoutMs),
      )
      .option(
        "--keep-alive-timeout <s>",
        "seconds an idle keep-alive connection stays open",
        seconds(CONNECTION_DEFAULTS.keepAliveTimeoutMs),
      )
      .option("--map-workers <n>", "worker threads for cross-map calls", String(MAP_POOL_DEFAULTS.workers))
      .option(
        "--map-timeout <s>",
        "seconds one cross-map call may run before it is stopped (422)",
        seconds(MAP_POOL_DEFAULTS.timeoutMs),
      )
      .option(
        "--map-memory <mb>",
        "heap of each cross-map worker, in MB; a call needing more is stopped (422)",
        String(MAP_POOL_DEFAULTS.memoryMb),
      )
      .option(
        "--cors-origin <origin>",
        "allow browser pages from this origin, e.g. https://dashboard.example.org (repeatable; default none)",
        collect,
        [],
      ),
  );
  cmd.action((opts: ServeOptions) => serve(opts, cmd.getOptionValueSource("dataDir") === "default"));
}

const usage = (message: string) => new AppError(400, "invalid_argument", message);

function integer(flag: string, raw: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw usage(
      `${flag} must be an integer from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : " up"}, got ${raw}`,
    );
  }
  return n;
}

function millis(flag: string, raw: string): number {
  const s = Number(raw);
  if (!Number.isFinite(s) || s <= 0 || s > 86_400)
    throw usage(`${flag} must be a number of seconds above 0, got ${raw}`);
  return Math.round(s * 1000);
}

/** Why listen failed, as one line a user can act on; undefined for errors that are not the user's. */
function listenProblem(err: unknown, port: number, host: string): string | undefined {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE") {
    return `port ${port} is in use (another crossmap serve, or another program); stop it or choose another port with --port`;
  }
  if (code === "EACCES") return `not allowed to listen on port ${port}; choose a port above 1023 with --port`;
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") {
    return `cannot listen on host ${host}: no such address on this machine; check --host`;
  }
  return undefined;
}

async function serve(opts: ServeOptions, defaultDataDir: boolean): Promise<void> {
  const port = integer("--port", opts.port, 0, 65535);
  if (opts.durability !== "flush" && opts.durability !== "commit") {
    throw usage(`--durability must be flush or commit, got ${opts.durability}`);
  }
  const maxRecords = integer("--max-records", opts.maxRecords, 1);
  const limits = {
    maxConnections: integer("--max-connections", opts.maxConnections, 1),
    maxConnectionsPerAddress: integer("--max-connections-per-address", opts.maxConnectionsPerAddress, 0),
    healthReserve: integer("--health-reserve", opts.healthReserve, 0, 1000),
    headersTimeoutMs: millis("--headers-timeout", opts.headersTimeout),
    requestTimeoutMs: millis("--request-timeout", opts.requestTimeout),
    keepAliveTimeoutMs: millis("--keep-alive-timeout", opts.keepAliveTimeout),
  };
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw usage("--headers-timeout cannot be longer than --request-timeout");
  }
  const mapPool = new MapPool({
    workers: integer("--map-workers", opts.mapWorkers, 1, 64),
    timeoutMs: millis("--map-timeout", opts.mapTimeout),
    memoryMb: integer("--map-memory", opts.mapMemory, 64),
    job: { maxRecords, ...(opts.vocab !== undefined ? { vocab: opts.vocab } : {}) },
  });
  const corsOrigins = opts.corsOrigin.map(checkOrigin);
  // The event loop's own bridge, for the routes that read the index directly (revalidation, exports,
  // concept search); each map worker opens its own. A wrong --vocab is a usage error here, at start.
  const vocabulary = opts.vocab !== undefined ? openVocabulary(opts.vocab) : undefined;
  // A default ./data is created on first start; an explicit --data-dir that does not exist needs --init.
  const created = prepareDataDir(opts.dataDir, opts.init === true || defaultDataDir) === "created";
  const log = jsonLineLogger(process.stdout);
  const stores = openStores(opts.dataDir, { durability: opts.durability });
  // Imports, exports, revalidation and pulls: a worker of their own on the same environment.
  const dataPool = new DataPool({
    config: {
      dataDir: opts.dataDir,
      durability: opts.durability,
      ...(opts.vocab !== undefined ? { vocab: opts.vocab } : {}),
    },
  });
  const app = createApp({
    stores,
    log,
    mapPool,
    dataPool,
    maxRecords,
    corsOrigins,
    ...(vocabulary ? { vocabulary } : {}),
  });
  let running: RunningServer;
  try {
    running = await listen(app, port, opts.host, limits, log);
  } catch (err) {
    await mapPool.close();
    await dataPool.close();
    await stores.close();
    await vocabulary?.close();
    // Nothing was served from a directory made for this start: leave no empty database behind.
    if (created) rmSync(opts.dataDir, { recursive: true, force: true });
    const problem = listenProblem(err, port, opts.host);
    if (problem === undefined) throw err;
    process.stderr.write(`crossmap serve: ${problem}\n`);
    process.exitCode = 2;
    return;
  }
  if (created) {
    process.stderr.write(`crossmap serve: created data directory ${opts.dataDir} (a new, empty database)\n`);
  }
  // Only now that the server listens: a key printed by a start that then failed would never be shown again.
  if (stores.keys.isEmpty()) {
    const { key, secret } = await stores.write(() => stores.keys.create("admin", null));
    // stderr, not the log stream: log lines get shipped and kept, and this secret must not be.
    process.stderr.write(
      `crossmap: first start, created admin API key ${key.id}. It is shown only this once:\n${secret}\n`,
    );
  }
  // The map workers load their modules now, beside the first requests, not before the port is open.
  mapPool.prestart();
  // Build the projects' in-memory item lists in the background now, a chunk per turn, so that the first
  // reviewer does not wait for them (~1 s per 100,000 items on the development VM).
  for (const project of stores.projects.list()) {
    stores.mirrors.schema.warm(project.id);
    stores.mirrors.concept.warm(project.id);
  }
  log({
    level: "info",
    msg: "listening",
    url: running.url,
    data_dir: opts.dataDir,
    durability: opts.durability,
  });

  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGTERM", () => resolve("SIGTERM"));
    process.once("SIGINT", () => resolve("SIGINT"));
  });
  log({ level: "info", msg: "shutting down", signal });
  await running.close();
  await mapPool.close();
  await dataPool.close();
  await stores.close();
  await vocabulary?.close();
  log({ level: "info", msg: "stopped" });
}
