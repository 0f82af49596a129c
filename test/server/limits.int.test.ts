// Issue 13: what one client can hold (connections, a trickled body, idle sockets) and what one cross-map
// call can cost (time, memory) are bounded, and each limit answers in the API's shape.
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/server/app.js";
import { listen, type RunningServer } from "../../src/server/listen.js";
import type { LogEntry } from "../../src/server/logging.js";
import { MapPool } from "../../src/server/map-pool.js";
import { openStores, type Stores } from "../../src/store/env.js";

interface Server {
  url: string;
  port: number;
  stores: Stores;
  key: string;
  projectId: string;
  logs: LogEntry[];
  stop(): Promise<void>;
}

async function start(
  limits: Parameters<typeof listen>[3],
  pool: ConstructorParameters<typeof MapPool>[0] = { job: { maxRecords: 10_000 } },
): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), "crossmap-limits-"));
  const stores = openStores(dir);
  const logs: LogEntry[] = [];
  const mapPool = new MapPool({ workers: 1, ...pool });
  const app = createApp({ stores, mapPool, log: (e) => logs.push(e) });
  const running: RunningServer = await listen(app, 0, "127.0.0.1", limits);
  const key = (await stores.write(() => stores.keys.create("admin", null))).secret;
  const project = await stores.write(() => stores.projects.create({ name: "p" }));
  return {
    url: running.url,
    port: running.port,
    stores,
    key,
    projectId: project.id,
    logs,
    stop: async () => {
      await running.close(100);
      await mapPool.close();
      await stores.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Opens a socket, writes `text`, and resolves with what came back and when the server closed it. */
function hold(port: number, text: string, trickle?: { every: number; bytes: string }) {
  const t0 = performance.now();
  return new Promise<{ reply: string; closedAfterMs: number }>((resolve, reject) => {
    const socket: Socket = connect(port, "127.0.0.1");
    let reply = "";
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => {
      reply += d;
    });
    socket.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code !== "ECONNRESET" && err.code !== "EPIPE") reject(err);
    });
    socket.on("close", () => {
      clearInterval(timer);
      resolve({ reply, closedAfterMs: performance.now() - t0 });
    });
    socket.write(text);
    if (trickle) {
      let i = 0;
      timer = setInterval(() => {
        if (!socket.destroyed) socket.write(trickle.bytes[i++ % trickle.bytes.length] as string);
      }, trickle.every);
    }
  });
}

const REQUEST_TIMEOUT =
  'HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nContent-Length: 28\r\nConnection: close\r\n\r\n{"detail":"Request Timeout"}';

describe("connection limits", () => {
  let s: Server;
  beforeAll(async () => {
    s = await start({
      maxConnections: 8,
      headersTimeoutMs: 1000,
      requestTimeoutMs: 2000,
      keepAliveTimeoutMs: 500,
    });
  });
  afterAll(() => s.stop());

  it("a body trickled one byte at a time is cut off at the request timeout with a JSON 408", async () => {
    const head = `POST /api/v1/sync/projects/${s.projectId}/schema-mappings/bulk HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
    const r = await hold(s.port, head, { every: 200, bytes: '{"items":[' });
    expect(r.reply).toBe(REQUEST_TIMEOUT);
    // 2 s, checked every second: never the minutes a trickling client held before.
    expect(r.closedAfterMs).toBeLessThan(6000);
  });

  it("headers trickled one byte at a time, and a connection that sends nothing, are closed too", async () => {
    const headers = await hold(s.port, "GET /healthz HTTP/1.1\r\n", { every: 100, bytes: "X-A: b\r\n" });
    expect(headers.reply).toBe(REQUEST_TIMEOUT);
    expect(headers.closedAfterMs).toBeLessThan(6000);
    const silent = await hold(s.port, "");
    expect(silent.closedAfterMs).toBeLessThan(6000);
  });

  it("an idle keep-alive connection is closed after the keep-alive timeout", async () => {
    const r = await hold(s.port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(r.reply).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n\{"status":"ok"\}$/);
    expect(r.closedAfterMs).toBeLessThan(6000);
  });

  it("connections over the maximum are refused, and the server answers again once they close", async () => {
    const sockets = await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          new Promise<{ socket: Socket; closed: Promise<boolean> }>((resolve) => {
            const socket = connect(s.port, "127.0.0.1");
            socket.on("error", () => {});
            const closed = new Promise<boolean>((done) => socket.on("close", () => done(true)));
            socket.on("connect", () => resolve({ socket, closed }));
          }),
      ),
    );
    // The server closes what it cannot take at once; the first eight stay open until their timeout, and
    // two more (one address's share of the /healthz reserve, see connections.int.test.ts) for a probe.
    const refused = await Promise.all(
      sockets.map(({ closed }) =>
        Promise.race([closed, new Promise((r) => setTimeout(() => r(false), 500))]),
      ),
    );
    expect(refused.filter((x) => x === true)).toHaveLength(10);
    for (const { socket } of sockets) socket.destroy();
    await new Promise((r) => setTimeout(r, 200));
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
  });
});

describe("cross-map calls over their time or memory limit", () => {
  const CROSSMAP =
    "source: s\ntarget: t\nentity_map: {e: T}\nfield_map:\n  e.g: {target: T.g, transform: big}\ntransforms:\n  big:\n    type: value_map\n    mapping:\n      '1': {" +
    Array.from({ length: 2000 }, (_, i) => `k${i}: ${i}`).join(", ") +
    "}\n";
  const body = (n: number) =>
    JSON.stringify({
      source_standard: "s",
      target_standard: "t",
      source_entity: "e",
      crossmap: CROSSMAP,
      records: Array.from({ length: n }, () => ({ g: 1 })),
    });
  const post = (s: Server, path: string, text: string) =>
    fetch(`${s.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
      body: text,
    });

  it("past the deadline: 422 naming the limit; the worker is replaced and the next call is answered", async () => {
    const s = await start({}, { timeoutMs: 1, job: { maxRecords: 10_000 } });
    try {
      const r = await post(s, "/api/v1/cross-mapping/map", body(10_000));
      expect(r.status).toBe(422);
      const message =
        "mapping took longer than the limit of 0.001 s (crossmap serve --map-timeout); send fewer records or a simpler crossmap";
      expect(await r.json()).toEqual({
        detail: [{ loc: ["body"], msg: message, type: "value_error.time_limit" }],
      });
      expect(s.logs.filter((l) => l.level === "error")).toEqual([]);
    } finally {
      await s.stop();
    }
    const t = await start({}, { timeoutMs: 60_000, job: { maxRecords: 10_000 } });
    try {
      expect((await post(t, "/api/v1/cross-mapping/map", body(2))).status).toBe(200);
    } finally {
      await t.stop();
    }
  });

  it("over the memory cap: 422 naming it, and a project run is recorded failed with why", async () => {
    const s = await start({}, { memoryMb: 64, job: { maxRecords: 10_000 } });
    try {
      // Every record gets its own copy of a 2,000-key object: ~10,000 x 2,000 values, far over 64 MB.
      const r = await post(s, `/api/v1/cross-mapping/projects/${s.projectId}/map`, body(10_000));
      expect(r.status).toBe(422);
      const runs = s.stores.runs.list(s.projectId, { limit: 10, offset: 0 }).runs;
      expect(runs).toHaveLength(1);
      const run = runs[0] as { id: string; status: string; error?: string; record_count: number };
      const message =
        "mapping needed more memory than the limit of 64 MB (crossmap serve --map-memory); send fewer records";
      expect(await r.json()).toEqual({
        detail: [
          {
            loc: ["body"],
            msg: `${message}; run ${run.id} recorded as failed`,
            type: "value_error.memory_limit",
          },
        ],
      });
      expect(run).toMatchObject({
        status: "failed",
        error: message,
        record_count: 10_000,
        target_entity: "T",
      });
      // The replacement worker answers the next call.
      const ok = await post(s, `/api/v1/cross-mapping/projects/${s.projectId}/map`, body(3));
      expect(ok.status).toBe(200);
      expect(s.logs.filter((l) => l.level === "error")).toEqual([]);
    } finally {
      await s.stop();
    }
  });
});
