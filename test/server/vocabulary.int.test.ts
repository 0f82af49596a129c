// Concept search and the target models' tables over real HTTP, with a real index of the bundled sample.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildVocabulary } from "../../src/vocab/build.js";
import { type LmdbVocabularyBridge, openVocabulary } from "../../src/vocab/lmdb-bridge.js";
import { type Harness, startHarness } from "./harness.js";

let h: Harness;
let bare: Harness;
let bridge: LmdbVocabularyBridge;
const dir = mkdtempSync(join(tmpdir(), "crossmap-vocab-http-"));

beforeAll(async () => {
  await buildVocabulary({ sourceDir: resolve("vocab"), outDir: join(dir, "index") });
  bridge = openVocabulary(join(dir, "index"));
  h = await startHarness({ vocabulary: bridge });
  bare = await startHarness();
});
afterAll(async () => {
  await h.stop();
  await bare.stop();
  await bridge.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("GET /api/v1/vocabulary/concepts", () => {
  it("answers the ranked concepts, how each matched, and the count", async () => {
    const r = await h.request("GET", "/api/v1/vocabulary/concepts?q=type%202%20diab&limit=2");
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      concepts: [
        {
          concept_id: 201826,
          concept_name: "Type 2 diabetes mellitus",
          domain_id: "Condition",
          vocabulary_id: "SNOMED",
          concept_class_id: "Clinical Finding",
          standard_concept: "S",
          concept_code: "44054006",
          invalid_reason: null,
          match: "name",
        },
        {
          concept_id: 1567956,
          concept_name: "Type 2 diabetes mellitus without complications",
          domain_id: "Condition",
          vocabulary_id: "ICD10CM",
          concept_class_id: "4-char billing code",
          standard_concept: null,
          concept_code: "E11.9",
          invalid_reason: null,
          match: "name",
        },
      ],
      total: 3,
      total_relation: "eq",
    });
  });

  it("filters by vocabulary and domain (comma lists) and standard", async () => {
    const ids = async (query: string) =>
      (
        (await h.request("GET", `/api/v1/vocabulary/concepts?${query}`)).json as {
          concepts: { concept_id: number }[];
        }
      ).concepts.map((c) => c.concept_id);
    expect(await ids("q=diabetes&vocabulary_id=ICD10CM")).toEqual([1567956]);
    expect(await ids("q=diabetes&vocabulary_id=LOINC,ICD10CM&standard=true")).toEqual([]);
    expect(await ids("q=e11.9")).toEqual([1567956]);
    const drugs = await h.request("GET", "/api/v1/vocabulary/concepts?q=oral&domain_id=Drug&limit=100");
    expect(
      (drugs.json as { concepts: { domain_id: string }[] }).concepts.every((c) => c.domain_id === "Drug"),
    ).toBe(true);
  });

  it("is open to any valid key, and to no request without one", async () => {
    const read = await h.key("read");
    expect((await h.request("GET", "/api/v1/vocabulary/concepts?q=male", { key: read })).status).toBe(200);
    const none = await h.request("GET", "/api/v1/vocabulary/concepts?q=male", { key: null });
    expect(none.status).toBe(401);
  });

  it("answers 422 for a missing or blank q, a limit out of range and an unknown parameter", async () => {
    const r = await h.request("GET", "/api/v1/vocabulary/concepts?q=%20&limit=101&vocab=SNOMED");
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      detail: [
        {
          loc: ["query", "q"],
          msg: "ensure this value has at least 1 characters",
          type: "value_error.any_str.min_length",
        },
        {
          loc: ["query", "limit"],
          msg: "ensure this value is less than or equal to 100",
          type: "value_error.number.not_le",
        },
        { loc: ["query", "vocab"], msg: "extra fields not permitted", type: "value_error.extra" },
      ],
    });
    const missing = await h.request("GET", "/api/v1/vocabulary/concepts");
    expect(missing.json).toEqual({
      detail: [{ loc: ["query", "q"], msg: "field required", type: "value_error.missing" }],
    });
  });

  it("answers 503 when the server runs without a vocabulary index", async () => {
    const r = await bare.request("GET", "/api/v1/vocabulary/concepts?q=male");
    expect(r.status).toBe(503);
    expect(r.json).toEqual({
      detail: "This server has no vocabulary index; start it with crossmap serve --vocab <index-dir>",
    });
  });
});

describe("GET /api/v1/standards", () => {
  it("lists the target models the server knows", async () => {
    const r = await h.request("GET", "/api/v1/standards");
    expect(r.status).toBe(200);
    const standards = (r.json as { standards: { standard: string; entities: number }[] }).standards;
    expect(standards.map((s) => s.standard)).toEqual([
      "fhir_r4",
      "hl7v2_2.5.1",
      "omop_cdm_v5.4",
      "openehr_1.0.4",
    ]);
    expect(standards.find((s) => s.standard === "omop_cdm_v5.4")?.entities).toBeGreaterThan(30);
  });

  it("gives a model's tables and columns in definition order", async () => {
    const r = await h.request("GET", "/api/v1/standards/omop_cdm_v5.4/entities");
    expect(r.status).toBe(200);
    const body = r.json as { standard: string; entities: { name: string; fields: unknown[] }[] };
    expect(body.standard).toBe("omop_cdm_v5.4");
    expect(body.entities[0]!.name).toBe("person");
    expect(body.entities[0]!.fields.slice(0, 2)).toEqual([
      { name: "person_id", type: "integer", required: true },
      { name: "gender_concept_id", type: "integer", required: true },
    ]);
  });

  it("answers 404 naming the known models for an unknown one", async () => {
    const r = await h.request("GET", "/api/v1/standards/cda_r2/entities");
    expect(r.status).toBe(404);
    expect(r.json).toEqual({
      detail: "No definition of standard cda_r2. Known: fhir_r4, hl7v2_2.5.1, omop_cdm_v5.4, openehr_1.0.4",
    });
  });
});

it("documents the three endpoints in /openapi.json", async () => {
  const doc = (await h.request("GET", "/openapi.json", { key: null })).json as {
    paths: Record<string, Record<string, { parameters?: { name: string }[]; responses: object }>>;
  };
  const search = doc.paths["/api/v1/vocabulary/concepts"]!.get!;
  expect(search.parameters!.map((p) => p.name)).toEqual([
    "q",
    "vocabulary_id",
    "domain_id",
    "standard",
    "limit",
  ]);
  expect(Object.keys(search.responses)).toEqual(["200", "401", "422", "503"]);
  expect(doc.paths["/api/v1/standards"]?.get).toBeDefined();
  expect(doc.paths["/api/v1/standards/{standard}/entities"]?.get).toBeDefined();
});
