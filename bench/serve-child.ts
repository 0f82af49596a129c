// Shared by the HTTP benchmarks: a free port, the admin key a fresh `crossmap serve` prints once on
// stderr, and waiting until it answers /healthz.
import type { ChildProcess } from "node:child_process";
import { createServer } from "node:net";

export function adminKey(server: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let err = "";
    server.stderr?.on("data", (d) => {
      err += d;
      const m = /^(cmk_\S+)$/m.exec(err);
      if (m) resolve(m[1] as string);
    });
    server.once("exit", (code) => reject(new Error(`server exited with ${code}: ${err}`)));
  });
}

export async function waitForHealth(base: string, seconds = 5): Promise<void> {
  for (let i = 0; i < seconds * 20; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("server did not come up");
}

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
