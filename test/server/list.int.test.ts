// Listing items with filters and pagination.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, seedConcept, seedSchema, startHarness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await seedSchema(
    h,
    [0.1, 0.5, 0.7, 0.9, null].map((confidence, i) => ({
      id: `s${i}`,
      source_table: "t",
      source_column: `c${i}`,
      target_table: "person",
      target_column: "x",
      confidence,
      status: i === 3 ? "auto_accepted" : undefined,
    })),
  );
  await seedConcept(h, [
    { id: "k1", source_code: "a", method: "auto", confidence: 0.99 },
    { id: "k2", source_code: "b" },
  ]);
});
afterAll(() => h.stop());

const ids = (r: { json: unknown }) => (r.json as { items: { id: string }[] }).items.map((i) => i.id);
const list = (q: string, kind = "schema") =>
  h.request("GET", `/v1/projects/${h.projectId}/${kind}-mapping${q}`);

it("lists every item in id order with total, limit and offset", async () => {
  const r = await list("");
  expect(r.status).toBe(200);
  expect(ids(r)).toEqual(["s0", "s1", "s2", "s3", "s4"]);
  expect(r.json).toMatchObject({ total: 5, limit: 100, offset: 0 });
});

it("filters by status and by an inclusive confidence range, and pages the filtered set", async () => {
  expect(ids(await list("?status=needs_review"))).toEqual(["s0", "s1", "s2", "s4"]);
  expect(ids(await list("?min_confidence=0.5&max_confidence=0.9"))).toEqual(["s1", "s2", "s3"]);
  const page = await list("?status=needs_review&limit=2&offset=1");
  expect(ids(page)).toEqual(["s1", "s2"]);
  expect(page.json).toMatchObject({ total: 4, limit: 2, offset: 1 });
});

it("filters concept items by method", async () => {
  expect(ids(await list("?method=review", "concept"))).toEqual(["k2"]);
});

it("rejects bad query values with 422 entries located in the query", async () => {
  const r = await list("?status=maybe&limit=0&offset=x");
  expect(r.status).toBe(422);
  expect(r.json).toEqual({
    detail: [
      {
        loc: ["query", "status"],
        msg: "value is not a valid enumeration member; permitted: 'auto_accepted', 'needs_review', 'approved', 'rejected', 'overridden', 'unmapped'",
        type: "type_error.enum",
      },
      {
        loc: ["query", "limit"],
        msg: "ensure this value is greater than or equal to 1",
        type: "value_error.number.not_ge",
      },
      { loc: ["query", "offset"], msg: "value is not a valid integer", type: "type_error.integer" },
    ],
  });
});

describe("workbench listing", () => {
  let p: string;
  const seed = async (items: object[]) => {
    const r = await h.request("POST", `/api/v1/sync/projects/${p}/concept-mappings/bulk`, {
      body: { items },
    });
    expect(r.status).toBe(200);
  };
  const clist = (q: string) => h.request("GET", `/v1/projects/${p}/concept-mapping${q}`);

  beforeAll(async () => {
    const created = await h.request("POST", "/api/v1/projects", { body: { name: "listing" } });
    p = (created.json as { id: string }).id;
    await seed([
      {
        id: "a",
        source_code: "GLU",
        source_description: "Glucose, sérum",
        confidence: 0.9,
        source_frequency: 50,
      },
      { id: "b", source_code: "NA", source_description: "Sodium", confidence: 0.4, source_frequency: 500 },
      { id: "c", source_code: "K", source_description: "Potassium", confidence: null, method: "auto" },
      {
        id: "d",
        source_code: "MENIERE",
        source_description: "Ménière's disease",
        confidence: 0.9,
        method: "unmapped",
      },
      {
        id: "e",
        source_code: "HB",
        target_concept_name: "Hemoglobin [Mass/volume] in Blood",
        confidence: 0.7,
        method: "override",
        source_frequency: 10,
      },
    ]);
  });

  it("takes a comma list or a repeated parameter of methods, and needs_review", async () => {
    expect(ids(await clist("?method=auto,unmapped"))).toEqual(["c", "d"]);
    expect(ids(await clist("?method=auto&method=override"))).toEqual(["c", "e"]);
    expect(ids(await clist("?needs_review=true"))).toEqual(["a", "b"]);
    expect(ids(await clist("?needs_review=false&min_confidence=0.8"))).toEqual(["d"]);
  });

  it("searches source fields and target names without case or accents", async () => {
    expect(ids(await clist("?q=SERUM"))).toEqual(["a"]);
    expect(ids(await clist("?q=meniere"))).toEqual(["d"]);
    expect(ids(await clist("?q=M%C3%89NI%C3%88RE"))).toEqual(["d"]);
    expect(ids(await clist("?q=hemoglobin"))).toEqual(["e"]);
    expect(ids(await clist("?q=nothing-like-this"))).toEqual([]);
  });

  it("sorts by confidence and by source frequency either way, missing values last, ties in id order", async () => {
    expect(ids(await clist("?sort=-confidence"))).toEqual(["a", "d", "e", "b", "c"]);
    expect(ids(await clist("?sort=confidence"))).toEqual(["b", "e", "a", "d", "c"]);
    expect(ids(await clist("?sort=-source_frequency"))).toEqual(["b", "a", "e", "c", "d"]);
    const page = await clist("?sort=-confidence&limit=2&offset=1");
    expect(ids(page)).toEqual(["d", "e"]);
    expect(page.json).toMatchObject({ total: 5, limit: 2, offset: 1 });
  });

  it("sees a decision made since the last listing", async () => {
    expect(ids(await clist("?needs_review=true"))).toEqual(["a", "b"]);
    expect((await h.request("POST", `/v1/projects/${p}/concept-mapping/a/reject`)).status).toBe(200);
    expect(ids(await clist("?needs_review=true"))).toEqual(["b"]);
    await seed([{ id: "0first", source_code: "NEW" }]);
    expect(ids(await clist("?needs_review=true"))).toEqual(["0first", "b"]);
  });

  it("refuses unknown parameters and values of the wrong kind, each located in the query", async () => {
    const r = await clist("?methd=auto&sort=source_frequency_desc&method=auto,maybe&needs_review=yes");
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      detail: [
        {
          loc: ["query", "method"],
          msg: "value is not a valid enumeration member; permitted: 'auto', 'review', 'manual', 'override', 'unmapped'",
          type: "type_error.enum",
        },
        {
          loc: ["query", "needs_review"],
          msg: "value is not a valid enumeration member; permitted: 'true', 'false'",
          type: "type_error.enum",
        },
        {
          loc: ["query", "sort"],
          msg: "value is not a valid enumeration member; permitted: 'id', 'confidence', '-confidence', 'updated_at', '-updated_at', 'source_frequency', '-source_frequency'",
          type: "type_error.enum",
        },
        { loc: ["query", "methd"], msg: "extra fields not permitted", type: "value_error.extra" },
      ],
    });
    const schema = await h.request("GET", `/v1/projects/${p}/schema-mapping?sort=source_frequency`);
    expect(schema.status).toBe(422);
    expect((schema.json as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(["query", "sort"]);
  });
});

describe("stats", () => {
  it("counts per method, the share reviewed and the source frequency covered", async () => {
    const created = await h.request("POST", "/api/v1/projects", { body: { name: "stats" } });
    const p = (created.json as { id: string }).id;
    await h.request("POST", `/api/v1/sync/projects/${p}/concept-mappings/bulk`, {
      body: {
        items: [
          { id: "x1", source_code: "1", target_concept_id: 1, source_frequency: 300 },
          { id: "x2", source_code: "2", target_concept_id: 2, source_frequency: 100 },
          { id: "x3", source_code: "3", source_frequency: 100 },
          { id: "x4", source_code: "4" },
        ],
      },
    });
    await h.request("POST", `/v1/projects/${p}/concept-mapping/x1/approve`);
    await h.request("POST", `/v1/projects/${p}/concept-mapping/x3/reject`);
    const r = await h.request("GET", `/v1/projects/${p}/concept-mapping/stats`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      total: 4,
      by_method: { auto: 1, review: 2, manual: 0, override: 0, unmapped: 1 },
      reviewed: 2,
      reviewed_share: 0.5,
      source_frequency_total: 500,
      covered_frequency: 300,
      coverage_share: 0.6,
    });
    const s = await h.request("GET", `/v1/projects/${p}/schema-mapping/stats`);
    expect(s.json).toEqual({
      total: 0,
      by_status: { auto_accepted: 0, needs_review: 0, approved: 0, rejected: 0, overridden: 0, unmapped: 0 },
      reviewed: 0,
      reviewed_share: 0,
      source_frequency_total: null,
      covered_frequency: null,
      coverage_share: null,
    });
  });
});
