// The MLLP port: plain TCP, or TLS (with an optional check of the client's certificate against a CA),
// capped at a number of connections; each connection is handled by connection.ts.
import { createServer as createTcpServer, type Server, type Socket } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import { AppError } from "../errors.js";
import { Connection, type ConnectionLimits } from "./connection.js";
import type { Intake } from "./intake.js";
import type { ListenMetrics } from "./metrics.js";

export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
  /** Clients must present a certificate signed by this CA. */
  ca?: Buffer;
}

export interface MllpServerOptions {
  host: string;
  port: number;
  tls?: TlsFiles;
  maxConnections: number;
  limits: ConnectionLimits;
  intake: Intake;
  metrics: ListenMetrics;
  log: (line: string) => void;
}

export interface MllpServer {
  host: string;
  port: number;
  /** Stops accepting, sends each connection the answers it is owed, closes them. */
  close(): Promise<void>;
}

export async function startMllpServer(o: MllpServerOptions): Promise<MllpServer> {
  const connections = new Set<Connection>();
  const accept = (socket: Socket) => {
    const c = new Connection(socket, o.intake, o.metrics, o.limits, o.log);
    connections.add(c);
    o.metrics.connectionsTotal();
    o.metrics.connections(connections.size);
    socket.on("close", () => {
      connections.delete(c);
      o.metrics.connections(connections.size);
    });
  };
  let server: Server;
  if (o.tls) {
    server = createTlsServer(
      {
        cert: o.tls.cert,
        key: o.tls.key,
        ...(o.tls.ca ? { ca: o.tls.ca, requestCert: true, rejectUnauthorized: true } : {}),
        // A peer that never finishes its handshake holds its socket no longer than a frame may take.
        handshakeTimeout: o.limits.frameTimeoutMs,
      },
      accept,
    );
    server.on("tlsClientError", (err, socket) => {
      o.metrics.closed(1, { reason: "tls" });
      o.log(`${socket.remoteAddress ?? "?"}:${socket.remotePort ?? "?"}: TLS: ${err.message}`);
    });
  } else {
    server = createTcpServer(accept);
  }
  // Past the cap Node closes new sockets at once: the sender sees the connection refused and tries later.
  server.maxConnections = o.maxConnections;
  server.on("drop", () => o.metrics.connectionsRefused());
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        new AppError(
          400,
          "usage",
          `--mllp ${o.port}: cannot listen on ${o.host}: ${err.code ?? err.message}`,
        ),
      ),
    );
    server.listen(o.port, o.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : o.port;
  return {
    host: o.host,
    port,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...connections].map((c) => c.drain()));
      await closed;
    },
  };
}
