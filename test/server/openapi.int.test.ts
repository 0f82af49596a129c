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

it("the override bodies require exactly the spec's fields", () => {
  const schema = (path: string) =>
    (
      doc.paths[path]!.post!.requestBody as {
        content: { "application/json": { schema: Record<string, unknown> } };
      }
    ).content["application/json"].schema;
  expect(schema("/v1/projects/{project_id}/schema-mapping/{mapping_id}/override").required).toEqual([
    "target_table",
    "target_column",
  ]);
  const concept = schema("/v1/projects/{project_id}/concept-mapping/{mapping_id}/override");
  expect(concept.required).toEqual(["target_concept_id"]);
  expect(Object.keys(concept.properties as object)).toEqual([
    "target_concept_id",
    "target_concept_name",
    "target_vocabulary_id",
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
