// Cross-mapping over real HTTP and real LMDB: the spec's example, tracked runs and history, caller crossmaps,
// exact 64-bit ids, per-record issues, and every error status with its body.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ maxRecords: 3, recordBodyLimitBytes: 4096 });
});
afterAll(() => h.stop());

const spec = {
  source_standard: "omop_cdm_v5.4",
  target_standard: "fhir_r4",
  source_entity: "person",
  records: [{ person_id: 1, gender_concept_id: 8507 }],
};
const CUSTOM =
  "source: s\ntarget: t\nentity_map: {e: T}\nfield_map:\n  e.big: {target: T.big}\n  e.id: {target: T.id, transform: str}\n";

describe("POST /api/v1/cross-mapping/map", () => {
  it("maps the spec's example", async () => {
    const r = await h.request("POST", "/api/v1/cross-mapping/map", { body: spec });
    expect(r.status).toBe(200);
    const body = r.json as Record<string, unknown>;
    expect(body).toMatchObject({
      source_standard: "omop_cdm_v5.4",
      target_standard: "fhir_r4",
      source_entity: "person",
      target_entity: "Patient",
      total: 1,
      issues: [],
    });
    expect((body.results as Record<string, unknown>[])[0]).toMatchObject({ id: "1", gender: "male" });
    expect(body.run_id).toBeUndefined();
  });
  it("keeps 64-bit integers digit for digit, in and out", async () => {
    const raw = `{"source_standard":"s","target_standard":"t","source_entity":"e","crossmap":${JSON.stringify(CUSTOM)},"records":[{"id":1741351032930224901,"big":9007199254740993}]}`;
    const r = await h.request("POST", "/api/v1/cross-mapping/map", { body: raw });
    expect(r.status).toBe(200);
    expect(r.text).toContain('"results":[{"big":9007199254740993,"id":"1741351032930224901"}]');
  });
  it("reports values that cannot be mapped per record, and still maps the others", async () => {
    const records = [
      { person_id: 1, gender_concept_id: 8532 },
      { person_id: 2, gender_concept_id: "abc" },
    ];
    const r = await h.request("POST", "/api/v1/cross-mapping/map", { body: { ...spec, records } });
    expect(r.status).toBe(200);
    const body = r.json as { results: Record<string, unknown>[]; issues: Record<string, unknown>[] };
    expect(body.results.map((x) => x.id)).toEqual(["1", "2"]);
    expect(body.results[1]?.gender).toBeUndefined();
    expect(body.issues).toEqual([
      expect.objectContaining({
        record: 1,
        field: "person.gender_concept_id",
        code: "unmapped_value",
        value: "abc",
      }),
      // Patient.gender is required by the crossmap: a value that converts to nothing leaves it missing.
      expect.objectContaining({
        record: 1,
        field: "person.gender_concept_id",
        target: "Patient.gender",
        code: "missing_required",
        message: "required field person.gender_concept_id gave no value",
      }),
      // The same column's lossless carrier (the omop-gender extension) reports it too, at its own target.
      expect.objectContaining({
        record: 1,
        field: "person.gender_concept_id",
        target: "Patient.extension[+]",
        code: "invalid_value",
        message: '"abc" is not a concept id',
      }),
    ]);
  });
  it("uses a crossmap sent as YAML, and reports its load errors as 422 entries pointing into it", async () => {
    const crossmap =
      "source: x\ntarget: y\nentity_map: {a: B}\nfield_map: {a.f: {target: B.f, transform: nope}}";
    const body = { source_standard: "x", target_standard: "y", source_entity: "a", records: [], crossmap };
    const r = await h.request("POST", "/api/v1/cross-mapping/map", { body });
    expect(r.status).toBe(422);
    const detail = (r.json as { detail: { loc: unknown[]; msg: string; type: string }[] }).detail;
    expect(detail).toHaveLength(1);
    expect(detail[0]?.loc).toEqual(["body", "crossmap", "field_map", "a.f", "transform"]);
    expect(detail[0]?.msg).toMatch(/^line 4, column 43: unknown transform "nope"/);
    expect(detail[0]?.type).toBe("value_error.crossmap.unknown_transform");
  });
  it("422 when the sent crossmap is for other standards than the request says", async () => {
    const body = {
      source_standard: "s",
      target_standard: "fhir_r4",
      source_entity: "e",
      records: [],
      crossmap: CUSTOM,
    };
    const r = await h.request("POST", "/api/v1/cross-mapping/map", { body });
    expect(r.json).toEqual({
      detail: [
        {
          loc: ["body", "target_standard"],
          msg: 'does not match the crossmap\'s target "t"',
          type: "value_error.crossmap.mismatch",
        },
      ],
    });
  });
  it("takes the command line's short names for the standards (fhir, omop), and answers with the ids", async () => {
    const r = await h.request("POST", "/api/v1/cross-mapping/map", {
      body: { ...spec, source_standard: "omop", target_standard: "FHIR" },
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ source_standard: "omop_cdm_v5.4", target_standard: "fhir_r4", total: 1 });
    const ambiguous = await h.request("POST", "/api/v1/cross-mapping/map", {
      body: { ...spec, source_standard: "o" },
    });
    expect(ambiguous.status).toBe(404);
    expect((ambiguous.json as { detail: string }).detail).toMatch(/^No crossmap from o to fhir_r4\./);
  });
  it("404 naming both standards for an unknown pair", async () => {
    const r = await h.request("POST", "/api/v1/cross-mapping/map", {
      body: { ...spec, target_standard: "cda_r2" },
    });
    expect(r.status).toBe(404);
    expect((r.json as { detail: string }).detail).toMatch(/^No crossmap from omop_cdm_v5.4 to cda_r2\./);
  });
  it("422 for an unknown source entity, missing fields and records that are not an array", async () => {
    let r = await h.request("POST", "/api/v1/cross-mapping/map", {
      body: { ...spec, source_entity: "visit" },
    });
    expect(r.status).toBe(422);
    expect((r.json as { detail: { loc: unknown[]; type: string }[] }).detail[0]).toMatchObject({
      loc: ["body", "source_entity"],
      type: "value_error.unknown_entity",
    });
    r = await h.request("POST", "/api/v1/cross-mapping/map", { body: {} });
    expect(r.json).toEqual({
      detail: ["source_standard", "target_standard", "source_entity", "records"].map((f) => ({
        loc: ["body", f],
        msg: "field required",
        type: "value_error.missing",
      })),
    });
    r = await h.request("POST", "/api/v1/cross-mapping/map", { body: { ...spec, records: { a: 1 } } });
    expect(r.json).toEqual({
      detail: [{ loc: ["body", "records"], msg: "value is not a valid list", type: "type_error.list" }],
    });
    r = await h.request("POST", "/api/v1/cross-mapping/map", { body: "{not json" });
    expect(r.status).toBe(422);
  });
  it("413 naming the limit for too many records and for a body over the size limit", async () => {
    const records = [1, 2, 3, 4].map((i) => ({ person_id: i }));
    let r = await h.request("POST", "/api/v1/cross-mapping/map", { body: { ...spec, records } });
    expect(r.status).toBe(413);
    expect(r.json).toEqual({ detail: "Too many records: 4; the limit is 3 per call" });
    r = await h.request("POST", "/api/v1/cross-mapping/map", {
      body: { ...spec, records: [{ x: "y".repeat(5000) }] },
    });
    expect(r.status).toBe(413);
    expect(r.json).toEqual({ detail: "Request body is larger than the limit of 4096 bytes" });
  });
  it("401 without a valid key", async () => {
    const r = await h.request("POST", "/api/v1/cross-mapping/map", { body: spec, key: null });
    expect(r.status).toBe(401);
    expect(r.headers.get("www-authenticate")).toBe("Bearer");
    expect((await h.request("GET", "/api/v1/cross-mapping", { key: "cmk_wrong" })).status).toBe(401);
  });
});

describe("project runs", () => {
  it("records two runs and lists them newest first, completed, with counts and zone-less timestamps", async () => {
    const writer = await h.key("write");
    const path = `/api/v1/cross-mapping/projects/${h.projectId}/map`;
    const first = await h.request("POST", path, { body: spec, key: writer });
    expect(first.status).toBe(200);
    const records = [
      { person_id: 2, gender_concept_id: 8532 },
      { person_id: 3, gender_concept_id: "x" },
    ];
    const second = await h.request("POST", path, { body: { ...spec, records }, key: writer });
    const firstId = (first.json as { run_id: string }).run_id;
    const secondId = (second.json as { run_id: string }).run_id;
    expect((second.json as { total: number }).total).toBe(2);

    const reader = await h.key("read");
    const hist = await h.request("GET", `/api/v1/cross-mapping/projects/${h.projectId}`, { key: reader });
    expect(hist.status).toBe(200);
    const body = hist.json as { runs: Record<string, unknown>[]; total: number };
    expect(body.total).toBe(2);
    const common = {
      source_standard: "omop_cdm_v5.4",
      target_standard: "fhir_r4",
      source_entity: "person",
      target_entity: "Patient",
      status: "completed",
      crossmap_file: "omop_cdm_v5.4-to-fhir_r4.yaml",
      // A project without concept items; a server without a vocabulary.
      decision_snapshot: {
        items: 0,
        sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        unreviewed: "ignore",
      },
      vocabulary_release: null,
    };
    expect(body.runs).toEqual([
      {
        id: secondId,
        ...common,
        record_count: 2,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
        issue_count: 3,
      },
      {
        id: firstId,
        ...common,
        record_count: 1,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
        issue_count: 0,
      },
    ]);
    const page = await h.request("GET", `/api/v1/cross-mapping/projects/${h.projectId}?limit=1&offset=1`, {
      key: reader,
    });
    expect(page.json).toEqual({ runs: [body.runs[1]], total: 2 });
  });
  it("a caller crossmap is recorded with crossmap_file null, and runs survive a restart", async () => {
    const path = `/api/v1/cross-mapping/projects/${h.projectId}/map`;
    const body = {
      source_standard: "s",
      target_standard: "t",
      source_entity: "e",
      records: [{ id: 1 }],
      crossmap: CUSTOM,
    };
    const r = await h.request("POST", path, { body });
    expect(r.status).toBe(200);
    await h.restart();
    const hist = await h.request("GET", `/api/v1/cross-mapping/projects/${h.projectId}`);
    const runs = (hist.json as { runs: Record<string, unknown>[] }).runs;
    expect(runs[0]).toMatchObject({
      id: (r.json as { run_id: string }).run_id,
      source_standard: "s",
      target_entity: "T",
      crossmap_file: null,
    });
  });
  it("records a run asked for with short names under the standards' ids", async () => {
    const writer = await h.key("write");
    const path = `/api/v1/cross-mapping/projects/${h.projectId}/map`;
    const body = { ...spec, source_standard: "omop", target_standard: "fhir" };
    const r = await h.request("POST", path, { body, key: writer });
    expect(r.status).toBe(200);
    const hist = await h.request("GET", `/api/v1/cross-mapping/projects/${h.projectId}?limit=1`);
    expect((hist.json as { runs: Record<string, unknown>[] }).runs[0]).toMatchObject({
      id: (r.json as { run_id: string }).run_id,
      source_standard: "omop_cdm_v5.4",
      target_standard: "fhir_r4",
    });
  });
  it("needs write access to record and read access for history; 404 for an unknown project", async () => {
    const reader = await h.key("read");
    const r = await h.request("POST", `/api/v1/cross-mapping/projects/${h.projectId}/map`, {
      body: spec,
      key: reader,
    });
    expect(r.status).toBe(403);
    const other = await h.key("read", "another-project");
    expect(
      (await h.request("GET", `/api/v1/cross-mapping/projects/${h.projectId}`, { key: other })).status,
    ).toBe(403);
    const missing = await h.request("GET", "/api/v1/cross-mapping/projects/nope");
    expect(missing.status).toBe(404);
  });
});

describe("GET /api/v1/cross-mapping", () => {
  it("lists the built-in crossmaps for any valid key", async () => {
    const key = await h.key("read");
    const r = await h.request("GET", "/api/v1/cross-mapping", { key });
    expect(r.status).toBe(200);
    const body = r.json as { crossmaps: Record<string, unknown>[]; total: number };
    expect(body.total).toBe(body.crossmaps.length);
    expect(body.crossmaps).toContainEqual(
      expect.objectContaining({
        source: "omop_cdm_v5.4",
        target: "fhir_r4",
        file: "omop_cdm_v5.4-to-fhir_r4.yaml",
      }),
    );
    expect(Object.keys(body.crossmaps[0] ?? {})).toEqual([
      "source",
      "target",
      "file",
      "entity_map",
      "field_count",
    ]);
  });
});

describe("with the vocabulary bridge", () => {
  it("serves vocabulary_lookup in map calls", async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join, resolve } = await import("node:path");
    const { buildVocabulary } = await import("../../src/vocab/build.js");
    const { MapPool } = await import("../../src/server/map-pool.js");
    const dir = mkdtempSync(join(tmpdir(), "xm-vocab-"));
    await buildVocabulary({ sourceDir: resolve("vocab"), outDir: join(dir, "index") });
    const mapPool = new MapPool({ workers: 1, job: { maxRecords: 10, vocab: join(dir, "index") } });
    const v = await startHarness({ mapPool });
    try {
      const crossmap =
        "source: s\ntarget: t\nentity_map: {e: T}\nfield_map:\n  e.c: {target: T.code, transform: vocabulary_lookup}\n";
      const body = {
        source_standard: "s",
        target_standard: "t",
        source_entity: "e",
        records: [{ c: 8507 }, { c: 1 }],
        crossmap,
      };
      const r = await v.request("POST", "/api/v1/cross-mapping/map", { body });
      expect(r.status).toBe(200);
      const out = r.json as { results: Record<string, unknown>[]; issues: Record<string, unknown>[] };
      expect(out.results[0]?.code).toEqual({
        coding: [
          { system: "https://fhir-terminology.ohdsi.org/CodeSystem/omop-gender", code: "M", display: "MALE" },
        ],
        text: "MALE",
      });
      expect(out.issues).toEqual([expect.objectContaining({ record: 1, code: "concept_not_found" })]);
    } finally {
      await v.stop();
      await mapPool.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("records that produce several target records, or none (crossmap language)", () => {
  const FANOUT = `source: s
target: t
entity_map:
  obs:
    - {target: M, when: {field: v, present: true}}
    - {target: C, for_each: parts}
field_map:
  obs.v: {target: M.v}
  obs.parts[*].x: {target: C.x}
`;
  it("keeps one entry per record: the record, a list, or null; names their entities and counts them", async () => {
    const body = {
      source_standard: "s",
      target_standard: "t",
      source_entity: "obs",
      crossmap: FANOUT,
      records: [{ v: 1 }, { v: 2, parts: [{ x: "a" }, { x: "b" }] }, {}],
    };
    const r = await h.request("POST", "/api/v1/cross-mapping/map", { body });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      results: [{ v: 1 }, [{ v: 2 }, { x: "a" }, { x: "b" }], null],
      source_standard: "s",
      target_standard: "t",
      source_entity: "obs",
      target_entity: "M,C",
      total: 3,
      result_entities: ["M", ["M", "C", "C"], null],
      produced: 4,
      issues: [],
    });
  });
  it("a project run of an entity that routes names every target entity it may produce", async () => {
    const body = {
      source_standard: "s",
      target_standard: "t",
      source_entity: "obs",
      crossmap: FANOUT,
      records: [{ v: 1 }],
    };
    const r = await h.request("POST", `/api/v1/cross-mapping/projects/${h.projectId}/map`, { body });
    expect(r.status).toBe(200);
    const runId = (r.json as { run_id: string }).run_id;
    const hist = await h.request("GET", `/api/v1/cross-mapping/projects/${h.projectId}`);
    const run = (hist.json as { runs: Record<string, unknown>[] }).runs.find((x) => x.id === runId);
    expect(run).toMatchObject({ source_entity: "obs", target_entity: "M,C", record_count: 1 });
  });
  it("takes parameter values in the body, and refuses parameters the crossmap does not declare", async () => {
    const crossmap =
      "source: s\ntarget: t\nentity_map: {e: T}\nparameters:\n  lang: {default: en}\nfield_map:\n  e.$param.lang: {target: T.language}\n";
    const body = { source_standard: "s", target_standard: "t", source_entity: "e", crossmap, records: [{}] };
    const ok = await h.request("POST", "/api/v1/cross-mapping/map", {
      body: { ...body, parameters: { lang: "de" } },
    });
    expect((ok.json as { results: unknown[] }).results).toEqual([{ language: "de" }]);
    const bad = await h.request("POST", "/api/v1/cross-mapping/map", {
      body: { ...body, parameters: { lng: "de" } },
    });
    expect(bad.status).toBe(422);
    expect(bad.json).toEqual({
      detail: [
        {
          loc: ["body", "parameters", "lng"],
          msg: 'the crossmap has no parameter "lng"',
          type: "value_error.crossmap.unknown_parameter",
        },
      ],
    });
  });
});
