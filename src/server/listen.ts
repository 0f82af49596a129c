// Starts the app on a port with connection limits, and stops it gracefully: stop accepting, let in-flight
// requests finish, drop idle keep-alive connections, then the caller closes the stores.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import type Koa from "koa";
import { type ConnectionAdmission, installAdmission, reserveGate } from "./connection-limits.js";
import type { Logger } from "./logging.js";

export interface RunningServer {
  server: Server;
  port: number;
  url: string;
  /** Who holds the sockets (open counts, sockets refused). */
  admission: ConnectionAdmission;
  /** Resolves once every in-flight request has been answered; forces connections closed after `graceMs`. */
  close(graceMs?: number): Promise<void>;
}

/** How much of the server one client can hold; docs/api.md ("Limits") documents each. */
export interface ConnectionLimits {
  /** Open sockets at once; more are refused (closed on accept), but for the /healthz reserve. */
  maxConnections: number;
  /** Open sockets one remote address may hold; more are refused like those past `maxConnections`. 0: no cap. */
  maxConnectionsPerAddress: number;
  /** Sockets beyond both caps that answer /healthz only (then close); see connection-limits.ts. */
  healthReserve: number;
  /** Time to receive a request's headers, from its first byte (or, on a new connection, from accept). */
  headersTimeoutMs: number;
  /** Time to receive a whole request, body included: a client trickling its body is cut off here. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open between requests. */
  keepAliveTimeoutMs: number;
}

export const CONNECTION_DEFAULTS: Readonly<ConnectionLimits> = Object.freeze({
  maxConnections: 1000,
  maxConnectionsPerAddress: 100,
  healthReserve: 16,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
});

const REASONS: Record<number, string> = {
  400: "Bad Request",
  405: "Method Not Allowed",
  408: "Request Timeout",
  413: "Payload Too Large",
  431: "Request Header Fields Too Large",
};

/**
 * What Node answers itself (a malformed request, headers too large, a request past its timeout), in the
 * API's `{"detail": ...}` shape instead of an empty 400.
 */
function clientErrorResponse(code: string | undefined): string {
  const status =
    code === "HPE_HEADER_OVERFLOW"
      ? 431
      : code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? 408
        : code === "HPE_CHUNK_EXTENSIONS_OVERFLOW"
          ? 413
          : 400;
  return closingResponse(status);
}

/** A complete `{"detail": ...}` answer that closes its connection, for what never reaches the app. */
export function closingResponse(status: number): string {
  const body = JSON.stringify({ detail: REASONS[status] });
  return (
    `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `X-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

export function listen(
  app: Koa,
  port: number,
  host: string,
  limits: Partial<ConnectionLimits> = {},
  log?: Logger,
): Promise<RunningServer> {
  const l = { ...CONNECTION_DEFAULTS, ...limits };
  // Node checks the header and request timeouts every connectionsCheckingInterval (default 30 s, which
  // let a slow client keep a connection up to 30 s past them); a second keeps the limits close to exact.
  const server = createServer(
    { connectionsCheckingInterval: Math.min(1000, l.headersTimeoutMs, l.requestTimeoutMs) },
    reserveGate(app.callback()),
  );
  const admission = installAdmission(server, l);
  server.headersTimeout = l.headersTimeoutMs;
  server.requestTimeout = l.requestTimeoutMs;
  server.keepAliveTimeout = l.keepAliveTimeoutMs;
  server.on("clientError", (err: Error & { code?: string }, socket: Socket) => {
    if (err.code !== "ECONNRESET" && err.code !== "EPIPE" && socket.writable && socket.bytesWritten === 0) {
      socket.write(clientErrorResponse(err.code));
      log?.({ level: "warn", msg: "client error", code: err.code ?? null });
    }
    socket.destroy();
  });
  // Node hands CONNECT (a proxy's tunnel request) to this event, and closes the socket when nobody
  // listens: the API has no tunnels, so the client hears that in the API's shape instead.
  server.on("connect", (_req: IncomingMessage, socket: Duplex) => {
    socket.on("error", () => {});
    socket.end(closingResponse(405));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const actual = (server.address() as AddressInfo).port;
      const shown = host.includes(":") ? `[${host}]` : host;
      resolve({
        server,
        port: actual,
        url: `http://${shown}:${actual}`,
        admission,
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
