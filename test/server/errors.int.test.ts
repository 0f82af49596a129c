// The spec's error table, row by row, with exact status codes, bodies and headers; never a 500 for bad input.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, itemPath, seedConcept, seedSchema, startHarness } from "./harness.js";

let h: Harness;
let sm: string;
let cm: string;
beforeAll(async () => {
  h = await startHarness({ bodyLimitBytes: 1024 });
  [sm] = (await seedSchema(h, [
    { id: "sm_abc123", source_column: "sex", target_table: "person", target_column: "x" },
  ])) as [string];
  [cm] = (await seedConcept(h, [{ id: "cm_abc123", source_code: "M", target_concept_id: 8507 }])) as [string];
});
afterAll(async () => {
  // No request in this file may have reached the catch-all 500.
  expect(h.logs.filter((l) => l.status === 500 || l.level === "error")).toEqual([]);
  await h.stop();
});

const ENDPOINTS = [
  ["schema", "approve"],
  ["schema", "reject"],
  ["schema", "override"],
  ["concept", "approve"],
  ["concept", "reject"],
  ["concept", "override"],
] as const;
const validBody = (kind: string) =>
  kind === "schema" ? { target_table: "person", target_column: "y" } : { target_concept_id: 8532 };
const idOf = (kind: string) => (kind === "schema" ? sm : cm);

describe("401: invalid or missing API key, on every review endpoint", () => {
  for (const [kind, action] of ENDPOINTS) {
    it(`${kind} ${action}: missing, malformed, unknown`, async () => {
      const path = `${itemPath(h, kind, idOf(kind))}/${action}`;
      const body = validBody(kind);
      const missing = await h.request("POST", path, { key: null, body });
      expect(missing.status).toBe(401);
      expect(missing.text).toBe('{"detail":"Not authenticated"}');
      expect(missing.headers.get("www-authenticate")).toBe("Bearer");

      const malformed = await h.request("POST", path, {
        key: null,
        body,
        headers: { authorization: "Basic eDp5" },
      });
      expect(malformed.status).toBe(401);
      expect(malformed.json).toEqual({ detail: "Invalid authentication credentials" });
      expect(malformed.headers.get("www-authenticate")).toBe("Bearer");

      const unknown = await h.request("POST", path, { key: "cmk_not_a_key", body });
      expect(unknown.status).toBe(401);
      expect(unknown.json).toEqual({ detail: "Invalid or revoked API key" });
      expect(unknown.headers.get("www-authenticate")).toBe("Bearer");
    });
  }

  it("a revoked key stops working at once", async () => {
    const key = await h.key("write");
    const path = `${itemPath(h, "schema", sm)}/override`;
    expect((await h.request("POST", path, { key, body: validBody("schema") })).status).toBe(200);
    const id = h.keyId(key);
    await h.stores.write(() => h.stores.keys.revoke(id));
    const r = await h.request("POST", path, { key, body: validBody("schema") });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ detail: "Invalid or revoked API key" });
  });

  it("auth is checked before the body: a bad body without a key is still 401", async () => {
    const r = await h.request("POST", `${itemPath(h, "schema", sm)}/override`, { key: null, body: "{oops" });
    expect(r.status).toBe(401);
  });
});

describe("403: key without write access to the project", () => {
  it("a read-only key cannot review", async () => {
    const key = await h.key("read");
    const id = h.keyId(key);
    for (const [kind, action] of ENDPOINTS) {
      const r = await h.request("POST", `${itemPath(h, kind, idOf(kind))}/${action}`, {
        key,
        body: validBody(kind),
      });
      expect(r.status).toBe(403);
      expect(r.json).toEqual({ detail: `API key ${id} has read-only access to project ${h.projectId}` });
    }
    // ... but it may read.
    expect((await h.request("GET", itemPath(h, "schema", sm), { key })).status).toBe(200);
  });

  it("a key of another project gets 403, for existing and unknown project ids alike", async () => {
    const other = await h.stores.write(() => h.stores.projects.create({ name: "other" }));
    const key = await h.key("write", other.id);
    const id = h.keyId(key);
    const r = await h.request("POST", `${itemPath(h, "schema", sm)}/approve`, { key });
    expect(r.status).toBe(403);
    expect(r.json).toEqual({ detail: `API key ${id} has no access to project ${h.projectId}` });
    const ghost = await h.request("POST", `${itemPath(h, "schema", sm, "proj_123")}/approve`, { key });
    expect(ghost.status).toBe(403);
    expect(ghost.json).toEqual({ detail: `API key ${id} has no access to project proj_123` });
  });
});

describe("404: project or mapping item does not exist", () => {
  it("names the kind, the item id and the project id", async () => {
    for (const [kind, action] of ENDPOINTS) {
      const r = await h.request("POST", `${itemPath(h, kind, "sm_nope")}/${action}`, {
        body: validBody(kind),
      });
      expect(r.status).toBe(404);
      const label = kind === "schema" ? "Schema mapping" : "Concept mapping";
      expect(r.json).toEqual({ detail: `${label} sm_nope not found in project ${h.projectId}` });
    }
  });

  it("an unknown project is 404 for an admin key", async () => {
    const r = await h.request("POST", `${itemPath(h, "schema", "sm_abc123", "proj_123")}/approve`);
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ detail: "Project proj_123 not found" });
  });

  it("the item must belong to the project in the path", async () => {
    const other = await h.stores.write(() => h.stores.projects.create({ name: "other2" }));
    const r = await h.request("POST", `${itemPath(h, "schema", sm, other.id)}/approve`);
    expect(r.json).toEqual({ detail: `Schema mapping sm_abc123 not found in project ${other.id}` });
  });

  it("ids no item can have (too long for a store key, control characters) are plain 404s", async () => {
    const long = "x".repeat(3000);
    const r = await h.request("POST", `${itemPath(h, "schema", long)}/approve`);
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ detail: `Schema mapping ${long} not found in project ${h.projectId}` });
    expect((await h.request("POST", `/v1/projects/${long}/schema-mapping/a/approve`)).status).toBe(404);
    const ctl = await h.request("GET", `${itemPath(h, "concept", "a%1Fb")}/history`);
    expect(ctl.json).toEqual({ detail: `Concept mapping a\u001fb not found in project ${h.projectId}` });
  });

  it("unknown routes and methods answer in the same shape", async () => {
    const r = await h.request("GET", "/v2/nothing");
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ detail: "Not Found" });
    const m = await h.request("DELETE", `${itemPath(h, "schema", sm)}/approve`);
    expect(m.status).toBe(405);
    expect(m.json).toEqual({ detail: "Method Not Allowed" });
  });
});

describe("422: invalid request body", () => {
  const override = (kind: "schema" | "concept") => `${itemPath(h, kind, idOf(kind))}/override`;

  it("schema override without target_table", async () => {
    const r = await h.request("POST", override("schema"), { body: { target_column: "x" } });
    expect(r.status).toBe(422);
    expect(r.text).toBe(
      '{"detail":[{"loc":["body","target_table"],"msg":"field required","type":"value_error.missing"}]}',
    );
  });

  it("schema override with neither field: one entry per problem", async () => {
    const r = await h.request("POST", override("schema"), { body: {} });
    expect(r.json).toEqual({
      detail: [
        { loc: ["body", "target_table"], msg: "field required", type: "value_error.missing" },
        { loc: ["body", "target_column"], msg: "field required", type: "value_error.missing" },
      ],
    });
  });

  it("concept override without target_concept_id", async () => {
    const r = await h.request("POST", override("concept"), { body: { target_concept_name: "MALE" } });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      detail: [{ loc: ["body", "target_concept_id"], msg: "field required", type: "value_error.missing" }],
    });
  });

  it("wrong types get matching entries", async () => {
    const s = await h.request("POST", override("schema"), { body: { target_table: 5, target_column: null } });
    expect(s.json).toEqual({
      detail: [
        { loc: ["body", "target_table"], msg: "str type expected", type: "type_error.str" },
        {
          loc: ["body", "target_column"],
          msg: "none is not an allowed value",
          type: "type_error.none.not_allowed",
        },
      ],
    });
    const c = await h.request("POST", override("concept"), {
      body: { target_concept_id: "8507", target_vocabulary_id: ["SNOMED"] },
    });
    expect(c.json).toEqual({
      detail: [
        {
          loc: ["body", "target_concept_id"],
          msg: "value is not a valid integer",
          type: "type_error.integer",
        },
        { loc: ["body", "target_vocabulary_id"], msg: "str type expected", type: "type_error.str" },
      ],
    });
    const f = await h.request("POST", override("concept"), { body: { target_concept_id: 85.5 } });
    expect(f.json).toEqual({
      detail: [
        {
          loc: ["body", "target_concept_id"],
          msg: "value is not a valid integer",
          type: "type_error.integer",
        },
      ],
    });
  });

  it("an id beyond 2^53 is refused rather than silently rounded", async () => {
    const r = await h.request("POST", override("concept"), {
      body: '{"target_concept_id": 9007199254740993}',
    });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      detail: [
        {
          loc: ["body", "target_concept_id"],
          msg: "ensure this value is less than or equal to 9007199254740991",
          type: "value_error.number.not_le",
        },
      ],
    });
  });

  it("malformed JSON", async () => {
    const r = await h.request("POST", override("schema"), { body: '{"target_table": "person",' });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      detail: [{ loc: ["body", 26], msg: "Invalid JSON", type: "value_error.jsondecode" }],
    });
  });

  it("a JSON body that is not an object", async () => {
    const r = await h.request("POST", override("schema"), { body: "[1, 2]" });
    expect(r.json).toEqual({
      detail: [{ loc: ["body"], msg: "value is not a valid dict", type: "type_error.dict" }],
    });
  });

  it("no body at all", async () => {
    const r = await h.request("POST", override("schema"));
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      detail: [{ loc: ["body"], msg: "field required", type: "value_error.missing" }],
    });
  });

  it("a body that is not JSON", async () => {
    const r = await h.request("POST", override("schema"), {
      body: "target_table=person",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      detail: [
        { loc: ["body"], msg: "Content-Type must be application/json", type: "value_error.content_type" },
      ],
    });
  });

  it("nothing was changed by any rejected request", async () => {
    const s = await h.request("GET", itemPath(h, "schema", sm));
    // Only the one successful override (in the revoked-key test) changed the item.
    expect(s.json).toMatchObject({ version: 2, status: "overridden", target_column: "y" });
  });
});

describe("413: body over the size limit", () => {
  it("is refused before parsing, with a detail naming the limit", async () => {
    const big = JSON.stringify({ target_table: "x".repeat(2000), target_column: "y" });
    const r = await h.request("POST", `${itemPath(h, "schema", sm)}/override`, { body: big });
    expect(r.status).toBe(413);
    expect(r.json).toEqual({ detail: "Request body is larger than the limit of 1024 bytes" });
  });

  it("applies to chunked bodies without a Content-Length too", async () => {
    const chunks = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(`{"target_table": "${"x".repeat(3000)}", "target_column": "y"}`));
        c.close();
      },
    });
    const res = await fetch(`${h.url}${itemPath(h, "schema", sm)}/override`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.admin}`, "content-type": "application/json" },
      body: chunks,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
  });
});
