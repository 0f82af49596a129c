import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  type ClientOptions,
  FhirClient,
  outcomeText,
  retryAfterMs,
} from "../../../src/sinks/fhir-server/client.js";
import { oo, type Scripted, type ScriptedServer, scriptedServer } from "./scripted-server.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A client whose waits are recorded instead of slept. */
function client(url: string, options: Partial<ClientOptions> = {}) {
  const waits: number[] = [];
  const whys: string[] = [];
  const c = new FhirClient({
    base: url,
    timeoutMs: 5000,
    retries: 3,
    backoffMs: 100,
    maxBackoffMs: 1000,
    maxRetryAfterMs: 5000,
    sleep: async (ms) => {
      waits.push(ms);
    },
    onRetry: (why) => whys.push(why),
    ...options,
  });
  return { c, waits, whys };
}

describe("retryAfterMs", () => {
  it("reads delay-seconds and HTTP dates, and nothing else", () => {
    expect(retryAfterMs("7")).toBe(7000);
    expect(retryAfterMs("0")).toBe(0);
    const now = Date.parse("Fri, 27 Nov 2026 10:00:00 GMT");
    expect(retryAfterMs("Fri, 27 Nov 2026 10:00:30 GMT", now)).toBe(30_000);
    expect(retryAfterMs("Fri, 27 Nov 2026 09:00:00 GMT", now)).toBe(0);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs("soon")).toBeUndefined();
  });
});

describe("outcomeText", () => {
  it("gives the error issues of an OperationOutcome, with where they are", () => {
    expect(
      outcomeText({
        resourceType: "OperationOutcome",
        issue: [
          { severity: "warning", code: "informational", diagnostics: "fine" },
          {
            severity: "error",
            code: "structure",
            details: { text: "Invalid date" },
            expression: ["Patient.birthDate"],
          },
          { severity: "fatal", code: "exception", diagnostics: "boom" },
        ],
      }),
    ).toBe("structure: Invalid date (Patient.birthDate); exception: boom");
    expect(outcomeText({ resourceType: "Patient" })).toBe("");
    expect(outcomeText(undefined)).toBe("");
  });
});

describe("FhirClient.postBundle", () => {
  it("posts to the base URL with FHIR JSON headers and the Authorization value", async () => {
    server = await scriptedServer(() => ({ status: 200, body: { resourceType: "Bundle" } }));
    const { c } = client(server.url, { authorization: "Bearer abc" });
    const a = await c.postBundle('{"resourceType":"Bundle"}');
    expect(a).toEqual({ status: 200, body: { resourceType: "Bundle" }, text: '{"resourceType":"Bundle"}' });
    expect(server.requests[0]?.headers).toMatchObject({
      "content-type": "application/fhir+json",
      accept: "application/fhir+json",
      prefer: "return=minimal",
      authorization: "Bearer abc",
    });
    expect(server.requests[0]?.body).toBe('{"resourceType":"Bundle"}');
  });

  it("tries again on 429 and 5xx, waiting as Retry-After says (capped) or with backoff", async () => {
    const script: Scripted[] = [
      { status: 429, headers: { "retry-after": "2" } },
      { status: 503, headers: { "retry-after": "3600" }, body: oo("transient", "overloaded") },
      { status: 502 },
      { status: 200, body: { resourceType: "Bundle", type: "batch-response" } },
    ];
    server = await scriptedServer((n) => script[n] as Scripted);
    const { c, waits, whys } = client(server.url);
    const a = await c.postBundle("{}");
    expect(a.status).toBe(200);
    expect(server.requests.length).toBe(4);
    expect(waits.slice(0, 2)).toEqual([2000, 5000]);
    // Backoff on the third try: between half and all of 100 ms * 2^2.
    expect(waits[2]).toBeGreaterThanOrEqual(200);
    expect(waits[2]).toBeLessThanOrEqual(400);
    expect(whys).toEqual([
      "429 Too Many Requests",
      "503 Service Unavailable: transient: overloaded",
      "502 Bad Gateway",
    ]);
  });

  it("hands back a 4xx answer at once: the sender decides what it means", async () => {
    server = await scriptedServer(() => ({ status: 400, body: oo("invalid", "bad") }));
    const { c, waits } = client(server.url);
    const a = await c.postBundle("{}");
    expect(a.status).toBe(400);
    expect(waits).toEqual([]);
  });

  it("gives up after the retries, naming the server and the last answer", async () => {
    server = await scriptedServer(() => ({ status: 503, body: oo("transient", "down for maintenance") }));
    const { c, waits } = client(server.url, { retries: 2 });
    await expect(c.postBundle("{}")).rejects.toMatchObject({
      status: 503,
      code: "fhir_server_unavailable",
      message: `the FHIR server at ${server.url} did not accept a Bundle after 3 tries (last: 503 Service Unavailable: transient: down for maintenance)`,
    });
    expect(waits.length).toBe(2);
  });

  it("stops at once when the server has never answered and the connection fails (no backoff)", async () => {
    // A port that was just free: nothing listens there now.
    const closed = await scriptedServer(() => ({ status: 200 }));
    await closed.close();
    const { c, waits } = client(closed.url, { retries: 8 });
    await expect(c.postBundle("{}")).rejects.toMatchObject({
      status: 503,
      code: "fhir_server_unreachable",
      message: `the FHIR server at ${closed.url} cannot be reached (connect ECONNREFUSED ${new URL(closed.url).host}): is the URL right and the server up?`,
    });
    expect(waits).toEqual([]);
  });

  it("stops after one --fhir-timeout when the server has never answered and does not answer", async () => {
    // Accepts connections and reads requests, never answers.
    const silent = createServer(() => {});
    silent.listen(0, "127.0.0.1");
    await once(silent, "listening");
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/fhir`;
    try {
      const { c, waits } = client(url, { retries: 8, timeoutMs: 200 });
      await expect(c.postBundle("{}")).rejects.toThrow(
        `the FHIR server at ${url} cannot be reached (no answer within 0.2 s (--fhir-timeout)): is the URL right and the server up?`,
      );
      expect(waits).toEqual([]);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it("tries again when the first request's connection is reset (a pooled connection the server just closed)", async () => {
    let n = 0;
    const resetting = createServer((req, res) => {
      if (n++ === 0) {
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { "content-type": "application/fhir+json" });
      res.end('{"resourceType":"Bundle"}');
    });
    resetting.listen(0, "127.0.0.1");
    await once(resetting, "listening");
    const url = `http://127.0.0.1:${(resetting.address() as AddressInfo).port}/fhir`;
    try {
      const { c, waits, whys } = client(url, { retries: 2 });
      expect((await c.postBundle("{}")).status).toBe(200);
      expect(waits.length).toBe(1);
      expect(whys).toEqual(["socket hang up"]);
    } finally {
      resetting.closeAllConnections();
      resetting.close();
    }
  });

  it("tries again when the connection fails after the server has answered, and says so when it keeps failing", async () => {
    const gone = await scriptedServer(() => ({ status: 200 }));
    const { c, waits } = client(gone.url, { retries: 1 });
    expect((await c.postBundle("{}")).status).toBe(200);
    await gone.close();
    await expect(c.postBundle("{}")).rejects.toMatchObject({
      code: "fhir_server_unavailable",
      message: `the FHIR server at ${gone.url} did not accept a Bundle after 2 tries (last: connect ECONNREFUSED ${new URL(gone.url).host})`,
    });
    expect(waits.length).toBe(1);
  });
});
