// Choosing one of a schema item's ranked candidates (crossmap suggest --schema) over real HTTP and LMDB:
// the statuses and bodies of POST .../schema-mapping/{id}/choose, its audit event, If-Match, and the
// chosen target in the crossmap export and the sync pull.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, itemPath, seedSchema, startHarness, withoutTimes } from "./harness.js";

let h: Harness;
let ada: string;
let reader: string;
beforeAll(async () => {
  h = await startHarness();
  [ada, reader] = await h.stores.write(() => [
    h.stores.keys.create("write", h.projectId, "Dr. Ada").secret,
    h.stores.keys.create("read", h.projectId, "Dr. Read").secret,
  ]);
});
afterAll(() => h.stop());

const BIRTH = { target_table: "person", target_column: "birth_datetime", score: 0.81 };
const YEAR = { target_table: "person", target_column: "year_of_birth", score: 0.64 };
const VISIT = { target_table: "visit_occurrence", target_column: "visit_start_date", score: 0.3 };

const item = (column: string, extra: object = {}) => ({
  id: `sm_${column}`,
  source_table: "patients",
  source_column: column,
  target_table: "person",
  target_column: "birth_datetime",
  confidence: 0.81,
  status: "needs_review",
  candidates: [BIRTH, YEAR, VISIT],
  ...extra,
});
const choose = (id: string, body: object, headers: Record<string, string> = {}, token = ada) =>
  h.request("POST", `${itemPath(h, "schema", id)}/choose`, { body, headers, key: token });

interface Event {
  version: number;
  action: string;
  reviewer: string | null;
  candidate?: number;
  before: object | null;
  after: object;
}
const events = async (id: string) =>
  ((await h.request("GET", `${itemPath(h, "schema", id)}/history`)).json as { events: Event[] }).events;

describe("POST .../schema-mapping/{id}/choose", () => {
  it("candidate 2 becomes the target (status overridden), audited as choose with the candidate", async () => {
    await seedSchema(h, [item("dob")]);
    const r = await choose("sm_dob", { candidate: 2, comment: "only the year is known" });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    const body = r.json as Record<string, unknown>;
    expect(withoutTimes(body)).toEqual({
      id: "sm_dob",
      source_table: "patients",
      source_column: "dob",
      target_table: "person",
      target_column: "year_of_birth",
      confidence: 0.81,
      status: "overridden",
      comment: "only the year is known",
      candidates: [BIRTH, YEAR, VISIT],
      version: 2,
    });
    expect(body.reviewed_at).toBe(body.updated_at);
    const hist = await events("sm_dob");
    expect(hist.map((e) => [e.version, e.action, e.reviewer, e.candidate])).toEqual([
      [1, "push_create", null, undefined],
      [2, "choose", "Dr. Ada", 2],
    ]);
    expect(hist[1]!.before).toMatchObject({ status: "needs_review", target_column: "birth_datetime" });
    expect(hist[1]!.after).toMatchObject({ status: "overridden", target_column: "year_of_birth" });
  });

  it("candidate 1 approves the suggestion (status approved); the comment is kept when left out", async () => {
    await seedSchema(h, [item("born", { comment: "from the registry" })]);
    const r = await choose("sm_born", { candidate: 1 });
    expect(r.json).toMatchObject({
      status: "approved",
      target_table: "person",
      target_column: "birth_datetime",
      comment: "from the registry",
      version: 2,
    });
    expect((await events("sm_born")).map((e) => [e.action, e.candidate])).toEqual([
      ["push_create", undefined],
      ["choose", 1],
    ]);
  });

  it("a third candidate of another table is taken as it is", async () => {
    await seedSchema(h, [item("admitted")]);
    expect((await choose("sm_admitted", { candidate: 3 })).json).toMatchObject({
      status: "overridden",
      target_table: "visit_occurrence",
      target_column: "visit_start_date",
    });
  });

  it("past the list is a 422 naming the count; 0 is a 422; nothing is written", async () => {
    await seedSchema(h, [item("sex", { candidates: [BIRTH] })]);
    const r = await choose("sm_sex", { candidate: 2 });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      detail: [
        {
          loc: ["body", "candidate"],
          msg: "Schema mapping sm_sex has 1 candidate",
          type: "value_error.number.not_le",
        },
      ],
    });
    const zero = await choose("sm_sex", { candidate: 0 });
    expect(zero.status).toBe(422);
    expect((zero.json as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(["body", "candidate"]);
    expect(await events("sm_sex")).toHaveLength(1);
  });

  it("an item without candidates (null or none) is a 409 no_candidates", async () => {
    await seedSchema(h, [item("race", { candidates: null }), item("eth", { candidates: [] })]);
    for (const id of ["sm_race", "sm_eth"]) {
      const r = await choose(id, { candidate: 1 });
      expect(r.status).toBe(409);
      expect(r.json).toEqual({
        detail: `Schema mapping ${id} in project ${h.projectId} has no candidates to choose from; override it instead`,
      });
    }
  });

  it("honours If-Match: a stale version is a 412 and changes nothing, the current one is applied", async () => {
    await seedSchema(h, [item("died")]);
    await h.request("POST", `${itemPath(h, "schema", "sm_died")}/comment`, { body: { comment: "x" } });
    const stale = await choose("sm_died", { candidate: 2 }, { "if-match": '"1"' });
    expect(stale.status).toBe(412);
    expect(stale.json).toEqual({
      detail: `Schema mapping sm_died in project ${h.projectId} is at version 2; If-Match "1" is stale, fetch the item and review again`,
    });
    expect((await h.request("GET", itemPath(h, "schema", "sm_died"))).json).toMatchObject({
      status: "needs_review",
      target_column: "birth_datetime",
      version: 2,
    });
    const ok = await choose("sm_died", { candidate: 2 }, { "if-match": '"2"' });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ status: "overridden", target_column: "year_of_birth", version: 3 });
  });

  it("is a 404 for an unknown item and a 403 for a read key", async () => {
    const missing = await choose("sm_nope", { candidate: 1 });
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ detail: `Schema mapping sm_nope not found in project ${h.projectId}` });
    await seedSchema(h, [item("ro")]);
    expect((await choose("sm_ro", { candidate: 2 }, {}, reader)).status).toBe(403);
  });

  it("is a decision: a later push leaves the chosen target alone", async () => {
    await seedSchema(h, [item("zip")]);
    await choose("sm_zip", { candidate: 2 });
    const again = await h.request("POST", `/api/v1/sync/projects/${h.projectId}/schema-mappings/bulk`, {
      body: { items: [item("zip", { candidates: [VISIT] })] },
    });
    expect(again.json).toMatchObject({ skipped: 1 });
    expect((await h.request("GET", itemPath(h, "schema", "sm_zip"))).json).toMatchObject({
      status: "overridden",
      target_column: "year_of_birth",
      candidates: [BIRTH, YEAR, VISIT],
      version: 2,
    });
  });
});

describe("the chosen target leaves the server", () => {
  let p: string;
  beforeAll(async () => {
    const r = await h.request("POST", "/api/v1/projects", {
      body: { name: "exports", target_model: "omop_cdm_v5.4" },
    });
    p = (r.json as { id: string }).id;
    const pushed = await h.request("POST", `/api/v1/sync/projects/${p}/schema-mappings/bulk`, {
      body: {
        items: [
          item("pid", {
            id: "sm_pid",
            target_column: "person_id",
            candidates: [{ target_table: "person", target_column: "person_id", score: 0.9 }],
          }),
          item("dob"),
        ],
      },
    });
    expect(pushed.status).toBe(200);
    for (const [id, k] of [
      ["sm_pid", 1],
      ["sm_dob", 2],
    ] as const) {
      const r = await h.request("POST", `/v1/projects/${p}/schema-mapping/${id}/choose`, {
        body: { candidate: k },
      });
      expect(r.status).toBe(200);
    }
  });

  it("the crossmap export maps the column to the chosen candidate", async () => {
    const r = await h.request("GET", `/api/v1/projects/${p}/exports/crossmap?source=site`);
    expect(r.status, r.text).toBe(200);
    const body = r.text.slice(r.text.indexOf("field_map:"));
    expect(body).toBe(
      [
        "field_map:",
        "  patients.pid:",
        "    target: person.person_id",
        "    transform: int",
        "  patients.dob:",
        "    target: person.year_of_birth",
        "    transform: int",
        "",
      ].join("\n"),
    );
  });

  it("the sync pull carries the chosen target and status", async () => {
    const r = await h.request("GET", `/api/v1/sync/projects/${p}/schema-mappings`);
    const items = (r.json as { items: Record<string, unknown>[] }).items;
    expect(items.map((i) => [i.id, i.status, i.target_table, i.target_column, i.version])).toEqual([
      ["sm_dob", "overridden", "person", "year_of_birth", 2],
      ["sm_pid", "approved", "person", "person_id", 2],
    ]);
  });
});
