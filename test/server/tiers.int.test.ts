// The confidence tier over real HTTP and LMDB: `min_top_score` lists (and bulk-approves by filter) the
// items whose suggestion is their first candidate scoring at least the threshold; schema items carry
// ranked candidate columns as concept items carry concepts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, itemPath, seedConcept, startHarness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const cand = (concept_id: number, score: number | null) => ({
  concept_id,
  concept_name: `c${concept_id}`,
  vocabulary_id: "SNOMED",
  domain_id: "Condition",
  score,
});
const concept = (id: string, target: number | null, candidates: object[] | null, extra: object = {}) => ({
  id,
  source_column: "dx",
  source_code: id,
  target_concept_id: target,
  target_concept_name: target === null ? null : `c${target}`,
  target_vocabulary_id: target === null ? null : "SNOMED",
  confidence: 0.99,
  method: "review",
  ...(candidates === null ? {} : { candidates }),
  ...extra,
});

const ids = async (path: string) =>
  ((await h.request("GET", path)).json as { items: { id: string }[] }).items.map((i) => i.id);

describe("the confidence tier filter", () => {
  beforeAll(async () => {
    await seedConcept(h, [
      concept("t1", 1, [cand(1, 0.95), cand(2, 0.5)]),
      concept("t2", 1, [cand(1, 0.9)]),
      concept("t3", 1, [cand(1, 0.85)]),
      concept("t4", 7, [cand(1, 0.97)]), // its suggestion is not the top candidate
      concept("t5", 1, null), // no candidates: only its confidence (0.99)
      concept("t6", 1, [cand(1, null)]), // a candidate without a score
      concept("t7", 1, [cand(1, 0.99)], { method: "auto" }), // decided
      concept("t8", 1, []), // ranked, nothing found
    ]);
  });

  it("lists the items whose first candidate is their suggestion and scores at least the threshold", async () => {
    const base = `/v1/projects/${h.projectId}/concept-mapping`;
    expect(await ids(`${base}?min_top_score=0.9`)).toEqual(["t1", "t2", "t7"]);
    expect(await ids(`${base}?min_top_score=0.9&needs_review=true`)).toEqual(["t1", "t2"]);
    expect(await ids(`${base}?min_top_score=0&needs_review=true`)).toEqual(["t1", "t2", "t3"]);
    const bad = await h.request("GET", `${base}?min_top_score=high`);
    expect(bad.status).toBe(422);
  });

  it("bulk-approves by the same filter, each an audited approval", async () => {
    const r = await h.request("POST", `/v1/projects/${h.projectId}/concept-mapping/bulk`, {
      body: { filter: { needs_review: true, min_top_score: 0.9 }, action: "approve" },
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      applied: 2,
      failed: 0,
      results: [
        { id: "t1", status: 200 },
        { id: "t2", status: 200 },
      ],
    });
    for (const id of ["t1", "t2"]) {
      expect((await h.request("GET", itemPath(h, "concept", id))).json).toMatchObject({
        method: "auto",
        version: 2,
      });
      const events = (await h.request("GET", `${itemPath(h, "concept", id)}/history`)).json as {
        events: { action: string }[];
      };
      expect(events.events.map((e) => e.action)).toEqual(["push_create", "approve"]);
    }
    expect((await h.request("GET", itemPath(h, "concept", "t3"))).json).toMatchObject({ version: 1 });
  });
});

describe("candidates on schema items", () => {
  const column = (target_table: string, target_column: string, score: number) => ({
    target_table,
    target_column,
    score,
  });
  const push = (items: object[]) =>
    h.request("POST", `/api/v1/sync/projects/${h.projectId}/schema-mappings/bulk`, { body: { items } });

  it("are stored as pushed, presented, kept by a push that leaves them out, and tiered", async () => {
    const candidates = [column("person", "birth_datetime", 0.82), column("person", "year_of_birth", 0.6)];
    const r = await push([
      {
        source_table: "patients",
        source_column: "dob",
        target_table: "person",
        target_column: "birth_datetime",
        confidence: 0.82,
        candidates,
      },
      {
        source_table: "patients",
        source_column: "mrn",
        candidates: [{ target_table: "person", target_column: "person_source_value" }],
      },
    ]);
    expect(r.json).toMatchObject({ created: 2 });
    const base = `/v1/projects/${h.projectId}/schema-mapping`;
    const list = (await h.request("GET", `${base}?q=patients`)).json as {
      items: { id: string; source_column: string; candidates: unknown }[];
    };
    const dob = list.items.find((i) => i.source_column === "dob")!;
    expect(dob.candidates).toEqual(candidates);
    expect(list.items.find((i) => i.source_column === "mrn")!.candidates).toEqual([
      { target_table: "person", target_column: "person_source_value", score: null },
    ]);
    expect(
      (
        await push([
          {
            source_table: "patients",
            source_column: "dob",
            target_table: "person",
            target_column: "birth_datetime",
            confidence: 0.82,
            comment: "x",
          },
        ])
      ).json,
    ).toMatchObject({ updated: 1 });
    expect(
      ((await h.request("GET", itemPath(h, "schema", dob.id))).json as { candidates: unknown }).candidates,
    ).toEqual(candidates);
    expect(await ids(`${base}?min_top_score=0.8&needs_review=true`)).toEqual([dob.id]);
    expect(await ids(`${base}?min_top_score=0.9`)).toEqual([]);
    const tooMany = await push([
      {
        source_column: "x",
        candidates: Array.from({ length: 51 }, () => column("person", "person_id", 0.1)),
      },
    ]);
    expect(tooMany.status).toBe(422);
  });
});
