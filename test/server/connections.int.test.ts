// Issue 27, finding 8 and the small ones of 9: one client cannot take every socket (a cap per remote
// address), a probe of /healthz still gets through while the caps are full (a reserve), and OPTIONS and
// CONNECT get the API's JSON error; every answer says nosniff. Loopback addresses 127.0.0.x stand for
// distinct clients.
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/server/app.js";
import { listen, type RunningServer } from "../../src/server/listen.js";
import { openStores, type Stores } from "../../src/store/env.js";

let dir: string;
let stores: Stores;
let running: RunningServer;
let admin: string;
const held: Socket[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "crossmap-conn-"));
  stores = openStores(dir);
  admin = (await stores.write(() => stores.keys.create("admin", null))).secret;
  running = await listen(createApp({ stores }), 0, "127.0.0.1", {
    maxConnections: 20,
    maxConnectionsPerAddress: 5,
    healthReserve: 4,
    // Idle sockets stay for the whole file (no timeout closes them meanwhile).
    headersTimeoutMs: 60_000,
    requestTimeoutMs: 60_000,
  });
});
afterAll(async () => {
  for (const s of held) s.destroy();
  await running.close(100);
  await stores.close();
  rmSync(dir, { recursive: true, force: true });
});

const until = async (done: () => boolean) => {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
};

/** Opens `n` idle sockets from `from`; resolves once the server has admitted or refused every one. */
async function open(from: string, n: number): Promise<void> {
  // (On a server without the admission's counts, this waits its full 5 s.)
  const seen = () =>
    running.admission
      ? running.admission.open.normal + running.admission.open.reserve + running.admission.refused
      : Number.NaN;
  const before = seen();
  for (let i = 0; i < n; i++) {
    const s = connect({ port: running.port, host: "127.0.0.1", localAddress: from });
    s.on("error", () => {});
    held.push(s);
  }
  await until(() => seen() - before >= n);
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request on a connection of its own from `from`; -1 when the connection is closed unanswered. */
function ask(from: string, method: string, path: string, key?: string): Promise<Answer> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: running.port,
        localAddress: from,
        method,
        path,
        agent: false,
        headers: key ? { authorization: `Bearer ${key}` } : {},
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", () => resolve({ status: -1, headers: {}, body: "" }));
    req.end();
  });
}

describe("connection limits", () => {
  it("caps the sockets of one address, keeps two more of its own for /healthz, and serves other clients", async () => {
    await open("127.0.0.2", 30);
    // Another client's new connections are all served (issue 27: one client's ~1,100 sockets made 93-96%
    // of the others' fail; here, before the cap per address, its 20 sockets refused every one).
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++)
      statuses.push((await ask("127.0.0.1", "GET", "/api/v1/projects", admin)).status);
    expect(statuses).toEqual(Array(10).fill(200));
    expect(running.admission.open).toEqual({ normal: 5, reserve: 2 });
    expect(running.admission.refused).toBe(23);
  });

  it("keeps a reserve past the global cap that answers /healthz and nothing else", async () => {
    for (const from of ["127.0.0.3", "127.0.0.4", "127.0.0.5"]) await open(from, 5);
    // Issue 27: with the cap full (19,000 idle sockets), 20% of /healthz probes failed.
    const probe = await ask("127.0.0.6", "GET", "/healthz");
    expect([probe.status, probe.body, probe.headers.connection]).toEqual([200, '{"status":"ok"}', "close"]);
    expect(running.admission.open).toEqual({ normal: 20, reserve: 2 });
    const other = await ask("127.0.0.6", "GET", "/api/v1/projects", admin);
    expect([other.status, JSON.parse(other.body), other.headers.connection]).toEqual([
      503,
      { detail: "Too many connections from this address or in all; only /healthz is answered on this one" },
      "close",
    ]);
    expect(other.headers["retry-after"]).toBe("1");
    expect(other.headers["x-content-type-options"]).toBe("nosniff");
    for (const s of held.splice(0)) s.destroy();
    await until(() => running.admission.open.normal === 0);
    expect((await ask("127.0.0.6", "GET", "/api/v1/projects", admin)).status).toBe(200);
  });
});

describe("methods the API does not serve", () => {
  it("answers OPTIONS with a JSON 405 naming the allowed methods, and an unknown path with a JSON 404", async () => {
    const r = await ask("127.0.0.1", "OPTIONS", "/api/v1/projects");
    expect([r.status, r.body, r.headers["content-type"], r.headers.allow]).toEqual([
      405,
      '{"detail":"Method Not Allowed"}',
      "application/json; charset=utf-8",
      "POST, HEAD, GET",
    ]);
    expect(r.headers["x-content-type-options"]).toBe("nosniff");
    const none = await ask("127.0.0.1", "OPTIONS", "/nowhere");
    expect([none.status, none.body]).toEqual([404, '{"detail":"Not Found"}']);
  });

  it("answers CONNECT with a JSON 405 and closes the connection", async () => {
    const reply = await new Promise<string>((resolve) => {
      const s = connect(running.port, "127.0.0.1");
      let text = "";
      s.setEncoding("utf8");
      s.on("data", (d: string) => (text += d));
      s.on("close", () => resolve(text));
      s.write("CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n");
    });
    expect(reply).toBe(
      'HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nContent-Length: 31\r\nConnection: close\r\n\r\n{"detail":"Method Not Allowed"}',
    );
  });

  it("says nosniff on every answer: JSON, errors and Node's own 400", async () => {
    expect((await ask("127.0.0.1", "GET", "/healthz")).headers["x-content-type-options"]).toBe("nosniff");
    expect((await ask("127.0.0.1", "GET", "/api/v1/projects")).headers["x-content-type-options"]).toBe(
      "nosniff",
    );
    const bad = await new Promise<string>((resolve) => {
      const s = connect(running.port, "127.0.0.1");
      let text = "";
      s.setEncoding("utf8");
      s.on("data", (d: string) => (text += d));
      s.on("close", () => resolve(text));
      s.write("GET / HTTP/1.1\r\nHost x\r\n\r\n");
    });
    expect(bad.split("\r\n").slice(0, 3)).toEqual([
      "HTTP/1.1 400 Bad Request",
      "Content-Type: application/json; charset=utf-8",
      "X-Content-Type-Options: nosniff",
    ]);
  });
});
