// The spec's state table, row by row, over real HTTP and LMDB; plus re-review, 409, ETag and history.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, itemPath, seedConcept, seedSchema, startHarness, withoutTimes } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const schemaSuggestion = (column: string) => ({
  id: `sm_${column}`,
  source_table: "patients",
  source_column: column,
  target_table: "person",
  target_column: "gender_concept_id",
  confidence: 0.87,
});

const conceptSuggestion = (code: string) => ({
  id: `cm_${code}`,
  source_column: "sex",
  source_code: code,
  source_description: "Male",
  target_concept_id: 8507,
  target_concept_name: "MALE",
  target_vocabulary_id: "Gender",
  confidence: 0.92,
  method: "review",
});

describe("schema mapping item", () => {
  it("approve -> status approved, suggested target kept, confidence unchanged", async () => {
    const [id] = await seedSchema(h, [schemaSuggestion("sex_a")]);
    const r = await h.request("POST", `${itemPath(h, "schema", id!)}/approve`);
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(withoutTimes(r.json as object)).toEqual({
      id: "sm_sex_a",
      source_table: "patients",
      source_column: "sex_a",
      target_table: "person",
      target_column: "gender_concept_id",
      confidence: 0.87,
      status: "approved",
      version: 2,
      comment: null,
      candidates: null,
    });
    expect(Object.keys(r.json as object)).toEqual([
      "id",
      "source_table",
      "source_column",
      "target_table",
      "target_column",
      "confidence",
      "status",
      "version",
      "created_at",
      "updated_at",
      "reviewed_at",
      "comment",
      "candidates",
    ]);
  });

  it("approve and reject take no body: whatever is sent is not read", async () => {
    const [id] = await seedSchema(h, [schemaSuggestion("sex_body")]);
    const r = await h.request("POST", `${itemPath(h, "schema", id!)}/approve`, { body: "{not json" });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ status: "approved", target_table: "person" });
  });

  it("reject -> status rejected, target_table and target_column null", async () => {
    const [id] = await seedSchema(h, [schemaSuggestion("sex_r")]);
    const r = await h.request("POST", `${itemPath(h, "schema", id!)}/reject`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      id: "sm_sex_r",
      target_table: null,
      target_column: null,
      confidence: 0.87,
      status: "rejected",
      version: 2,
    });
  });

  it("override -> status overridden with the body's values", async () => {
    const [id] = await seedSchema(h, [schemaSuggestion("sex_o")]);
    const r = await h.request("POST", `${itemPath(h, "schema", id!)}/override`, {
      body: { target_table: "observation", target_column: "value_as_string" },
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      target_table: "observation",
      target_column: "value_as_string",
      confidence: 0.87,
      status: "overridden",
    });
  });

  it("approving an item without a suggested target is a 409 and changes nothing", async () => {
    const [id] = await seedSchema(h, [{ id: "sm_bare", source_column: "bare", confidence: 0.1 }]);
    const r = await h.request("POST", `${itemPath(h, "schema", id!)}/approve`);
    expect(r.status).toBe(409);
    expect(r.json).toEqual({
      detail: `Schema mapping sm_bare in project ${h.projectId} has no suggested target table and column to approve; override it instead`,
    });
    const after = await h.request("GET", itemPath(h, "schema", id!));
    expect(after.json).toMatchObject({ status: "needs_review", version: 1, reviewed_at: null });
  });

  it("re-review is allowed, bumps the version and is audited in order", async () => {
    const [id] = await seedSchema(h, [schemaSuggestion("sex_rr")]);
    await h.request("POST", `${itemPath(h, "schema", id!)}/approve`);
    await h.request("POST", `${itemPath(h, "schema", id!)}/reject`);
    const r = await h.request("POST", `${itemPath(h, "schema", id!)}/override`, {
      body: { target_table: "person", target_column: "gender_source_value" },
      key: await h.key("write"),
    });
    expect(r.json).toMatchObject({ status: "overridden", version: 4 });

    const hist = await h.request("GET", `${itemPath(h, "schema", id!)}/history`);
    expect(hist.status).toBe(200);
    const events = (hist.json as { events: Record<string, unknown>[] }).events;
    expect(events.map((e) => [e.version, e.action])).toEqual([
      [1, "push_create"],
      [2, "approve"],
      [3, "reject"],
      [4, "override"],
    ]);
    const last = events[3]!;
    expect(last.before).toMatchObject({ status: "rejected", target_table: null, version: 3 });
    expect(last.after).toMatchObject({
      status: "overridden",
      target_column: "gender_source_value",
      version: 4,
    });
    expect(last.key_id).toMatch(/^key_[0-9a-f]{12}$/);
    expect(last.key_id).not.toBe(events[1]!.key_id);
    expect(typeof last.at).toBe("string");
  });
});

describe("concept mapping item", () => {
  it("approve -> method auto, target concept fields kept, confidence unchanged", async () => {
    const [id] = await seedConcept(h, [conceptSuggestion("M1")]);
    const r = await h.request("POST", `${itemPath(h, "concept", id!)}/approve`);
    expect(r.status).toBe(200);
    expect(withoutTimes(r.json as object)).toEqual({
      id: "cm_M1",
      source_column: "sex",
      source_code: "M1",
      source_description: "Male",
      target_concept_id: 8507,
      target_concept_name: "MALE",
      target_vocabulary_id: "Gender",
      confidence: 0.92,
      method: "auto",
      version: 2,
      source_vocabulary_id: null,
      source_frequency: null,
      equivalence: null,
      comment: null,
      revalidation: null,
      candidates: null,
    });
    expect(r.json).not.toHaveProperty("status");
  });

  it("reject -> method unmapped, the three target fields null", async () => {
    const [id] = await seedConcept(h, [conceptSuggestion("M2")]);
    const r = await h.request("POST", `${itemPath(h, "concept", id!)}/reject`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      method: "unmapped",
      target_concept_id: null,
      target_concept_name: null,
      target_vocabulary_id: null,
      confidence: 0.92,
    });
  });

  it("override -> method override with the body's values", async () => {
    const [id] = await seedConcept(h, [conceptSuggestion("M3")]);
    const r = await h.request("POST", `${itemPath(h, "concept", id!)}/override`, {
      body: { target_concept_id: 8532, target_concept_name: "FEMALE", target_vocabulary_id: "Gender" },
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      method: "override",
      target_concept_id: 8532,
      target_concept_name: "FEMALE",
      target_vocabulary_id: "Gender",
      confidence: 0.92,
    });
  });

  it("override with only target_concept_id clears the old name and vocabulary", async () => {
    const [id] = await seedConcept(h, [conceptSuggestion("M4")]);
    const r = await h.request("POST", `${itemPath(h, "concept", id!)}/override`, {
      body: { target_concept_id: 8551 },
    });
    expect(r.json).toMatchObject({
      method: "override",
      target_concept_id: 8551,
      target_concept_name: null,
      target_vocabulary_id: null,
    });
  });

  it("approving a concept item without a target concept is a 409", async () => {
    const [id] = await seedConcept(h, [{ id: "cm_none", source_code: "X" }]);
    const r = await h.request("POST", `${itemPath(h, "concept", id!)}/approve`);
    expect(r.status).toBe(409);
    expect(r.json).toEqual({
      detail: `Concept mapping cm_none in project ${h.projectId} has no suggested target concept to approve; override it instead`,
    });
  });
});

describe("reading items", () => {
  it("GET one item sends its version as the ETag", async () => {
    const [id] = await seedSchema(h, [schemaSuggestion("etag")]);
    const r = await h.request("GET", itemPath(h, "schema", id!));
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.json).toMatchObject({ id: "sm_etag", version: 1 });
  });

  it("If-Match with the current version is accepted, with a stale one gives 412 and no change", async () => {
    const [id] = await seedSchema(h, [schemaSuggestion("ifm")]);
    const ok = await h.request("POST", `${itemPath(h, "schema", id!)}/approve`, {
      headers: { "if-match": '"1"' },
    });
    expect(ok.status).toBe(200);
    const stale = await h.request("POST", `${itemPath(h, "schema", id!)}/reject`, {
      headers: { "if-match": '"1"' },
    });
    expect(stale.status).toBe(412);
    expect(stale.json).toEqual({
      detail: `Schema mapping sm_ifm in project ${h.projectId} is at version 2; If-Match "1" is stale, fetch the item and review again`,
    });
    const now = await h.request("GET", itemPath(h, "schema", id!));
    expect(now.json).toMatchObject({ status: "approved", version: 2 });
  });

  it("history of an unknown item is a 404 naming it", async () => {
    const r = await h.request("GET", `${itemPath(h, "concept", "nope")}/history`);
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ detail: `Concept mapping nope not found in project ${h.projectId}` });
  });
});
