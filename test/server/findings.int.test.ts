// Issue 13's findings F5-F8 and If-Match, over real HTTP: each answered with its documented status and
// exact body, never a 500.
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, itemPath, seedSchema, startHarness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  expect(h.logs.filter((l) => l.status === 500 || l.level === "error")).toEqual([]);
  await h.stop();
});

/** A request fetch() will not send (TRACE, PROPFIND, or a method no parser knows). */
function rawRequest(
  method: string,
  path: string,
): Promise<{ status: number; type: string; allow: string; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${h.url}${path}`, { method }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        text += d;
      });
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers["content-type"] ?? "",
          allow: String(res.headers.allow ?? ""),
          text,
        }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

/** What the server sends back for `text` written straight to a socket, until it closes the connection. */
function rawSocket(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(h.url).port), "127.0.0.1");
    let out = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => {
      out += d;
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(out));
    socket.write(text);
  });
}

const nested = (depth: number): string => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

describe("F5: deeply nested JSON", () => {
  it("a record nested 5,000 deep is a 422 naming the depth limit, on both map endpoints", async () => {
    const body = `{"source_standard":"omop_cdm_v5.4","target_standard":"fhir_r4","source_entity":"person","records":[{"person_id":1,"x":${nested(5000)}}]}`;
    // The 101st opening bracket: the body, records, the record, then 98 levels of "x".
    const at = body.indexOf("{", body.indexOf('"x":')) + 97 * '{"a":'.length;
    const want = `{"detail":[{"loc":["body",${at}],"msg":"JSON nested more than 100 levels deep (the limit)","type":"value_error.jsondecode.depth"}]}`;
    for (const path of ["/api/v1/cross-mapping/map", `/api/v1/cross-mapping/projects/${h.projectId}/map`]) {
      const r = await h.request("POST", path, { body });
      expect(r.status).toBe(422);
      expect(r.text).toBe(want);
    }
    // A validation error is not a run: nothing was recorded.
    const runs = await h.request("GET", `/api/v1/cross-mapping/projects/${h.projectId}`);
    expect(runs.json).toEqual({ runs: [], total: 0 });
  });

  it("every JSON body is held to the same depth, before it is parsed", async () => {
    const r = await h.request("POST", `/api/v1/sync/projects/${h.projectId}/schema-mappings/bulk`, {
      body: `{"items":[${nested(200)}]}`,
    });
    expect(r.status).toBe(422);
    expect(r.text).toBe(
      '{"detail":[{"loc":["body",500],"msg":"JSON nested more than 100 levels deep (the limit)","type":"value_error.jsondecode.depth"}]}',
    );
    // 100 levels is within the limit (and then an ordinary validation error).
    const ok = await h.request("POST", `/api/v1/sync/projects/${h.projectId}/schema-mappings/bulk`, {
      body: `{"items":[${nested(98)}]}`,
    });
    expect(ok.status).toBe(422);
    expect((ok.json as { detail: { type: string }[] }).detail[0]?.type).toBe("value_error.missing");
  });
});

describe("F6: ids no item can have", () => {
  it("a mapping_id or project_id of 8 KB is a plain 404, not a store error", async () => {
    const long = "x".repeat(8000);
    const item = await h.request("POST", `${itemPath(h, "schema", long)}/approve`);
    expect(item.status).toBe(404);
    expect(item.json).toEqual({ detail: `Schema mapping ${long} not found in project ${h.projectId}` });
    const project = await h.request("GET", `/api/v1/cross-mapping/projects/${long}`);
    expect(project.status).toBe(404);
    expect(project.json).toEqual({ detail: `Project ${long} not found` });
    const history = await h.request("GET", `${itemPath(h, "concept", long)}/history`);
    expect(history.status).toBe(404);
  });
});

describe("F7: methods the API does not implement", () => {
  it("TRACE and PROPFIND get a JSON 405 (404 on unknown paths); what Node's parser refuses gets JSON too", async () => {
    for (const method of ["TRACE", "PROPFIND", "PATCH"]) {
      const r = await rawRequest(method, "/healthz");
      expect([r.status, r.type, r.allow, r.text]).toEqual([
        405,
        "application/json; charset=utf-8",
        "HEAD, GET",
        '{"detail":"Method Not Allowed"}',
      ]);
    }
    const unknown = await rawRequest("PROPFIND", "/nowhere");
    expect([unknown.status, unknown.text]).toEqual([404, '{"detail":"Not Found"}']);
    // Node's HTTP parser refuses it before the app sees it; the answer keeps the API's shape.
    expect(await rawSocket("BANANA /healthz HTTP/1.1\r\nHost: x\r\n\r\n")).toBe(
      'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nContent-Length: 24\r\nConnection: close\r\n\r\n{"detail":"Bad Request"}',
    );
    expect(await rawSocket(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`)).toBe(
      'HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nContent-Length: 44\r\nConnection: close\r\n\r\n{"detail":"Request Header Fields Too Large"}',
    );
  });
});

describe("F8: ids and strings a store cannot keep exactly", () => {
  const push = (items: object[]) =>
    h.request("POST", `/api/v1/sync/projects/${h.projectId}/schema-mappings/bulk`, { body: { items } });

  it("a lone UTF-16 surrogate in an id or any string is a 422", async () => {
    const r = await push([{ id: "sm_\ud800", source_column: "c\udc00" }]);
    expect(r.status).toBe(422);
    expect(r.text).toBe(
      JSON.stringify({
        detail: [
          {
            loc: ["body", "items", 0, "id"],
            msg: "string must not contain unpaired UTF-16 surrogates",
            type: "value_error.str.regex",
          },
          {
            loc: ["body", "items", 0, "source_column"],
            msg: "string must not contain unpaired UTF-16 surrogates",
            type: "value_error.str.regex",
          },
        ],
      }),
    );
    const concept = await h.request("POST", `/api/v1/sync/projects/${h.projectId}/concept-mappings/bulk`, {
      body: { items: [{ source_code: "A", source_description: "x\ud83d" }] },
    });
    expect(concept.status).toBe(422);
    expect(concept.json).toEqual({
      detail: [
        {
          loc: ["body", "items", 0, "source_description"],
          msg: "string must not contain unpaired UTF-16 surrogates",
          type: "value_error.str.regex",
        },
      ],
    });
  });

  it("a pushed id is 1-200 characters without control characters: anything else is a 422 naming it", async () => {
    const ids = ["", "x".repeat(201), "sm\u0001", "sm\n1"];
    const r = await push(ids.map((id) => ({ id, source_column: "c" })));
    expect(r.status).toBe(422);
    const control = { msg: "string must not contain control characters", type: "value_error.str.regex" };
    expect(r.json).toEqual({
      detail: [
        {
          loc: ["body", "items", 0, "id"],
          msg: "ensure this value has at least 1 characters",
          type: "value_error.any_str.min_length",
        },
        {
          loc: ["body", "items", 1, "id"],
          msg: "ensure this value has at most 200 characters",
          type: "value_error.any_str.max_length",
        },
        { loc: ["body", "items", 2, "id"], ...control },
        { loc: ["body", "items", 3, "id"], ...control },
      ],
    });
    // 200 characters, or a UUID, are ids like any other.
    const ok = await push([
      { id: "y".repeat(200), source_column: "long_id" },
      { id: "0b8e7a52-3c1d-4f7e-9a26-5d0c2f6b8e11", source_column: "uuid_id" },
    ]);
    expect(ok.status).toBe(200);
    expect((await h.request("GET", itemPath(h, "schema", "y".repeat(200)))).status).toBe(200);
  });

  it("odd but well-formed Unicode is stored exactly: the same push twice is unchanged the second time", async () => {
    const odd = [
      "emoji \u{1f9ec}\u{1f3fd}",
      "e\u0301 (NFD)",
      "\u00e9 (NFC)",
      "\ufeffBOM",
      "\ufffd replacement",
      "\uffff noncharacter",
      "rtl \u202e\u05e9\u05dc\u05d5\u05dd",
      "zero\u200bwidth",
      "\u{10ffff}",
      "a".repeat(200),
    ];
    const items = odd.map((s, i) => ({
      id: `odd_${i}_${s}`.slice(0, 200),
      source_table: s,
      source_column: s,
    }));
    const first = await push(items);
    expect(first.status).toBe(200);
    expect((first.json as { created: number }).created).toBe(odd.length);
    const second = await push(items);
    expect(second.json).toMatchObject({ created: 0, updated: 0, unchanged: odd.length, skipped: 0 });
    for (const item of items) {
      const got = await h.request("GET", itemPath(h, "schema", encodeURIComponent(item.id)));
      expect(got.status).toBe(200);
      expect(got.json).toMatchObject({ id: item.id, source_table: item.source_table, version: 1 });
    }
  });
});

describe("If-Match that is not an entity tag", () => {
  it("If-Match: banana is a 422 saying what If-Match takes, not a stale version", async () => {
    const [id] = (await seedSchema(h, [
      { id: "sm_if", source_column: "c", target_table: "t", target_column: "u" },
    ])) as [string];
    const r = await h.request("POST", `${itemPath(h, "schema", id)}/approve`, {
      headers: { "if-match": "banana" },
    });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      detail: [
        {
          loc: ["header", "if-match"],
          msg: 'If-Match must be * or entity tags such as "3" (the item\'s version, as its ETag shows it); got "banana"',
          type: "value_error.if_match",
        },
      ],
    });
    const item = await h.request("GET", itemPath(h, "schema", id));
    expect(item.json).toMatchObject({ status: "needs_review", version: 1 });
    // A well-formed tag of another version is still 412.
    const stale = await h.request("POST", `${itemPath(h, "schema", id)}/approve`, {
      headers: { "if-match": '"7"' },
    });
    expect(stale.status).toBe(412);
  });
});
