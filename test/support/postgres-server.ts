// Test harness: a private PostgreSQL cluster (Debian's `postgresql` package: initdb + pg_ctl) on a free
// loopback port in a temp directory, run as an unprivileged user when the tests run as root (as CI does),
// removed afterwards. Where the package is absent, the tests are skipped with one line (tools.ts), which
// .ci/run (CROSSMAP_REQUIRE_TOOLS=1) turns into a failure.
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { findTool } from "./tools.js";

/** The directory of initdb and pg_ctl, or undefined when PostgreSQL is not installed (or hidden). */
export function postgresBinDir(): string | undefined {
  const initdb = findTool("initdb");
  return initdb !== undefined && existsSync(join(dirname(initdb), "pg_ctl")) ? dirname(initdb) : undefined;
}

/** Whether the real-server tests run (tools.ts: skipped with one line and listed at the end when not). */
export function postgresAvailable(): boolean {
  return postgresBinDir() !== undefined;
}

export interface PostgresServer {
  /** postgresql://crossmap@127.0.0.1:PORT/postgres */
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (!bin)
    throw new Error(
      "initdb/pg_ctl not found: install PostgreSQL (`apt-get install -y postgresql`; .ci/run does)",
    );
  const dir = mkdtempSync(join(tmpdir(), "crossmap-pg-"));
  const data = join(dir, "data");
  const log = join(dir, "server.log");
  // PostgreSQL refuses to run as root: hand the directory to the postgres (or nobody) account.
  const asRoot = userInfo().uid === 0;
  const account = asRoot ? (accountExists("postgres") ? "postgres" : "nobody") : undefined;
  if (account) {
    const uid = Number(execFileSync("id", ["-u", account], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", account], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const run = (program: string, args: string[]): void => {
    const [cmd, argv] = account
      ? ["runuser", ["-u", account, "--", join(bin, program), ...args]]
      : [join(bin, program), args];
    execFileSync(cmd as string, argv as string[], { stdio: "pipe", cwd: dir });
  };
  run("initdb", ["-D", data, "-U", "crossmap", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C"]);
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const options = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories='' -c fsync=off`;
    try {
      run("pg_ctl", ["-D", data, "-l", log, "-o", options, "-w", "-t", "60", "start"]);
      return {
        url: `postgresql://crossmap@127.0.0.1:${port}/postgres`,
        stop: async () => {
          try {
            run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        },
      };
    } catch (err) {
      // Another process took the port between our probe and the server's bind: try another.
      lastError = err;
    }
  }
  const text = existsSync(log) ? readFileSync(log, "utf8") : "";
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`PostgreSQL did not start: ${String(lastError)}\n${text}`);
}

function accountExists(name: string): boolean {
  try {
    execFileSync("id", ["-u", name], { stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
}
