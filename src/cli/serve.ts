// `crossmap serve`: the review and sync server on LMDB, until SIGTERM or SIGINT.
import type { Command } from "commander";
import { CrossmapProvider } from "../crossmap/provider.js";
import { AppError } from "../errors.js";
import { createApp } from "../server/app.js";
import { checkOrigin } from "../server/cors.js";
import { listen } from "../server/listen.js";
import { jsonLineLogger } from "../server/logging.js";
import { DEFAULT_MAX_RECORDS } from "../server/routes/cross-mapping.js";
import { openStores } from "../store/env.js";
import { type LmdbVocabularyBridge, openVocabulary } from "../vocab/lmdb-bridge.js";
import { withDataDir } from "./data-dir.js";

/** The built-in crossmaps, with the vocabulary bridge when `--vocab` names an index. */
function crossmapProvider(vocab: string | undefined): {
  crossmaps: CrossmapProvider;
  vocabulary?: LmdbVocabularyBridge;
  close(): Promise<void>;
} {
  if (vocab === undefined) return { crossmaps: new CrossmapProvider(), close: async () => {} };
  const bridge = openVocabulary(vocab);
  return {
    crossmaps: new CrossmapProvider({ vocabulary: bridge }),
    vocabulary: bridge,
    close: () => bridge.close(),
  };
}

interface ServeOptions {
  port: string;
  host: string;
  dataDir: string;
  vocab?: string;
  durability: string;
  maxRecords: string;
  corsOrigin: string[];
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function registerServe(program: Command): void {
  withDataDir(
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
        "--cors-origin <origin>",
        "allow browser pages from this origin, e.g. https://dashboard.example.org (repeatable; default none)",
        collect,
        [],
      ),
  ).action((opts: ServeOptions) => serve(opts));
}

async function serve(opts: ServeOptions): Promise<void> {
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new AppError(
      400,
      "invalid_argument",
      `--port must be an integer from 0 to 65535, got ${opts.port}`,
    );
  }
  if (opts.durability !== "flush" && opts.durability !== "commit") {
    throw new AppError(
      400,
      "invalid_argument",
      `--durability must be flush or commit, got ${opts.durability}`,
    );
  }
  const maxRecords = Number(opts.maxRecords);
  if (!Number.isInteger(maxRecords) || maxRecords < 1) {
    throw new AppError(
      400,
      "invalid_argument",
      `--max-records must be a positive integer, got ${opts.maxRecords}`,
    );
  }
  const corsOrigins = opts.corsOrigin.map(checkOrigin);
  const { crossmaps, vocabulary, close: closeVocabulary } = crossmapProvider(opts.vocab);
  const log = jsonLineLogger(process.stdout);
  const stores = openStores(opts.dataDir, { durability: opts.durability });
  if (stores.keys.isEmpty()) {
    const { key, secret } = await stores.write(() => stores.keys.create("admin", null));
    // stderr, not the log stream: log lines get shipped and kept, and this secret must not be.
    process.stderr.write(
      `crossmap: first start, created admin API key ${key.id}. It is shown only this once:\n${secret}\n`,
    );
  }
  const app = createApp({
    stores,
    log,
    crossmaps,
    maxRecords,
    corsOrigins,
    ...(vocabulary ? { vocabulary } : {}),
  });
  const running = await listen(app, port, opts.host);
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
  await stores.close();
  await closeVocabulary();
  log({ level: "info", msg: "stopped" });
}
