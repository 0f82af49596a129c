// The OpenAPI document: served without a key, generated from the schemas that validate requests.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.js";

let h: Harness;
let doc: {
  openapi: string;
  paths: Record<string, Record<string, Record<string, unknown>>>;
};
beforeAll(async () => {
  h = await startHarness();
  const r = await h.request("GET", "/openapi.json", { key: null });
  expect(r.status).toBe(200);
  doc = r.json as typeof doc;
});
afterAll(() => h.stop());

it("describes the six review endpoints with the spec's paths", () => {
  expect(doc.openapi).toBe("3.1.0");
  for (const kind of ["schema", "concept"]) {
    for (const action of ["approve", "reject", "override"]) {
      const op = doc.paths[`/v1/projects/{project_id}/${kind}-mapping/{mapping_id}/${action}`]?.post;
      expect(op, `${kind} ${action}`).toBeDefined();
      expect(Object.keys(op!.responses as object)).toContain("200");
      expect(op!.security).toEqual([{ bearer: [] }]);
    }
  }
});

it("the override bodies require exactly the spec's fields (and take a comment, and an equivalence)", () => {
  const schema = (path: string) =>
    (
      doc.paths[path]!.post!.requestBody as {
        content: { "application/json": { schema: Record<string, unknown> } };
      }
    ).content["application/json"].schema;
  const schemaBody = schema("/v1/projects/{project_id}/schema-mapping/{mapping_id}/override");
  expect(schemaBody.required).toEqual(["target_table", "target_column"]);
  expect(Object.keys(schemaBody.properties as object)).toEqual(["target_table", "target_column", "comment"]);
  const concept = schema("/v1/projects/{project_id}/concept-mapping/{mapping_id}/override");
  expect(concept.required).toEqual(["target_concept_id"]);
  expect(Object.keys(concept.properties as object)).toEqual([
    "target_concept_id",
    "target_concept_name",
    "target_vocabulary_id",
    "equivalence",
    "comment",
  ]);
});

it("documents sync, projects, lists and history, and the 422 shape", () => {
  for (const path of [
    "/api/v1/projects",
    "/api/v1/sync/projects/{project_id}/schema-mappings/bulk",
    "/api/v1/sync/projects/{project_id}/concept-mappings",
    "/api/v1/sync/projects/{project_id}/cross-mappings/bulk",
    "/v1/projects/{project_id}/schema-mapping",
    "/v1/projects/{project_id}/concept-mapping/{mapping_id}/history",
    "/healthz",
  ]) {
    expect(doc.paths[path], path).toBeDefined();
  }
  const responses = doc.paths["/v1/projects/{project_id}/schema-mapping/{mapping_id}/override"]!.post!
    .responses as Record<
    string,
    { content: { "application/json": { schema: { properties: Record<string, unknown> } } } }
  >;
  expect(Object.keys(responses).sort()).toEqual(["200", "401", "403", "404", "412", "413", "422"]);
  expect(responses["422"]!.content["application/json"].schema.properties.detail).toMatchObject({
    type: "array",
  });
});

it("documents the workbench endpoints and the fields they added", () => {
  for (const kind of ["schema", "concept"]) {
    const base = `/v1/projects/{project_id}/${kind}-mapping`;
    expect(doc.paths[`${base}/stats`]?.get, `${kind} stats`).toBeDefined();
    expect(doc.paths[`${base}/bulk`]?.post, `${kind} bulk`).toBeDefined();
    expect(doc.paths[`${base}/{mapping_id}/comment`]?.post, `${kind} comment`).toBeDefined();
    expect(doc.paths[`${base}/{mapping_id}/revert`]?.post, `${kind} revert`).toBeDefined();
    const params = (doc.paths[base]!.get!.parameters as { name: string }[]).map((p) => p.name);
    expect(params).toEqual([
      "project_id",
      kind === "schema" ? "status" : "method",
      "needs_review",
      "min_confidence",
      "max_confidence",
      "min_top_score",
      "q",
      "sort",
      "limit",
      "offset",
    ]);
  }
  expect(doc.paths["/api/v1/me"]?.get).toBeDefined();
  const item = (
    doc.paths["/v1/projects/{project_id}/concept-mapping/{mapping_id}"]!.get!.responses as Record<
      string,
      { content: { "application/json": { schema: { properties: Record<string, unknown> } } } }
    >
  )["200"]!.content["application/json"].schema.properties;
  expect(Object.keys(item).slice(-6)).toEqual([
    "source_vocabulary_id",
    "source_frequency",
    "equivalence",
    "comment",
    "revalidation",
    "candidates",
  ]);
});

it("documents exports, imports and revalidation with their media types, and the run's new fields", () => {
  const base = "/api/v1/projects/{project_id}";
  const content = (path: string, method: "get" | "post", status = "200") =>
    Object.keys(
      (doc.paths[path]![method]!.responses as Record<string, { content: object }>)[status]!.content,
    );
  expect(content(`${base}/exports/crossmap`, "get")).toEqual(["application/yaml"]);
  expect(content(`${base}/exports/source-to-concept-map`, "get")).toEqual(["text/csv"]);
  expect(content(`${base}/exports/concept-map`, "get")).toEqual(["application/fhir+json"]);
  const imports = doc.paths[`${base}/imports/{format}`]!.post!;
  expect(Object.keys((imports.requestBody as { content: object }).content)).toEqual(["text/csv"]);
  expect(Object.keys(doc.paths[`${base}/revalidate`]!.post!.responses as object)).toContain("503");
  const map = doc.paths["/api/v1/cross-mapping/projects/{project_id}/map"]!.post!;
  const body = (map.requestBody as { content: { "application/json": { schema: { properties: object } } } })
    .content["application/json"].schema;
  expect(Object.keys(body.properties)).toContain("unreviewed");
  const runs = (
    doc.paths["/api/v1/cross-mapping/projects/{project_id}"]!.get!.responses as Record<
      string,
      {
        content: {
          "application/json": { schema: { properties: { runs: { items: { properties: object } } } } };
        };
      }
    >
  )["200"]!.content["application/json"].schema.properties.runs.items.properties;
  expect(Object.keys(runs)).toEqual(expect.arrayContaining(["decision_snapshot", "vocabulary_release"]));
});

it("documents choosing a candidate for both kinds, with its body, errors and the event's candidate", () => {
  for (const kind of ["schema", "concept"]) {
    const op = doc.paths[`/v1/projects/{project_id}/${kind}-mapping/{mapping_id}/choose`]?.post;
    expect(op, kind).toBeDefined();
    expect(Object.keys(op!.responses as object).sort()).toEqual([
      "200",
      "401",
      "403",
      "404",
      "409",
      "412",
      "413",
      "422",
    ]);
    const body = (
      op!.requestBody as {
        content: { "application/json": { schema: { properties: object; required: string[] } } };
      }
    ).content["application/json"].schema;
    expect([Object.keys(body.properties), body.required]).toEqual([["candidate", "comment"], ["candidate"]]);
    const event = (
      doc.paths[`/v1/projects/{project_id}/${kind}-mapping/{mapping_id}/history`]!.get!.responses as Record<
        string,
        {
          content: {
            "application/json": {
              schema: { properties: { events: { items: { properties: Record<string, unknown> } } } };
            };
          };
        }
      >
    )["200"]!.content["application/json"].schema.properties.events.items.properties;
    expect(event.candidate).toMatchObject({ type: "integer" });
  }
});
