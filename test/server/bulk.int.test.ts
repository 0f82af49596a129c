// Bulk decisions over real HTTP and LMDB: a result per item in the single-item endpoint's own status and
// body, one audit event per changed item, a filter form, and the documented limit.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, itemPath, seedConcept, seedSchema, startHarness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const bulk = (kind: "schema" | "concept", body: unknown, key?: string) =>
  h.request("POST", `/v1/projects/${h.projectId}/${kind}-mapping/bulk`, { body, ...(key ? { key } : {}) });

type Result = { id: string; status: number; item?: Record<string, unknown>; detail?: unknown };
type Outcome = { applied: number; failed: number; results: Result[] };

describe("decisions", () => {
  it("applies each decision and reports 200, 404, 409, 412 and 422 per item in the spec's shapes", async () => {
    await seedSchema(h, [
      { id: "a", source_column: "a", target_table: "person", target_column: "year_of_birth" },
      { id: "b", source_column: "b" },
      { id: "c", source_column: "c", target_table: "person", target_column: "gender_concept_id" },
      { id: "d", source_column: "d" },
      { id: "e", source_column: "e" },
    ]);
    const r = await bulk("schema", {
      decisions: [
        { id: "a", action: "approve", if_match: 1 },
        { id: "b", action: "approve" },
        { id: "c", action: "reject", if_match: 7 },
        { id: "zz", action: "reject" },
        { id: "d", action: "override", target_table: "person" },
        {
          id: "e",
          action: "override",
          target_table: "person",
          target_column: "race_source_value",
          comment: "by hand",
        },
      ],
    });
    expect(r.status).toBe(200);
    const out = r.json as Outcome;
    expect(out.applied).toBe(2);
    expect(out.failed).toBe(4);
    expect(out.results.map((x) => [x.id, x.status])).toEqual([
      ["a", 200],
      ["b", 409],
      ["c", 412],
      ["zz", 404],
      ["d", 422],
      ["e", 200],
    ]);
    expect(out.results[0]!.item).toMatchObject({ id: "a", status: "approved", version: 2 });
    expect(out.results[1]!.detail).toBe(
      `Schema mapping b in project ${h.projectId} has no suggested target table and column to approve; override it instead`,
    );
    expect(out.results[2]!.detail).toBe(
      `Schema mapping c in project ${h.projectId} is at version 1; If-Match "7" is stale, fetch the item and review again`,
    );
    expect(out.results[3]!.detail).toBe(`Schema mapping zz not found in project ${h.projectId}`);
    expect(out.results[4]!.detail).toEqual([
      { loc: ["body", "decisions", 4, "target_column"], msg: "field required", type: "value_error.missing" },
    ]);
    expect(out.results[5]!.item).toMatchObject({
      status: "overridden",
      target_column: "race_source_value",
      comment: "by hand",
    });
    // Nothing happened to the refused ones; one audit event per changed item.
    const c = await h.request("GET", itemPath(h, "schema", "c"));
    expect(c.json).toMatchObject({ status: "needs_review", version: 1 });
    const events = (await h.request("GET", `${itemPath(h, "schema", "a")}/history`)).json as {
      events: { action: string }[];
    };
    expect(events.events.map((e) => e.action)).toEqual(["push_create", "approve"]);
  });

  it("refuses a malformed body whole: an entry without id, both forms at once, too many decisions", async () => {
    const r = await bulk("concept", { decisions: [{ action: "approve" }] });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      detail: [{ loc: ["body", "decisions", 0, "id"], msg: "field required", type: "value_error.missing" }],
    });
    const both = await bulk("concept", {
      decisions: [{ id: "x", action: "approve" }],
      filter: {},
      action: "approve",
    });
    expect(both.json).toEqual({
      detail: [{ loc: ["body"], msg: "give either decisions, or filter with action", type: "value_error" }],
    });
    const many = await bulk("concept", {
      decisions: Array.from({ length: 10_001 }, (_, i) => ({ id: `x${i}`, action: "reject" })),
    });
    expect(many.status).toBe(422);
    expect(many.json).toEqual({
      detail: [
        {
          loc: ["body", "decisions"],
          msg: "ensure this value has at most 10000 items",
          type: "value_error.list.max_items",
        },
      ],
    });
  });
});

describe("filter", () => {
  it("approves every needs_review item with confidence >= 0.95, in one call, and nothing else", async () => {
    await seedConcept(
      h,
      [0.99, 0.97, 0.95, 0.9, 0.5].map((confidence, i) => ({
        id: `f${i}`,
        source_code: `F${i}`,
        target_concept_id: 4000 + i,
        confidence,
        method: i === 1 ? "override" : "review",
      })),
    );
    const r = await bulk("concept", {
      filter: { needs_review: true, min_confidence: 0.95 },
      action: "approve",
    });
    expect(r.status).toBe(200);
    const out = r.json as Outcome;
    expect(out.results.map((x) => [x.id, x.status, x.item?.method])).toEqual([
      ["f0", 200, "auto"],
      ["f2", 200, "auto"],
    ]);
    expect(out.applied).toBe(2);
    const left = await h.request("GET", `/v1/projects/${h.projectId}/concept-mapping?needs_review=true&q=f`);
    expect((left.json as { items: { id: string }[] }).items.map((i) => i.id)).toEqual(["f3", "f4"]);
  });

  it("needs an action, knows only the list filters, and refuses more matches than the limit", async () => {
    const r = await bulk("concept", { filter: { needs_review: true, sort: "id" } });
    expect(r.json).toEqual({
      detail: [
        { loc: ["body", "filter", "sort"], msg: "extra fields not permitted", type: "value_error.extra" },
        { loc: ["body", "action"], msg: "field required", type: "value_error.missing" },
      ],
    });
    const other = await h.request("POST", "/api/v1/projects", { body: { name: "big" } });
    const big = (other.json as { id: string }).id;
    for (const from of [0, 5001]) {
      const items = Array.from({ length: 5001 }, (_, i) => ({
        source_code: `B${from + i}`,
        confidence: 0.99,
      }));
      await h.request("POST", `/api/v1/sync/projects/${big}/concept-mappings/bulk`, { body: { items } });
    }
    const tooMany = await h.request("POST", `/v1/projects/${big}/concept-mapping/bulk`, {
      body: { filter: { min_confidence: 0.9 }, action: "reject" },
    });
    expect(tooMany.status).toBe(422);
    expect(tooMany.json).toEqual({
      detail: [
        {
          loc: ["body", "filter"],
          msg: "ensure this filter matches at most 10000 items; it matches 10002",
          type: "value_error.list.max_items",
        },
      ],
    });
    const read = await h.key("read");
    const denied = await bulk("concept", { filter: {}, action: "reject" }, read);
    expect(denied.status).toBe(403);
  });
});
