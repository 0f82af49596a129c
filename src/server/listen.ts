// Starts the app on a port and stops it gracefully: stop accepting, let in-flight requests finish,
// drop idle keep-alive connections, then the caller closes the stores.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type Koa from "koa";

export interface RunningServer {
  server: Server;
  port: number;
  url: string;
  /** Resolves once every in-flight request has been answered; forces connections closed after `graceMs`. */
  close(graceMs?: number): Promise<void>;
}

export function listen(app: Koa, port: number, host: string): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.once("error", reject);
    server.once("listening", () => {
      server.off("error", reject);
      const actual = (server.address() as AddressInfo).port;
      const shown = host.includes(":") ? `[${host}]` : host;
      resolve({
        server,
        port: actual,
        url: `http://${shown}:${actual}`,
        close: (graceMs) => close(server, graceMs),
      });
    });
  });
}

function close(server: Server, graceMs = 10_000): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      resolve();
    });
    // Connections that finish their request after close() began become idle; sweep them too.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
    server.closeIdleConnections();
  });
}
