// Response headers exactly as they go on the wire, in order: the route layer writes JSON itself, and
// must send what Koa sends for an object body (type, ETag, length), for successes and errors alike,
// then nosniff, which every answer carries.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, itemPath, seedSchema, startHarness } from "./harness.js";

let h: Harness;
let sm: string;
beforeAll(async () => {
  h = await startHarness();
  [sm] = (await seedSchema(h, [
    { id: "sm_hdr", source_table: "t", source_column: "c", target_table: "person", target_column: "x" },
  ])) as [string];
});
afterAll(() => h.stop());

interface Raw {
  status: number;
  /** Header name/value pairs as sent, minus Date, Connection and Keep-Alive (Node's, not ours). */
  headers: [string, string][];
  body: string;
}

function raw(method: string, path: string, key: string | null, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (key !== null) headers.authorization = `Bearer ${key}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const req = request(`${h.url}${path}`, { method, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => {
        const pairs: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i]!;
          if (!["date", "connection", "keep-alive"].includes(name.toLowerCase())) {
            pairs.push([name, res.rawHeaders[i + 1]!]);
          }
        }
        resolve({ status: res.statusCode ?? 0, headers: pairs, body: text });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

const length = (body: string) => String(Buffer.byteLength(body));

describe("headers on the wire", () => {
  it("a review answer: Content-Type, ETag, Content-Length, nosniff, in that order", async () => {
    const r = await raw("POST", `${itemPath(h, "schema", sm)}/approve`, h.admin);
    expect(r.status).toBe(200);
    expect(r.headers).toEqual([
      ["Content-Type", "application/json; charset=utf-8"],
      ["ETag", '"2"'],
      ["Content-Length", length(r.body)],
      ["X-Content-Type-Options", "nosniff"],
    ]);
    expect(JSON.parse(r.body)).toMatchObject({ id: "sm_hdr", status: "approved", version: 2 });
  });

  it("an override with a body, and a list without an ETag", async () => {
    const o = await raw(
      "POST",
      `${itemPath(h, "schema", sm)}/override`,
      h.admin,
      JSON.stringify({ target_table: "observation", target_column: "value_as_string" }),
    );
    expect(o.headers).toEqual([
      ["Content-Type", "application/json; charset=utf-8"],
      ["ETag", '"3"'],
      ["Content-Length", length(o.body)],
      ["X-Content-Type-Options", "nosniff"],
    ]);
    const list = await raw("GET", `/v1/projects/${h.projectId}/schema-mapping`, h.admin);
    expect(list.headers).toEqual([
      ["Content-Type", "application/json; charset=utf-8"],
      ["Content-Length", length(list.body)],
      ["X-Content-Type-Options", "nosniff"],
    ]);
  });

  it("a 201 and the errors keep the same headers", async () => {
    const created = await raw("POST", "/api/v1/projects", h.admin, JSON.stringify({ name: "hdr" }));
    expect(created.status).toBe(201);
    expect(created.headers).toEqual([
      ["Content-Type", "application/json; charset=utf-8"],
      ["Content-Length", length(created.body)],
      ["X-Content-Type-Options", "nosniff"],
    ]);
    const unauthorized = await raw("POST", `${itemPath(h, "schema", sm)}/approve`, null);
    expect(unauthorized).toEqual({
      status: 401,
      headers: [
        ["Content-Type", "application/json; charset=utf-8"],
        ["WWW-Authenticate", "Bearer"],
        // An error body is an object: Koa sets its length when it sends it, after the last middleware.
        ["X-Content-Type-Options", "nosniff"],
        ["Content-Length", "30"],
      ],
      body: '{"detail":"Not authenticated"}',
    });
    const missing = await raw("POST", `${itemPath(h, "schema", "nope")}/approve`, h.admin);
    expect(missing.status).toBe(404);
    expect(missing.headers).toEqual([
      ["Content-Type", "application/json; charset=utf-8"],
      ["X-Content-Type-Options", "nosniff"],
      ["Content-Length", length(missing.body)],
    ]);
  });
});
