// Listing items with filters and pagination.
import { afterAll, beforeAll, expect, it } from "vitest";
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
