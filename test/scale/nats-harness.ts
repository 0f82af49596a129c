// Test harness: a real `nats-server -js` (Debian's nats-server package) on a random loopback port with a
// temp store, and long-running CLI processes (workers, feeds) whose output can be awaited line by line.
// Without a nats-server the files that use it are skipped (`describeWithNats`, test/support/tool-suite.ts)
// and the run's closing lines say so; .ci/run installs the package and fails on such a skip.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { RESULT_STREAM, WORK_STREAM } from "../../src/scale/names.js";
import { describeWithTool } from "../support/tool-suite.js";
import { findTool } from "../support/tools.js";

const bin = fileURLToPath(new URL("../../bin/crossmap.js", import.meta.url));
export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

function natsServerBinary(): string {
  const found = findTool("nats-server");
  // Only reached when describeWithNats did not skip the file.
  if (found === undefined) throw new Error("nats-server is missing (apt-get install nats-server)");
  return found;
}

/** `describe`, or `describe.skip` (one line, recorded for the closing lines) without a nats-server. */
export const describeWithNats = (fileUrl: string) => describeWithTool("nats-server", fileUrl);

export interface NatsServer {
  url: string;
  stop(): Promise<void>;
  /** Ends the server (SIGTERM, or `signal`) and keeps its store, for `restart`. */
  halt(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port with the same store. */
  restart(): Promise<void>;
  /** What the server logged since it was (re)started. */
  log(): string;
}

export interface NatsServerOptions {
  /** nats-server configuration lines, e.g. `max_payload: 65536`. */
  config?: string;
}

export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServer> {
  const dir = mkdtempSync(join(tmpdir(), "crossmap-nats-"));
  const extra: string[] = [];
  if (options.config) {
    writeFileSync(join(dir, "nats.conf"), `${options.config}\n`);
    extra.push("-c", join(dir, "nats.conf"));
  }
  let child: ChildProcessWithoutNullStreams;
  let log = "";
  const start = (port: string) =>
    new Promise<string>((resolve, reject) => {
      log = "";
      child = spawn(natsServerBinary(), [
        ...extra,
        "-js",
        "-a",
        "127.0.0.1",
        "-p",
        port,
        "-sd",
        join(dir, "js"),
      ]);
      const timer = setTimeout(() => reject(new Error(`nats-server did not start:\n${log}`)), 20_000);
      const onData = (d: Buffer) => {
        log += d.toString();
        const m = /Listening for client connections on ([\d.]+:\d+)/.exec(log);
        if (m && /Server is ready/.test(log)) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      };
      child.stderr.on("data", onData);
      child.stdout.on("data", onData);
      child.on("exit", (code) => reject(new Error(`nats-server exited with ${code}:\n${log}`)));
    });
  const address = await start("-1");
  const halt = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill(signal);
      await exited;
    }
  };
  return {
    url: `nats://${address}`,
    stop: async () => {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
    halt,
    restart: async () => {
      await start(address.slice(address.lastIndexOf(":") + 1));
    },
    log: () => log,
  };
}

/** A CLI process left running: its output so far, and waits for a line or its exit. */
export interface Proc {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves when stderr matches (rejects after `ms` or on exit without a match). */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpExecArray>;
  exited(): Promise<number | null>;
  kill(signal: NodeJS.Signals): void;
}

const running = new Set<Proc>();

export function startCli(args: string[]): Proc {
  const child = spawn(process.execPath, [bin, ...args], { cwd: repoRoot });
  child.stdin.end();
  const out: Buffer[] = [];
  let err = "";
  const waiters: (() => void)[] = [];
  child.stdout.on("data", (d: Buffer) => out.push(d));
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
    for (const w of waiters) w();
  });
  const exit = new Promise<number | null>((resolve) =>
    child.on("close", (code) => {
      running.delete(proc);
      for (const w of waiters) w();
      resolve(code);
    }),
  );
  const proc: Proc = {
    child,
    stdout: () => Buffer.concat(out).toString("utf8"),
    stderr: () => err,
    waitFor: (pattern, ms = 60_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const m = pattern.exec(err);
          if (m) {
            done();
            resolve(m);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done();
            reject(new Error(`process exited before ${pattern}:\n${err}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out waiting for ${pattern}:\n${err}`));
        }, ms);
        const done = () => {
          clearTimeout(timer);
          const i = waiters.indexOf(check);
          if (i >= 0) waiters.splice(i, 1);
        };
        waiters.push(check);
        check();
      }),
    exited: () => exit,
    kill: (signal) => {
      child.kill(signal);
    },
  };
  running.add(proc);
  return proc;
}

/** Kills every CLI process a test left running (afterEach/afterAll). */
export async function killAll(): Promise<void> {
  const all = [...running];
  for (const p of all) p.kill("SIGKILL");
  await Promise.all(all.map((p) => p.exited()));
}

/**
 * Kills what a test left running and empties the bulk streams, so that a test that failed half-way does
 * not leave batches for the next test's workers (afterEach).
 */
export async function cleanUp(url: string | undefined): Promise<void> {
  await killAll();
  if (!url) return;
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    for (const stream of [WORK_STREAM, RESULT_STREAM]) await jsm.streams.purge(stream).catch(() => {});
  } finally {
    await nc.close();
  }
}

/** A worker with a health port; resolves once it takes batches, with its health URL. */
export async function startWorker(
  url: string,
  name: string,
  extra: string[] = [],
): Promise<{ proc: Proc; health: string }> {
  const proc = startCli(["worker", "--nats", url, "--name", name, "--health-port", "127.0.0.1:0", ...extra]);
  const m = await proc.waitFor(/health on (http:\/\/[\d.]+:\d+)/);
  return { proc, health: m[1]! };
}

export async function health(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${url}/healthz`);
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

/** Polls until `check` holds (every 50 ms, up to `ms`). */
export async function until(
  check: () => Promise<boolean> | boolean,
  ms = 60_000,
  what = "condition",
): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
