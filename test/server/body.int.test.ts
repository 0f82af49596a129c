// Reading JSON bodies at the edges: the quick reader for plain JSON with a Content-Length and the body
// parser's path for everything else must answer the same bodies with the same results and errors.
import { connect } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, itemPath, seedSchema, startHarness } from "./harness.js";

let h: Harness;
let path: string;
beforeAll(async () => {
  h = await startHarness({ bodyLimitBytes: 200 });
  const [id] = await seedSchema(h, [
    { id: "sm_body", source_table: "t", source_column: "c", target_table: "person", target_column: "x" },
  ]);
  path = `${itemPath(h, "schema", id!)}/override`;
});
afterAll(() => h.stop());

const good = '{"target_table":"observation","target_column":"value"}';
const invalidJson = (loc: (string | number)[]) => ({
  detail: [{ loc, msg: "Invalid JSON", type: "value_error.jsondecode" }],
});

/** Sends raw bytes on a fresh connection and returns the status line's code and the body. */
function rawRequest(head: string, body: Buffer | string): Promise<{ status: number; body: string }> {
  const url = new URL(h.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      // Not half-closed: the server answers, then closes (Connection: close).
      socket.write(head);
      socket.write(body);
    });
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (d) => (text += d));
    socket.on("error", reject);
    socket.on("close", () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf("\r\n\r\n") + 4) });
    });
  });
}

const head = (headers: Record<string, string>) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.admin}\r\nConnection: close\r\n${Object.entries(
    headers,
  )
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("")}\r\n`;

describe("JSON bodies", () => {
  for (const type of [
    "application/json",
    "application/json; charset=utf-8",
    "application/json;charset=UTF-8",
    "application/vnd.api+json",
  ]) {
    it(`are read with Content-Type ${type}`, async () => {
      const r = await h.request("POST", path, { body: good, headers: { "content-type": type } });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ target_table: "observation", target_column: "value" });
    });
  }

  it("a leading byte order mark is dropped", async () => {
    const r = await h.request("POST", path, { body: `\uFEFF${good}` });
    expect(r.status).toBe(200);
  });

  it("a body that is only a byte order mark is an empty string, not an object", async () => {
    const r = await h.request("POST", path, { body: "\uFEFF" });
    expect(r.json).toEqual({
      detail: [{ loc: ["body"], msg: "value is not a valid dict", type: "type_error.dict" }],
    });
  });

  it("a __proto__ key anywhere is refused as invalid JSON, also when escaped", async () => {
    for (const body of [
      '{"target_table":"a","target_column":"b","__proto__":{"x":1}}',
      '{"target_table":"a","target_column":"b","n":[{"\\u005f_proto__" :1}]}',
    ]) {
      const r = await h.request("POST", path, { body });
      expect(r.status).toBe(422);
      expect(r.json).toEqual(invalidJson(["body"]));
    }
    // Mentioning the word in a value is fine.
    const ok = await h.request("POST", path, {
      body: '{"target_table":"__proto__","target_column":"b"}',
    });
    expect(ok.status).toBe(200);
  });

  it("a declared length over the limit is 413 before reading", async () => {
    const r = await rawRequest(head({ "Content-Type": "application/json", "Content-Length": "201" }), "");
    expect(r.status).toBe(413);
    expect(r.body).toBe('{"detail":"Request body is larger than the limit of 200 bytes"}');
  });

  it("a body at the limit is read", async () => {
    const body = JSON.stringify({ target_table: "t", target_column: "c", pad: "x".repeat(151) });
    expect(Buffer.byteLength(body)).toBe(200);
    const r = await h.request("POST", path, { body });
    expect(r.status).toBe(200);
  });

  it("gzip bodies still go through the body parser", async () => {
    const zipped = gzipSync(good);
    const r = await rawRequest(
      head({
        "Content-Type": "application/json",
        "Content-Encoding": "gzip",
        "Content-Length": String(zipped.length),
      }),
      zipped,
    );
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ target_table: "observation" });
  });

  it("UTF-8 split across packets is decoded whole", async () => {
    const body = Buffer.from('{"target_table":"Beobachtung über","target_column":"wert"}');
    const url = new URL(h.url);
    const r = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(head({ "Content-Type": "application/json", "Content-Length": String(body.length) }));
        const cut = body.indexOf("ü") + 1;
        socket.write(body.subarray(0, cut));
        setTimeout(() => socket.write(body.subarray(cut)), 20);
      });
      let text = "";
      socket.setEncoding("utf8");
      socket.on("data", (d) => (text += d));
      socket.on("error", reject);
      socket.on("close", () => resolve(text.slice(text.indexOf("\r\n\r\n") + 4)));
    });
    expect(JSON.parse(r)).toMatchObject({ target_table: "Beobachtung über" });
  });
});
