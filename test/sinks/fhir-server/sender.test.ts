import { afterEach, describe, expect, it } from "vitest";
import type { Outgoing } from "../../../src/sinks/fhir-server/bundles.js";
import { FhirClient } from "../../../src/sinks/fhir-server/client.js";
import { merged as merge } from "../../../src/sinks/fhir-server/merge.js";
import { Sender } from "../../../src/sinks/fhir-server/sender.js";
import { oo, type Scripted, type ScriptedServer, scriptedServer } from "./scripted-server.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function sender(url: string, retries = 2, authorization?: string): Sender {
  return new Sender(
    new FhirClient({
      base: url,
      ...(authorization ? { authorization } : {}),
      authorizationSource: "CROSSMAP_FHIR_AUTHORIZATION",
      timeoutMs: 5000,
      retries,
      backoffMs: 1,
      maxBackoffMs: 1,
      maxRetryAfterMs: 1,
      sleep: async () => {},
    }),
  );
}

const batch = (ids: string[]): Outgoing<string> => ({
  type: "batch",
  entries: ids.map(
    (id) =>
      `{"resource":{"resourceType":"Patient","id":"${id}"},"request":{"method":"PUT","url":"Patient/${id}"}}`,
  ),
  requests: ids.map((id) => `PUT Patient/${id}`),
  origins: ids.map((id) => `record ${id}`),
  keys: ids.map((id) => `Patient/${id}`),
});

const response = (...statuses: (string | [string, unknown])[]) => ({
  resourceType: "Bundle",
  type: "batch-response",
  entry: statuses.map((s) =>
    typeof s === "string" ? { response: { status: s } } : { response: { status: s[0], outcome: s[1] } },
  ),
});

const sentIds = (body: string) =>
  (JSON.parse(body).entry as { resource: { id: string } }[]).map((e) => e.resource.id);

describe("Sender, batch Bundles", () => {
  it("counts accepted entries, makes each refused one a rejection of its record, and sends again only what was busy", async () => {
    const script: Scripted[] = [
      {
        status: 200,
        body: response("201 Created", ["400 Bad Request", oo("invalid", "bad gender")], "503", "200 OK"),
      },
      { status: 200, body: response("200 OK") },
    ];
    server = await scriptedServer((n) => script[n] as Scripted);
    const d = await sender(server.url).deliver(batch(["a", "b", "c", "d"]));
    expect(d).toEqual({
      accepted: 3,
      rejected: [
        {
          origin: "record b",
          request: "PUT Patient/b",
          status: 400,
          code: "fhir_rejected",
          message: "400 Bad Request: invalid: bad gender",
          resources: 1,
        },
      ],
    });
    expect(server.requests.map((r) => sentIds(r.body))).toEqual([["a", "b", "c", "d"], ["c"]]);
  });

  it("gives up on an entry that stays busy past the retries, as a rejection of its record", async () => {
    server = await scriptedServer((n) => ({
      status: 200,
      body:
        n === 0
          ? response("200", ["429", oo("throttled", "slow down")])
          : response(["429", oo("throttled", "slow down")]),
    }));
    const d = await sender(server.url, 1).deliver(batch(["a", "b"]));
    expect(d.accepted).toBe(1);
    expect(d.rejected).toEqual([
      {
        origin: "record b",
        request: "PUT Patient/b",
        status: 429,
        code: "fhir_gave_up",
        message: "still 429 after 2 tries: throttled: slow down",
        resources: 1,
      },
    ]);
  });

  it("makes every entry of a batch the server refuses whole a rejection, with a hint for 413", async () => {
    server = await scriptedServer(() => ({ status: 413, body: oo("too-costly", "request too large") }));
    const d = await sender(server.url).deliver(batch(["a", "b"]));
    expect(d.accepted).toBe(0);
    expect(d.rejected.map((r) => [r.origin, r.message])).toEqual([
      [
        "record a",
        "413: too-costly: request too large; the Bundle of 2 entries is too large for the server (lower --fhir-batch-size)",
      ],
      [
        "record b",
        "413: too-costly: request too large; the Bundle of 2 entries is too large for the server (lower --fhir-batch-size)",
      ],
    ]);
  });

  it("never takes an entry the batch-response leaves out for accepted", async () => {
    server = await scriptedServer(() => ({ status: 200, body: response("200") }));
    const d = await sender(server.url).deliver(batch(["a", "b"]));
    expect(d.accepted).toBe(1);
    expect(d.rejected.map((r) => [r.origin, r.status, r.message])).toEqual([
      ["record b", 0, "the batch-response has no entry 1 for it"],
    ]);
  });
});

describe("Sender, transaction Bundles", () => {
  const transaction: Outgoing<string> = {
    ...batch(["a", "b", "c"]),
    type: "transaction",
    origins: ["msg 1", "msg 1", "msg 1"],
  };

  it("accepts all entries of a transaction the server took", async () => {
    server = await scriptedServer(() => ({
      status: 200,
      body: { resourceType: "Bundle", type: "transaction-response" },
    }));
    expect(await sender(server.url).deliver(transaction)).toEqual({ accepted: 3, rejected: [] });
  });

  it("makes a refused transaction one rejection of its message, standing for all its entries", async () => {
    server = await scriptedServer(() => ({
      status: 400,
      body: oo("invalid", "Duplicate resource identity", ["Bundle.entry[2]"]),
    }));
    expect(await sender(server.url).deliver(transaction)).toEqual({
      accepted: 0,
      rejected: [
        {
          origin: "msg 1",
          request: "transaction of 3 entries",
          status: 400,
          code: "fhir_rejected",
          message: "400: invalid: Duplicate resource identity (Bundle.entry[2])",
          resources: 3,
        },
      ],
    });
  });

  it("sends the messages of a refused merged transaction again one each: the good land, the bad is named", async () => {
    const part = (msg: string, ids: string[]): Outgoing<string> => ({
      ...batch(ids),
      type: "transaction",
      id: msg,
      origins: ids.map(() => msg),
    });
    const parts = [part("msg 1", ["a", "b"]), part("msg 2", ["bad"]), part("msg 3", ["c"])];
    const merged = merge(parts);
    server = await scriptedServer((_n, body) =>
      body.includes('"bad"')
        ? { status: 400, body: oo("invalid", "Invalid date format", ["Patient.birthDate"]) }
        : { status: 200, body: { resourceType: "Bundle", type: "transaction-response" } },
    );
    expect(await sender(server.url).deliver(merged)).toEqual({
      accepted: 3,
      resent: 3,
      rejected: [
        {
          origin: "msg 2",
          request: "transaction of 1 entry",
          status: 400,
          code: "fhir_rejected",
          message: "400: invalid: Invalid date format (Patient.birthDate)",
          resources: 1,
        },
      ],
    });
    // The merged one first (no Bundle id: it is no message's), then each message's own, as it was.
    expect(server.requests.map((r) => JSON.parse(r.body).id ?? sentIds(r.body).join(","))).toEqual([
      "a,b,bad,c",
      "msg 1",
      "msg 2",
      "msg 3",
    ]);
  });

  it("stops everything on 401 and 403, naming the variable the header came from", async () => {
    server = await scriptedServer(() => ({ status: 403, body: oo("forbidden", "no write scope") }));
    await expect(sender(server.url, 2, "Bearer x").deliver(transaction)).rejects.toMatchObject({
      status: 403,
      message: `the FHIR server at ${server.url} answered 403 (forbidden: no write scope): the Authorization header from CROSSMAP_FHIR_AUTHORIZATION was refused`,
    });
    await expect(sender(server.url).deliver(transaction)).rejects.toThrow(
      "answered 403 (forbidden: no write scope): no Authorization header was sent (set CROSSMAP_FHIR_AUTHORIZATION)",
    );
  });
});
