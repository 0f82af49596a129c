// Who may hold the server's sockets: a cap on all of them, a cap per remote address so that one client
// cannot take them all, and a small reserve beyond both that answers only /healthz, so that a probe still
// gets through while the caps are full. Everything past the reserve is closed on accept.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

export interface AdmissionLimits {
  /** Open sockets at once, over all clients (the reserve comes on top). */
  maxConnections: number;
  /** Open sockets one remote address may hold; 0: no cap per address. */
  maxConnectionsPerAddress: number;
  /** Sockets beyond the caps kept for /healthz alone; 0: none. */
  healthReserve: number;
}

/** How many of the reserve's sockets one address may hold, so that one client cannot take it all. */
const RESERVE_PER_ADDRESS = 2;

/** How long a reserve socket may stay without a complete request: it is there for one quick probe. */
const RESERVE_IDLE_MS = 2000;

export type Admission = "normal" | "reserve";

/** Sockets admitted past the caps: they get /healthz and nothing else. */
const reserved = new WeakSet<Socket>();

/** `::ffff:10.0.0.1` and `10.0.0.1` are one client. */
const addressOf = (socket: Socket): string => {
  const a = socket.remoteAddress ?? "";
  return a.startsWith("::ffff:") ? a.slice(7) : a;
};

/**
 * Tracks the server's sockets and decides, on each accept, whether it is served (`normal`), kept for
 * /healthz only (`reserve`), or closed. Counts drop when a socket closes.
 */
export class ConnectionAdmission {
  private total = 0;
  private reserveUsed = 0;
  private readonly perAddress = new Map<string, { normal: number; reserve: number }>();
  /** Sockets closed on accept since the start (for the log and tests). */
  refused = 0;

  constructor(private readonly limits: AdmissionLimits) {}

  /** Registers an accepted socket; undefined means it was closed. */
  admit(socket: Socket): Admission | undefined {
    const address = addressOf(socket);
    const counts = this.perAddress.get(address) ?? { normal: 0, reserve: 0 };
    const perAddress = this.limits.maxConnectionsPerAddress;
    let admission: Admission | undefined;
    if (this.total < this.limits.maxConnections && (perAddress === 0 || counts.normal < perAddress)) {
      admission = "normal";
    } else if (this.reserveUsed < this.limits.healthReserve && counts.reserve < RESERVE_PER_ADDRESS) {
      admission = "reserve";
    }
    if (admission === undefined) {
      this.refused++;
      socket.destroy();
      return undefined;
    }
    if (admission === "normal") {
      counts.normal++;
      this.total++;
    } else {
      counts.reserve++;
      this.reserveUsed++;
      reserved.add(socket);
      socket.setTimeout(RESERVE_IDLE_MS, () => socket.destroy());
    }
    this.perAddress.set(address, counts);
    socket.once("close", () => {
      if (admission === "normal") {
        counts.normal--;
        this.total--;
      } else {
        counts.reserve--;
        this.reserveUsed--;
      }
      if (counts.normal === 0 && counts.reserve === 0) this.perAddress.delete(address);
    });
    return admission;
  }

  /** Open sockets: served, and kept for /healthz. */
  get open(): { normal: number; reserve: number } {
    return { normal: this.total, reserve: this.reserveUsed };
  }
}

const BUSY = JSON.stringify({
  detail: "Too many connections from this address or in all; only /healthz is answered on this one",
});

/**
 * Wraps the app's request handler: on a reserve socket, `GET`/`HEAD /healthz` goes to the app and the
 * connection closes after it; anything else is a 503 in the API's shape, and the connection closes.
 */
export function reserveGate(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (!reserved.has(req.socket)) return handler(req, res);
    res.shouldKeepAlive = false;
    const path = (req.url ?? "").split("?")[0];
    if ((req.method === "GET" || req.method === "HEAD") && path === "/healthz") return handler(req, res);
    // What is left of the request is not read: the connection closes with the answer.
    res.writeHead(503, {
      "Content-Type": "application/json; charset=utf-8",
      "X-Content-Type-Options": "nosniff",
      "Retry-After": "1",
      "Content-Length": Buffer.byteLength(BUSY),
    });
    res.end(BUSY);
  };
}

/** Installs the admission on `server` (before it listens): sockets are counted from their accept. */
export function installAdmission(server: Server, limits: AdmissionLimits): ConnectionAdmission {
  const admission = new ConnectionAdmission(limits);
  // Node's own cap stays as a backstop far beyond ours; ours decides.
  server.maxConnections = limits.maxConnections + limits.healthReserve + 1;
  server.prependListener("connection", (socket: Socket) => {
    admission.admit(socket);
  });
  return admission;
}
