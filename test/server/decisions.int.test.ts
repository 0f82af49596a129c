// Reviewed decisions drive conversion, end to end over real HTTP and real LMDB: a project's concept items
// for a site's local lab codes are pushed and reviewed, and a tracked FHIR -> OMOP run of Observations
// carrying those codes applies them, recording the decisions' snapshot and the vocabulary release.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CrossmapProvider } from "../../src/crossmap/provider.js";
import type { LmdbVocabularyBridge } from "../../src/vocab/lmdb-bridge.js";
import { buildLabVocabularies, LAB, OLD_RELEASE } from "../support/lab-vocabularies.js";
import { tempDir } from "../vocab/fixtures.js";
import { type Harness, itemPath, seedConcept, startHarness } from "./harness.js";

const LOCAL = "http://hospital.example.org/CodeSystem/lab";
const tmp = tempDir("crossmap-decisions-");
let h: Harness;
let old: LmdbVocabularyBridge;
let next: LmdbVocabularyBridge;

beforeAll(async () => {
  ({ old, next } = await buildLabVocabularies(tmp.path));
  h = await startHarness({ crossmaps: new CrossmapProvider({ vocabulary: old }), vocabulary: old });
  await seedConcept(h, [
    item("glu", "GLU", "Glucose, serum", LAB.glucose, 0.97, 1200),
    item("na", "NA", "Sodium, serum", LAB.sodium, 0.95, 800),
    item("k", "K", "Potassium", LAB.potassium, 0.61, 700),
    item("hb", "HB", "Haemoglobin", LAB.hemoglobin, 0.32, 300),
    item("chol", "CHOL", "Cholesterol", LAB.cholesterol, 0.8, 150),
  ]);
  const bulk = await h.request("POST", `/v1/projects/${h.projectId}/concept-mapping/bulk`, {
    body: {
      decisions: [
        { id: "glu", action: "approve" },
        { id: "na", action: "approve" },
        {
          id: "k",
          action: "override",
          target_concept_id: LAB.potassiumBlood,
          target_concept_name: "Potassium [Moles/volume] in Blood",
          target_vocabulary_id: "LOINC",
          equivalence: "narrower",
          comment: "The analyser reports whole blood",
        },
        { id: "hb", action: "reject" },
      ],
    },
  });
  expect((bulk.json as { applied: number }).applied).toBe(4);
});
afterAll(async () => {
  await h.stop();
  await old.close();
  await next.close();
  tmp.remove();
});

function item(
  id: string,
  code: string,
  description: string,
  concept: number,
  confidence: number,
  frequency: number,
) {
  return {
    id,
    source_column: "lab_code",
    source_code: code,
    source_description: description,
    target_concept_id: concept,
    target_vocabulary_id: "LOINC",
    confidence,
    source_frequency: frequency,
  };
}

/** A FHIR Observation of one lab result with a local code (or any system and code). */
const observation = (n: number, code: string, system = LOCAL) => ({
  resourceType: "Observation",
  id: String(n),
  status: "final",
  subject: { reference: "Patient/7" },
  effectiveDateTime: "2024-03-01T08:00:00Z",
  code: { coding: [{ system, code }] },
  valueQuantity: { value: 5.4, unit: "mmol/L" },
});

const RECORDS = [
  observation(1, "GLU"),
  observation(2, "NA"),
  observation(3, "K"),
  observation(4, "HB"),
  observation(5, "CHOL"),
  observation(6, "718-7", "http://loinc.org"),
];

interface MapReply {
  results: { measurement_concept_id: number }[];
  issues: { record: number; field: string; code: string; severity: string; message: string }[];
  run_id: string;
  decision_snapshot: { items: number; sha256: string; unreviewed: string };
}

async function trackedRun(extra: object = {}): Promise<MapReply> {
  const r = await h.request("POST", `/api/v1/cross-mapping/projects/${h.projectId}/map`, {
    body: {
      source_standard: "fhir_r4",
      target_standard: "omop_cdm_v5.4",
      source_entity: "Observation",
      records: RECORDS,
      ...extra,
    },
  });
  expect(r.status, r.text).toBe(200);
  return r.json as MapReply;
}

/**
 * The issues of measurement_concept_id (Observation.code), by record. (measurement_source_concept_id is
 * the local code's own concept, which no vocabulary has: an unknown-system warning on every local code,
 * with or without a project.)
 */
const conceptIssues = (reply: MapReply) =>
  reply.issues
    .filter((i) => i.field === "Observation.code")
    .map((i) => [i.record, i.code, i.severity, i.message]);

describe("a tracked cross-mapping run", () => {
  let first: MapReply;

  it("uses the decisions: approved and overridden concepts, rejected and unreviewed codes reported", async () => {
    first = await trackedRun();
    expect(first.results.map((r) => r.measurement_concept_id)).toEqual([
      LAB.glucose,
      LAB.sodium,
      LAB.potassiumBlood, // the override, not the suggestion
      0, // rejected
      0, // awaiting review, ignored by default, and the vocabulary knows no local code
      LAB.hemoglobin, // a LOINC coding: the vocabulary, as without a project
    ]);
    expect(conceptIssues(first)).toEqual([
      [
        3,
        "rejected_by_review",
        "warning",
        `${LOCAL} code "HB" was rejected by review (item hb): it has no concept`,
      ],
      [
        4,
        "unreviewed_mapping",
        "warning",
        `unknown code system "${LOCAL}"; item chol suggests concept ${LAB.cholesterol}, not reviewed yet (unreviewed: ignore)`,
      ],
    ]);
  });

  it("records the decisions' snapshot and the vocabulary release with the run", async () => {
    const history = await h.request("GET", `/api/v1/cross-mapping/projects/${h.projectId}`);
    const run = (history.json as { runs: Record<string, unknown>[] }).runs[0]!;
    expect(run).toMatchObject({
      id: first.run_id,
      status: "completed",
      record_count: 6,
      crossmap_file: "fhir_r4-to-omop_cdm_v5.4.yaml",
      decision_snapshot: { items: 5, unreviewed: "ignore" },
      vocabulary_release: OLD_RELEASE,
    });
    expect(run.decision_snapshot).toEqual(first.decision_snapshot);
    expect(first.decision_snapshot.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("with unreviewed: use, applies the suggestion awaiting review, with a warning", async () => {
    const use = await trackedRun({ unreviewed: "use" });
    expect(use.results[4]!.measurement_concept_id).toBe(LAB.cholesterol);
    expect(use.issues.filter((i) => i.record === 4 && i.field === "Observation.code")).toEqual([
      expect.objectContaining({
        severity: "warning",
        message: `${LOCAL} code "CHOL": used concept ${LAB.cholesterol}, the suggestion of item chol, which is not reviewed yet (unreviewed: use)`,
      }),
    ]);
    expect(use.decision_snapshot).toEqual({ ...first.decision_snapshot, unreviewed: "use" });
  });

  it("after one more decision, the next run applies it and records a different hash", async () => {
    expect((await h.request("POST", `${itemPath(h, "concept", "chol")}/approve`)).status).toBe(200);
    const second = await trackedRun();
    expect(second.results[4]!.measurement_concept_id).toBe(LAB.cholesterol);
    expect(second.issues.some((i) => i.record === 4 && i.code === "unreviewed_mapping")).toBe(false);
    expect(second.decision_snapshot.items).toBe(5);
    expect(second.decision_snapshot.sha256).not.toBe(first.decision_snapshot.sha256);
    // A comment is not a decision: the hash stays.
    await h.request("POST", `${itemPath(h, "concept", "na")}/comment`, { body: { comment: "checked" } });
    expect((await trackedRun()).decision_snapshot.sha256).toBe(second.decision_snapshot.sha256);
  });

  it("a stateless call on the same server ignores every project's decisions", async () => {
    const r = await h.request("POST", "/api/v1/cross-mapping/map", {
      body: {
        source_standard: "fhir_r4",
        target_standard: "omop_cdm_v5.4",
        source_entity: "Observation",
        records: RECORDS,
      },
    });
    const results = (r.json as MapReply).results.map((x) => x.measurement_concept_id);
    expect(results).toEqual([0, 0, 0, 0, 0, LAB.hemoglobin]);
  });
});
