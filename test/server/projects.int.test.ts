// Projects over HTTP: admin-only creation, listing filtered to what the key may see.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

it("an admin creates a project and gets it back with its id", async () => {
  const body = {
    name: "EHR to OMOP",
    target_model: "omop_cdm_v5.4",
    vocabularies: ["SNOMED", "LOINC"],
    description: "pilot",
  };
  const r = await h.request("POST", "/api/v1/projects", { body });
  expect(r.status).toBe(201);
  const project = r.json as Record<string, unknown>;
  expect(project.id).toMatch(/^[0-9a-f-]{36}$/);
  expect(project).toEqual({ id: project.id, ...body, created_at: project.created_at });
  expect(Object.keys(project)).toEqual([
    "id",
    "name",
    "target_model",
    "vocabularies",
    "description",
    "created_at",
  ]);
  const minimal = await h.request("POST", "/api/v1/projects", { body: { name: "bare" } });
  expect(minimal.json).toMatchObject({
    name: "bare",
    target_model: null,
    vocabularies: [],
    description: null,
  });
});

it("a project key may not create projects", async () => {
  const key = await h.key("write");
  const r = await h.request("POST", "/api/v1/projects", { key, body: { name: "x" } });
  expect(r.status).toBe(403);
  expect(r.json).toEqual({ detail: `API key ${h.keyId(key)} is not an admin key` });
});

it("validates the body", async () => {
  const r = await h.request("POST", "/api/v1/projects", { body: { name: "", vocabularies: "SNOMED" } });
  expect(r.status).toBe(422);
  expect(r.json).toEqual({
    detail: [
      {
        loc: ["body", "name"],
        msg: "ensure this value has at least 1 characters",
        type: "value_error.any_str.min_length",
      },
      { loc: ["body", "vocabularies"], msg: "value is not a valid list", type: "type_error.list" },
    ],
  });
});

it("lists all projects for an admin and only its own for a project key", async () => {
  const all = (await h.request("GET", "/api/v1/projects")).json as { projects: { id: string }[] };
  expect(all.projects.length).toBeGreaterThanOrEqual(3);
  const key = await h.key("read");
  const own = await h.request("GET", "/api/v1/projects", { key });
  expect(own.status).toBe(200);
  expect((own.json as { projects: { id: string }[] }).projects.map((p) => p.id)).toEqual([h.projectId]);
  expect((await h.request("GET", "/api/v1/projects", { key: null })).status).toBe(401);
});

it("healthz needs no key and every request is logged as one structured entry", async () => {
  const r = await h.request("GET", "/healthz", { key: null });
  expect(r.status).toBe(200);
  expect(r.json).toEqual({ status: "ok" });
  const entry = h.logs.at(-1)!;
  expect(entry).toMatchObject({
    level: "info",
    msg: "request",
    method: "GET",
    path: "/healthz",
    status: 200,
    key_id: null,
  });
  expect(typeof entry.duration_ms).toBe("number");
});
