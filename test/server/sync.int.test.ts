// Sync push and pull: idempotent upserts by id or natural key, reviewed items protected unless forced.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, itemPath, startHarness, withoutTimes } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const sync = (kind: string, suffix = "") => `/api/v1/sync/projects/${h.projectId}/${kind}${suffix}`;
type Summary = {
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
  items: Record<string, unknown>[];
};
const counts = (r: { json: unknown }) => {
  const { created, updated, unchanged, skipped } = r.json as Summary;
  return { created, updated, unchanged, skipped };
};

describe("schema mappings", () => {
  const items = [
    {
      source_table: "patients",
      source_column: "sex",
      target_table: "person",
      target_column: "gender_concept_id",
      confidence: 0.9,
    },
    {
      source_table: "patients",
      source_column: "dob",
      target_table: "person",
      target_column: "birth_datetime",
      confidence: 0.8,
      status: "auto_accepted",
    },
    { id: "sm_fixed", source_table: "visits", source_column: "start", confidence: 0.2 },
  ];

  it("pushing the same items twice gives created N, then unchanged N; pull returns them", async () => {
    const first = await h.request("POST", sync("schema-mappings", "/bulk"), { body: { items } });
    expect(first.status).toBe(200);
    expect(counts(first)).toEqual({ created: 3, updated: 0, unchanged: 0, skipped: 0 });
    const ids = (first.json as Summary).items.map((i) => i.id);
    expect(ids[2]).toBe("sm_fixed");
    expect((first.json as Summary).items.map((i) => [i.index, i.result])).toEqual([
      [0, "created"],
      [1, "created"],
      [2, "created"],
    ]);

    const second = await h.request("POST", sync("schema-mappings", "/bulk"), { body: { items } });
    expect(counts(second)).toEqual({ created: 0, updated: 0, unchanged: 3, skipped: 0 });
    expect((second.json as Summary).items.map((i) => i.id)).toEqual(ids);

    const pull = await h.request("GET", sync("schema-mappings"));
    expect(pull.status).toBe(200);
    const pulled = pull.json as { items: Record<string, unknown>[]; total: number };
    expect(pulled.total).toBe(3);
    const byId = new Map(pulled.items.map((i) => [i.id, withoutTimes(i)]));
    expect(byId.get(ids[0])).toEqual({
      id: ids[0],
      ...items[0],
      status: "needs_review",
      version: 1,
      comment: null,
      candidates: null,
    });
    expect(byId.get(ids[1])).toMatchObject({ status: "auto_accepted", version: 1 });
    expect(byId.get("sm_fixed")).toEqual({
      id: "sm_fixed",
      source_table: "visits",
      source_column: "start",
      target_table: null,
      target_column: null,
      confidence: 0.2,
      status: "needs_review",
      version: 1,
      comment: null,
      candidates: null,
    });

    // Pushing back what was pulled (server fields included) changes nothing either.
    const echo = await h.request("POST", sync("schema-mappings", "/bulk"), { body: { items: pulled.items } });
    expect(counts(echo)).toEqual({ created: 0, updated: 0, unchanged: 3, skipped: 0 });
  });

  it("matches by natural key when no id is given, and updates what changed", async () => {
    const changed = { ...items[0], target_column: "gender_source_value", confidence: 0.95 };
    const r = await h.request("POST", sync("schema-mappings", "/bulk"), { body: { items: [changed] } });
    expect(counts(r)).toEqual({ created: 0, updated: 1, unchanged: 0, skipped: 0 });
    const id = (r.json as Summary).items[0]!.id as string;
    const item = await h.request("GET", itemPath(h, "schema", id));
    expect(item.json).toMatchObject({ target_column: "gender_source_value", confidence: 0.95, version: 2 });
  });

  it("never overwrites a review decision unless forced, and reports the skipped items", async () => {
    const pull = (await h.request("GET", sync("schema-mappings"))).json as {
      items: { id: string; source_column: string }[];
    };
    const dobId = pull.items.find((i) => i.source_column === "dob")!.id;
    await h.request("POST", `${itemPath(h, "schema", dobId)}/override`, {
      body: { target_table: "person", target_column: "year_of_birth" },
    });

    const again = await h.request("POST", sync("schema-mappings", "/bulk"), { body: { items: [items[1]] } });
    expect(again.json).toEqual({
      created: 0,
      updated: 0,
      unchanged: 0,
      skipped: 1,
      items: [
        {
          index: 0,
          id: dobId,
          result: "skipped",
          reason: "reviewed item; push with ?force=true to overwrite the decision",
        },
      ],
    });
    expect((await h.request("GET", itemPath(h, "schema", dobId))).json).toMatchObject({
      status: "overridden",
      target_column: "year_of_birth",
    });

    const forced = await h.request("POST", `${sync("schema-mappings", "/bulk")}?force=true`, {
      body: { items: [items[1]] },
    });
    expect(counts(forced)).toEqual({ created: 0, updated: 1, unchanged: 0, skipped: 0 });
    const after = (await h.request("GET", itemPath(h, "schema", dobId))).json;
    expect(after).toMatchObject({
      status: "auto_accepted",
      target_column: "birth_datetime",
      reviewed_at: null,
    });
    const history = (await h.request("GET", `${itemPath(h, "schema", dobId)}/history`)).json as {
      events: { action: string }[];
    };
    expect(history.events.map((e) => e.action)).toEqual(["push_create", "override", "push_update"]);
  });

  it("skips an item whose id is new but whose natural key belongs to another item", async () => {
    const r = await h.request("POST", sync("schema-mappings", "/bulk"), {
      body: { items: [{ id: "sm_dup", source_table: "visits", source_column: "start" }] },
    });
    expect(r.json).toEqual({
      created: 0,
      updated: 0,
      unchanged: 0,
      skipped: 1,
      items: [
        {
          index: 0,
          id: "sm_dup",
          result: "skipped",
          reason: 'natural key (source_table, source_column) = ["visits","start"] belongs to item sm_fixed',
        },
      ],
    });
  });

  it("a push with an invalid item is refused whole, with the item's index in loc", async () => {
    const r = await h.request("POST", sync("schema-mappings", "/bulk"), {
      body: {
        items: [{ source_column: "ok_new" }, { source_table: "t" }, { source_column: "c", status: "done" }],
      },
    });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      detail: [
        { loc: ["body", "items", 1, "source_column"], msg: "field required", type: "value_error.missing" },
        {
          loc: ["body", "items", 2, "status"],
          msg: "value is not a valid enumeration member; permitted: 'auto_accepted', 'needs_review', 'approved', 'rejected', 'overridden', 'unmapped'",
          type: "type_error.enum",
        },
      ],
    });
    const pull = (await h.request("GET", sync("schema-mappings"))).json as {
      items: { source_column: string }[];
    };
    expect(pull.items.some((i) => i.source_column === "ok_new")).toBe(false);
  });

  it("pull pages with limit and offset; total counts them all", async () => {
    const r = await h.request("GET", `${sync("schema-mappings")}?limit=1&offset=1`);
    const body = r.json as { items: unknown[]; total: number };
    expect(body.items).toHaveLength(1);
    expect(body.total).toBe(3);
  });
});

describe("concept mappings", () => {
  const items = [
    {
      source_column: "sex",
      source_code: "M",
      source_description: "Male",
      target_concept_id: 8507,
      target_concept_name: "MALE",
      target_vocabulary_id: "Gender",
      confidence: 0.9,
    },
    {
      source_column: "sex",
      source_code: "F",
      source_description: "Female",
      confidence: 0.4,
      method: "unmapped",
    },
  ];

  it("push twice: created then unchanged; defaults method review; pull returns them", async () => {
    const first = await h.request("POST", sync("concept-mappings", "/bulk"), { body: { items } });
    expect(counts(first)).toEqual({ created: 2, updated: 0, unchanged: 0, skipped: 0 });
    const second = await h.request("POST", sync("concept-mappings", "/bulk"), { body: { items } });
    expect(counts(second)).toEqual({ created: 0, updated: 0, unchanged: 2, skipped: 0 });
    const pull = (await h.request("GET", sync("concept-mappings"))).json as {
      items: Record<string, unknown>[];
      total: number;
    };
    expect(pull.total).toBe(2);
    const m = pull.items.find((i) => i.source_code === "M")!;
    expect(withoutTimes(m)).toEqual({
      id: m.id,
      ...items[0],
      method: "review",
      version: 1,
      source_vocabulary_id: null,
      source_frequency: null,
      equivalence: null,
      comment: null,
      revalidation: null,
      candidates: null,
    });
    expect(pull.items.find((i) => i.source_code === "F")).toMatchObject({
      method: "unmapped",
      target_concept_id: null,
    });
  });

  it("a reviewed concept item is skipped unless forced", async () => {
    const pull = (await h.request("GET", sync("concept-mappings"))).json as {
      items: { id: string; source_code: string }[];
    };
    const m = pull.items.find((i) => i.source_code === "M")!.id;
    await h.request("POST", `${itemPath(h, "concept", m)}/approve`);
    const changed = [{ ...items[0], target_concept_id: 8532 }];
    expect(
      counts(await h.request("POST", sync("concept-mappings", "/bulk"), { body: { items: changed } })),
    ).toEqual({
      created: 0,
      updated: 0,
      unchanged: 0,
      skipped: 1,
    });
    const forced = await h.request("POST", `${sync("concept-mappings", "/bulk")}?force=true`, {
      body: { items: changed },
    });
    expect(counts(forced)).toEqual({ created: 0, updated: 1, unchanged: 0, skipped: 0 });
  });
});

it("sync needs a key with access: read may pull, only write may push", async () => {
  const read = await h.key("read");
  expect((await h.request("GET", sync("schema-mappings"), { key: read })).status).toBe(200);
  const push = await h.request("POST", sync("schema-mappings", "/bulk"), { key: read, body: { items: [] } });
  expect(push.status).toBe(403);
  expect((await h.request("GET", sync("schema-mappings"), { key: null })).status).toBe(401);
});
