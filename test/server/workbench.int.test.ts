// What the review workbench needs around the spec's endpoints, over real HTTP and LMDB: comments,
// revert (undo), reviewer names in history, "who am I", and CORS.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, itemPath, seedConcept, seedSchema, startHarness } from "./harness.js";

let h: Harness;
let ada: string;
beforeAll(async () => {
  h = await startHarness({ corsOrigins: ["https://dash.example.org"] });
  ada = (await h.stores.write(() => h.stores.keys.create("write", h.projectId, "Dr. Ada"))).secret;
  await seedConcept(h, [
    {
      id: "k1",
      source_code: "GLU-1",
      source_vocabulary_id: "LOCAL_LAB",
      source_frequency: 120,
      target_concept_id: 3004501,
      target_concept_name: "Glucose [Mass/volume] in Serum or Plasma",
      target_vocabulary_id: "LOINC",
      confidence: 0.9,
    },
  ]);
  await seedSchema(h, [{ id: "s1", source_table: "labs", source_column: "code" }]);
});
afterAll(() => h.stop());

type Event = {
  action: string;
  version: number;
  key_id: string;
  reviewer: string | null;
  reverted_to?: number;
};
const history = async (kind: "schema" | "concept", id: string) =>
  ((await h.request("GET", `${itemPath(h, kind, id)}/history`)).json as { events: Event[] }).events;

describe("comment", () => {
  it("sets and clears a comment as a new, audited version; honours If-Match", async () => {
    const r = await h.request("POST", `${itemPath(h, "concept", "k1")}/comment`, {
      key: ada,
      body: { comment: "Lab confirmed: serum, not plasma" },
      headers: { "if-match": '"1"' },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.json).toMatchObject({
      comment: "Lab confirmed: serum, not plasma",
      method: "review",
      version: 2,
    });
    expect((r.json as { reviewed_at: unknown }).reviewed_at).toBeNull();
    const stale = await h.request("POST", `${itemPath(h, "concept", "k1")}/comment`, {
      body: { comment: null },
      headers: { "if-match": '"1"' },
    });
    expect(stale.status).toBe(412);
    const cleared = await h.request("POST", `${itemPath(h, "schema", "s1")}/comment`, {
      body: { comment: null },
    });
    expect(cleared.json).toMatchObject({ comment: null, version: 2 });
    const missing = await h.request("POST", `${itemPath(h, "schema", "s1")}/comment`, { body: {} });
    expect(missing.json).toEqual({
      detail: [{ loc: ["body", "comment"], msg: "field required", type: "value_error.missing" }],
    });
    expect((await history("concept", "k1")).map((e) => [e.action, e.reviewer])).toEqual([
      ["push_create", null],
      ["comment", "Dr. Ada"],
    ]);
  });

  it("a push that leaves the comment out keeps it", async () => {
    await seedConcept(h, [{ id: "k1", source_code: "GLU-1", confidence: 0.95 }]);
    const item = (await h.request("GET", itemPath(h, "concept", "k1"))).json;
    expect(item).toMatchObject({
      comment: "Lab confirmed: serum, not plasma",
      source_vocabulary_id: "LOCAL_LAB",
      source_frequency: 120,
      confidence: 0.95,
      target_concept_id: null,
    });
  });
});

describe("revert", () => {
  it("undoes a decision as a new version that restores the earlier method, targets and reviewed_at", async () => {
    const [id] = await seedConcept(h, [
      {
        id: "k2",
        source_code: "NA",
        target_concept_id: 3019550,
        target_concept_name: "Sodium",
        target_vocabulary_id: "LOINC",
      },
    ]);
    const approved = await h.request("POST", `${itemPath(h, "concept", id!)}/override`, {
      key: ada,
      body: {
        target_concept_id: 3000285,
        target_concept_name: "Sodium [Moles/volume] in Blood",
        equivalence: "equivalent",
      },
    });
    expect(approved.json).toMatchObject({ method: "override", version: 2, equivalence: "equivalent" });
    const undone = await h.request("POST", `${itemPath(h, "concept", id!)}/revert`, {
      key: ada,
      body: { to_version: 1 },
      headers: { "if-match": '"2"' },
    });
    expect(undone.status).toBe(200);
    expect(undone.json).toMatchObject({
      method: "review",
      target_concept_id: 3019550,
      target_concept_name: "Sodium",
      target_vocabulary_id: "LOINC",
      equivalence: null,
      reviewed_at: null,
      version: 3,
    });
    const events = await history("concept", id!);
    expect(events.map((e) => [e.action, e.version, e.reverted_to])).toEqual([
      ["push_create", 1, undefined],
      ["override", 2, undefined],
      ["revert", 3, 1],
    ]);
    const nope = await h.request("POST", `${itemPath(h, "concept", id!)}/revert`, {
      body: { to_version: 9 },
    });
    expect(nope.status).toBe(422);
    expect(nope.json).toEqual({
      detail: [
        {
          loc: ["body", "to_version"],
          msg: `Concept mapping k2 in project ${h.projectId} has no version 9`,
          type: "value_error.version",
        },
      ],
    });
  });
});

describe("reviewer identity", () => {
  it("events name the key's reviewer beside its id; GET /api/v1/me says who is signed in", async () => {
    const [id] = await seedSchema(h, [
      { id: "s2", source_column: "sex", target_table: "person", target_column: "gender_concept_id" },
    ]);
    await h.request("POST", `${itemPath(h, "schema", id!)}/approve`, { key: ada });
    const events = await history("schema", id!);
    expect(events.at(-1)).toMatchObject({ action: "approve", key_id: h.keyId(ada), reviewer: "Dr. Ada" });
    expect(Object.keys(events.at(-1)!)).toEqual([
      "item_id",
      "version",
      "action",
      "key_id",
      "reviewer",
      "at",
      "before",
      "after",
    ]);

    const me = await h.request("GET", "/api/v1/me", { key: ada });
    expect(me.json).toEqual({
      key_id: h.keyId(ada),
      name: "Dr. Ada",
      admin: false,
      projects: [{ id: h.projectId, name: "test", scope: "write" }],
    });
    const admin = await h.request("GET", "/api/v1/me");
    expect(admin.json).toMatchObject({
      name: null,
      admin: true,
      projects: [{ id: h.projectId, scope: "admin" }],
    });
    expect((await h.request("GET", "/api/v1/me", { key: null })).status).toBe(401);
  });
});

describe("CORS", () => {
  it("answers a listed origin's preflight and exposes the ETag; an unlisted origin gets no CORS headers", async () => {
    const pre = await h.request("OPTIONS", `${itemPath(h, "concept", "k1")}/approve`, {
      key: null,
      headers: {
        origin: "https://dash.example.org",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, if-match, content-type",
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("https://dash.example.org");
    expect(pre.headers.get("access-control-allow-headers")).toBe("Authorization, Content-Type, If-Match");
    expect(pre.headers.get("access-control-allow-methods")).toBe("GET, POST, OPTIONS");
    expect(pre.headers.get("vary")).toBe("Origin");

    const get = await h.request("GET", itemPath(h, "concept", "k1"), {
      headers: { origin: "https://dash.example.org" },
    });
    expect(get.headers.get("access-control-allow-origin")).toBe("https://dash.example.org");
    expect(get.headers.get("access-control-expose-headers")).toBe("ETag");
    const denied = await h.request("GET", itemPath(h, "concept", "k1"), {
      key: null,
      headers: { origin: "https://dash.example.org" },
    });
    expect(denied.status).toBe(401);
    expect(denied.headers.get("access-control-allow-origin")).toBe("https://dash.example.org");

    const other = await h.request("GET", itemPath(h, "concept", "k1"), {
      headers: { origin: "https://evil.example" },
    });
    expect(other.status).toBe(200);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });
});
