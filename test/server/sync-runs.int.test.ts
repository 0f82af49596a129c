// Sync of cross-mapping runs: push and pull like schema and concept mappings, upsert by id, newest first.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const sync = (kind: string, suffix = "") => `/api/v1/sync/projects/${h.projectId}/${kind}${suffix}`;
type Summary = { created: number; updated: number; unchanged: number; skipped: number };
const counts = (r: { json: unknown }) => {
  const { created, updated, unchanged, skipped } = r.json as Summary;
  return { created, updated, unchanged, skipped };
};

describe("cross-mapping runs", () => {
  const runs = [
    {
      id: "run_1",
      source_standard: "omop_cdm_v5.4",
      target_standard: "fhir_r4",
      source_entity: "person",
      target_entity: "Patient",
      record_count: 10,
      status: "completed",
      crossmap_file: null,
      created_at: "2026-03-02T10:30:00",
    },
    {
      id: "run_2",
      source_standard: "hl7v2_2.5.1",
      target_standard: "fhir_r4",
      source_entity: "ADT_A01",
      target_entity: "Patient",
      record_count: 3,
      status: "completed",
      crossmap_file: "crossmaps/hl7.yaml",
      created_at: "2026-03-03T08:00:00",
    },
  ];

  it("push twice: created then unchanged; pull is newest first with the spec's fields", async () => {
    const first = await h.request("POST", sync("cross-mappings", "/bulk"), { body: { items: runs } });
    expect(counts(first)).toEqual({ created: 2, updated: 0, unchanged: 0, skipped: 0 });
    const second = await h.request("POST", sync("cross-mappings", "/bulk"), { body: { items: runs } });
    expect(counts(second)).toEqual({ created: 0, updated: 0, unchanged: 2, skipped: 0 });
    const pull = await h.request("GET", sync("cross-mappings"));
    expect(pull.json).toEqual({ items: [runs[1], runs[0]], total: 2 });
  });

  it("a changed run is updated; a run timestamp with a zone suffix is refused", async () => {
    const r = await h.request("POST", sync("cross-mappings", "/bulk"), {
      body: { items: [{ ...runs[0], record_count: 11 }] },
    });
    expect(counts(r)).toEqual({ created: 0, updated: 1, unchanged: 0, skipped: 0 });
    const bad = await h.request("POST", sync("cross-mappings", "/bulk"), {
      body: { items: [{ ...runs[0], created_at: "2026-03-02T10:30:00Z" }] },
    });
    expect(bad.status).toBe(422);
    expect(bad.json).toEqual({
      detail: [
        {
          loc: ["body", "items", 0, "created_at"],
          msg: "must be an ISO 8601 timestamp without zone suffix, e.g. 2026-03-02T10:30:00",
          type: "value_error.str.regex",
        },
      ],
    });
  });

  it("runs recorded through the store API show up in the pull, newest first", async () => {
    const recorded = await h.stores.runs.record(h.projectId, {
      source_standard: "omop_cdm_v5.4",
      target_standard: "openehr_1.0.4",
      source_entity: "measurement",
      target_entity: "OBSERVATION",
      record_count: 5,
      status: "completed",
    });
    expect(recorded.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    const pull = (await h.request("GET", sync("cross-mappings"))).json as {
      items: { id: string }[];
      total: number;
    };
    expect(pull.items.map((i) => i.id)).toEqual([recorded.id, "run_2", "run_1"]);
    expect(pull.total).toBe(3);
  });
});

describe("runs of project-scoped mappings", () => {
  it("push and pull keep the decision snapshot and the vocabulary release; the same push again is unchanged", async () => {
    const run = {
      id: "run_decided",
      source_standard: "fhir_r4",
      target_standard: "omop_cdm_v5.4",
      source_entity: "Observation",
      target_entity: "measurement",
      record_count: 6,
      status: "completed",
      created_at: "2026-03-04T09:00:00",
      decision_snapshot: { items: 5, sha256: "a".repeat(64), unreviewed: "ignore" },
      vocabulary_release: "v5.0 30-AUG-24",
    };
    const first = await h.request("POST", sync("cross-mappings", "/bulk"), { body: { items: [run] } });
    expect(counts(first)).toEqual({ created: 1, updated: 0, unchanged: 0, skipped: 0 });
    const again = await h.request("POST", sync("cross-mappings", "/bulk"), { body: { items: [run] } });
    expect(counts(again)).toEqual({ created: 0, updated: 0, unchanged: 1, skipped: 0 });
    const pulled = (await h.request("GET", sync("cross-mappings"))).json as {
      items: Record<string, unknown>[];
    };
    expect(pulled.items.find((r) => r.id === "run_decided")).toEqual({ ...run, crossmap_file: null });
    const bad = await h.request("POST", sync("cross-mappings", "/bulk"), {
      body: { items: [{ ...run, decision_snapshot: { ...run.decision_snapshot, sha256: "short" } }] },
    });
    expect(bad.json).toEqual({
      detail: [
        {
          loc: ["body", "items", 0, "decision_snapshot", "sha256"],
          msg: "must be 64 lowercase hex digits",
          type: "value_error.str.regex",
        },
      ],
    });
  });
});
