// `--health-port`: a plain HTTP endpoint for orchestrators. `GET /healthz` answers 200 while the process is
// connected to NATS and taking work, 503 otherwise; `GET /metrics` is Prometheus text.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AppError } from "../errors.js";
import type { Metrics } from "./metrics.js";

export interface HealthSource {
  /** "ok" when taking work; anything else answers 503 with that status. */
  status(): string;
  /** More facts for the /healthz body (name, in-flight work, ...). */
  details(): Record<string, unknown>;
  metrics: Metrics;
  /** Refreshes gauges that cost a round trip (consumer lag) before /metrics renders. */
  refresh?(): Promise<void>;
}

export interface HealthServer {
  url: string;
  close(): Promise<void>;
}

/** Parses `PORT` or `HOST:PORT` (default host 0.0.0.0, so that a probe from outside the pod reaches it). */
export function parseHealthAddress(value: string): { host: string; port: number } {
  const m = /^(?:(.*):)?(\d{1,5})$/.exec(value);
  const port = m ? Number(m[2]) : Number.NaN;
  if (!m || port > 65535) {
    throw new AppError(400, "usage", `--health-port must be PORT or HOST:PORT, got "${value}"`);
  }
  return { host: m[1] || "0.0.0.0", port };
}

export async function startHealth(address: string, source: HealthSource): Promise<HealthServer> {
  const { host, port } = parseHealthAddress(address);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { "content-type": "application/json", allow: "GET, HEAD" });
      res.end('{"detail":"Method Not Allowed"}');
      return;
    }
    if (path === "/healthz") {
      const status = source.status();
      res.writeHead(status === "ok" ? 200 : 503, { "content-type": "application/json" });
      res.end(`${JSON.stringify({ status, ...source.details() })}\n`);
      return;
    }
    if (path === "/metrics") {
      const render = () => {
        res.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" });
        res.end(source.metrics.render());
      };
      (source.refresh?.() ?? Promise.resolve()).then(render, render);
      return;
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end('{"detail":"Not Found"}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        new AppError(400, "usage", `--health-port ${address}: cannot listen: ${err.code ?? err.message}`),
      ),
    );
    server.listen(port, host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return {
    url: `http://${shown.includes(":") ? `[${shown}]` : shown}:${bound.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
