// Ranked candidates on concept items over real HTTP and LMDB: pushed and kept, choosing candidate k,
// re-pushes that never touch decided items, POST .../concept-mapping/suggest against a real vocabulary
// index (the sample vocab/), and the export carrying the chosen concept.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildVocabulary } from "../../src/vocab/build.js";
import { type LmdbVocabularyBridge, openVocabulary } from "../../src/vocab/lmdb-bridge.js";
import { type Harness, itemPath, seedConcept, startHarness } from "./harness.js";

let h: Harness;
let vocabDir: string;
let vocabulary: LmdbVocabularyBridge;
beforeAll(async () => {
  vocabDir = mkdtempSync(join(tmpdir(), "candidates-vocab-"));
  await buildVocabulary({ sourceDir: "vocab", outDir: join(vocabDir, "index") });
  vocabulary = openVocabulary(join(vocabDir, "index"));
  h = await startHarness({ vocabulary });
}, 60_000);
afterAll(async () => {
  await h.stop();
  await vocabulary.close();
  rmSync(vocabDir, { recursive: true, force: true });
});

const A1C = {
  concept_id: 3004410,
  concept_name: "Hemoglobin A1c/Hemoglobin.total in Blood",
  vocabulary_id: "LOINC",
  domain_id: "Measurement",
  score: 0.93,
  match: "name",
};
const PCT = {
  concept_id: 9225,
  concept_name: "percent hemoglobin A1c",
  vocabulary_id: "UCUM",
  domain_id: "Unit",
  score: 0.91,
  match: "name",
};

const item = (code: string, extra: object = {}) => ({
  id: `cm_${code}`,
  source_column: "lab",
  source_code: code,
  source_description: "HGB A1C",
  source_vocabulary_id: "LOCAL_LAB",
  target_concept_id: 3004410,
  target_concept_name: A1C.concept_name,
  target_vocabulary_id: "LOINC",
  confidence: 0.93,
  method: "review",
  candidates: [A1C, PCT],
  ...extra,
});
const push = (items: object[]) =>
  h.request("POST", `/api/v1/sync/projects/${h.projectId}/concept-mappings/bulk`, { body: { items } });

describe("candidates on concept items", () => {
  it("are stored as pushed, and a push that leaves them out keeps them", async () => {
    const [id] = await seedConcept(h, [item("L1")]);
    const { candidates: _c, ...without } = item("L1");
    expect((await push([{ ...without, comment: "x" }])).json).toMatchObject({ updated: 1 });
    const r = await h.request("GET", itemPath(h, "concept", id!));
    expect((r.json as { candidates: unknown }).candidates).toEqual([A1C, PCT]);
  });

  it("a candidate's missing fields are null; more than 50 is a 422", async () => {
    await seedConcept(h, [item("L2", { candidates: [{ concept_id: 8507 }] })]);
    const r = await h.request("GET", itemPath(h, "concept", "cm_L2"));
    expect((r.json as { candidates: unknown }).candidates).toEqual([
      {
        concept_id: 8507,
        concept_name: null,
        vocabulary_id: null,
        domain_id: null,
        score: null,
        match: null,
      },
    ]);
    const many = Array.from({ length: 51 }, (_, i) => ({ concept_id: i + 1 }));
    expect((await push([item("L3", { candidates: many })])).status).toBe(422);
  });

  it("choosing candidate 2 makes it the target (method override), audited as choose", async () => {
    const [id] = await seedConcept(h, [item("L4")]);
    const r = await h.request("POST", `${itemPath(h, "concept", id!)}/choose`, {
      body: { candidate: 2, comment: "the unit, not the test" },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.json).toMatchObject({
      method: "override",
      target_concept_id: 9225,
      target_concept_name: "percent hemoglobin A1c",
      target_vocabulary_id: "UCUM",
      confidence: 0.93,
      comment: "the unit, not the test",
      candidates: [A1C, PCT],
      version: 2,
    });
    const hist = await h.request("GET", `${itemPath(h, "concept", id!)}/history`);
    const events = (
      hist.json as { events: { version: number; action: string; candidate?: number; after: object }[] }
    ).events;
    expect(events.map((e) => [e.version, e.action, e.candidate])).toEqual([
      [1, "push_create", undefined],
      [2, "choose", 2],
    ]);
    expect(events[1]!.after).toMatchObject({ method: "override", target_concept_id: 9225 });
  });

  it("choosing candidate 1 approves the suggestion (method auto)", async () => {
    const [id] = await seedConcept(h, [item("L5")]);
    const r = await h.request("POST", `${itemPath(h, "concept", id!)}/choose`, { body: { candidate: 1 } });
    expect(r.json).toMatchObject({ method: "auto", target_concept_id: 3004410 });
  });

  it("a candidate past the list is a 422, an item without candidates a 409", async () => {
    const [id] = await seedConcept(h, [item("L6")]);
    const r = await h.request("POST", `${itemPath(h, "concept", id!)}/choose`, { body: { candidate: 3 } });
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({
      detail: [{ loc: ["body", "candidate"], msg: "Concept mapping cm_L6 has 2 candidates" }],
    });
    const [bare] = await seedConcept(h, [item("L7", { candidates: null })]);
    const r2 = await h.request("POST", `${itemPath(h, "concept", bare!)}/choose`, { body: { candidate: 1 } });
    expect(r2.status).toBe(409);
    expect((r2.json as { detail: string }).detail).toBe(
      `Concept mapping cm_L7 in project ${h.projectId} has no candidates to choose from; override it instead`,
    );
  });

  it("pushing again updates items awaiting review and leaves decided ones untouched", async () => {
    await seedConcept(h, [item("L8"), item("L9")]);
    await h.request("POST", `${itemPath(h, "concept", "cm_L8")}/choose`, { body: { candidate: 2 } });
    const decided = (await h.request("GET", itemPath(h, "concept", "cm_L8"))).json;
    const again = await push([
      item("L8", { candidates: [PCT, A1C] }),
      item("L9", { candidates: [PCT, A1C] }),
    ]);
    expect(again.json).toMatchObject({
      updated: 1,
      skipped: 1,
      items: [
        {
          index: 0,
          id: "cm_L8",
          result: "skipped",
          reason: "reviewed item; push with ?force=true to overwrite the decision",
        },
        { index: 1, id: "cm_L9", result: "updated" },
      ],
    });
    expect((await h.request("GET", itemPath(h, "concept", "cm_L8"))).json).toEqual(decided);
    expect((await h.request("GET", itemPath(h, "concept", "cm_L9"))).json).toMatchObject({
      candidates: [PCT, A1C],
      version: 2,
    });
  });

  it("the export carries the chosen candidate", async () => {
    const r = await h.request(
      "GET",
      `/api/v1/projects/${h.projectId}/exports/source-to-concept-map?source_vocabulary_id=LOCAL_LAB`,
    );
    expect(r.status).toBe(200);
    const rows = r.text
      .trim()
      .split("\n")
      .filter((l) => l.startsWith("L4,") || l.startsWith("L5,"));
    expect(rows.map((l) => l.split(",").slice(0, 5))).toEqual([
      ["L4", "0", "LOCAL_LAB", "HGB A1C", "9225"],
      ["L5", "0", "LOCAL_LAB", "HGB A1C", "3004410"],
    ]);
  });
});

describe("POST .../concept-mapping/suggest", () => {
  let project: string;
  const path = () => `/v1/projects/${project}/concept-mapping/suggest`;
  beforeAll(async () => {
    const r = await h.request("POST", "/api/v1/projects", {
      body: { name: "suggest", target_model: "omop_cdm_v5.4" },
    });
    project = (r.json as { id: string }).id;
    const bare = (code: string, description: string, vocabularyId: string | null = "LOCAL_LAB") => ({
      id: `s_${code}`,
      source_column: "lab",
      source_code: code,
      source_description: description,
      source_vocabulary_id: vocabularyId,
      target_concept_id: null,
      target_concept_name: null,
      target_vocabulary_id: null,
      confidence: null,
      method: "review",
    });
    const pushed = await h.request("POST", `/api/v1/sync/projects/${project}/concept-mappings/bulk`, {
      body: {
        items: [
          bare("4548-4", "", "LOINC"),
          bare("X1", "hemoglobn a1c"),
          bare("X2", "zzqx"),
          { ...bare("X3", "glucose serum"), method: "unmapped" },
        ],
      },
    });
    expect(pushed.status).toBe(200);
    await h.request("POST", `/v1/projects/${project}/concept-mapping/s_X3/reject`);
  });

  it("ranks items without candidates, a bounded number per call, and never touches decided ones", async () => {
    const first = await h.request("POST", path(), {
      body: { limit: 2, candidates: 2, domains: ["Measurement"] },
    });
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ suggested: 2, none_found: 0, remaining: 1 });
    const second = await h.request("POST", path(), { body: {} });
    expect(second.json).toEqual({ suggested: 0, none_found: 1, remaining: 0 });
    const get = async (id: string) =>
      (await h.request("GET", `/v1/projects/${project}/concept-mapping/${id}`)).json;
    expect(await get("s_4548-4")).toMatchObject({
      target_concept_id: 3004410,
      confidence: 1,
      candidates: [{ concept_id: 3004410, score: 1, match: "code" }],
      version: 2,
    });
    expect(await get("s_X1")).toMatchObject({
      target_concept_id: 3004410,
      target_vocabulary_id: "LOINC",
      candidates: [{ concept_id: 3004410, match: "name" }, { concept_id: 3000963 }],
    });
    expect(await get("s_X2")).toMatchObject({ target_concept_id: null, candidates: [], version: 2 });
    expect(await get("s_X3")).toMatchObject({ candidates: null, method: "unmapped", version: 2 });
    const hist = await h.request("GET", `/v1/projects/${project}/concept-mapping/s_X1/history`);
    expect((hist.json as { events: { action: string }[] }).events.map((e) => e.action)).toEqual([
      "push_create",
      "suggest",
    ]);
  });

  it("is a 503 on a server without a vocabulary", async () => {
    const bare = await startHarness();
    try {
      const r = await bare.request("POST", `/v1/projects/${bare.projectId}/concept-mapping/suggest`, {
        body: {},
      });
      expect(r.status).toBe(503);
      expect((r.json as { detail: string }).detail).toBe(
        "This server has no vocabulary: start it with --vocab DIR",
      );
    } finally {
      await bare.stop();
    }
  });
});
