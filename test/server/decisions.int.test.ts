// Reviewed decisions drive conversion, end to end over real HTTP and real LMDB: a project's concept items
// for a site's local lab codes are pushed and reviewed, and a tracked FHIR -> OMOP run of Observations
// carrying those codes applies them, recording the decisions' snapshot and the vocabulary release.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/server/app.js";
import { listen } from "../../src/server/listen.js";
import { MapPool } from "../../src/server/map-pool.js";
import type { LmdbVocabularyBridge } from "../../src/vocab/lmdb-bridge.js";
import { runCli } from "../cli/run-cli.js";
import { fhirProblems } from "../support/fhir.js";
import { buildLabVocabularies, LAB, NEW_RELEASE, OLD_RELEASE } from "../support/lab-vocabularies.js";
import { omopRowProblems } from "../support/omop-rows.js";
import { tempDir } from "../vocab/fixtures.js";
import { type Harness, itemPath, seedConcept, seedSchema, startHarness } from "./harness.js";

const LOCAL = "http://hospital.example.org/CodeSystem/lab";
const tmp = tempDir("crossmap-decisions-");
let h: Harness;
let old: LmdbVocabularyBridge;
let next: LmdbVocabularyBridge;
// Cross-map calls run in worker threads, which open the vocabulary index themselves.
const pools: MapPool[] = [];
const poolOn = (index: string) => {
  const pool = new MapPool({ workers: 1, job: { maxRecords: 10_000, vocab: join(tmp.path, index) } });
  pools.push(pool);
  return pool;
};

beforeAll(async () => {
  ({ old, next } = await buildLabVocabularies(tmp.path));
  h = await startHarness({ mapPool: poolOn("old-index"), vocabulary: old });
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
  await Promise.all(pools.map((p) => p.close()));
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

describe("exports of the reviewed decisions", () => {
  let csv: string;

  it("SOURCE_TO_CONCEPT_MAP: one valid CDM v5.4 row per mapped item", async () => {
    const r = await h.request(
      "GET",
      `/api/v1/projects/${h.projectId}/exports/source-to-concept-map?source_vocabulary_id=LOCAL_LAB`,
    );
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(r.headers.get("content-disposition")).toBe('attachment; filename="source_to_concept_map.csv"');
    csv = r.text;
    const today = new Date().toISOString().slice(0, 10);
    expect(csv.split("\r\n")).toEqual([
      "source_code,source_concept_id,source_vocabulary_id,source_code_description,target_concept_id,target_vocabulary_id,valid_start_date,valid_end_date,invalid_reason",
      `CHOL,0,LOCAL_LAB,Cholesterol,${LAB.cholesterol},LOINC,${today},2099-12-31,`,
      `GLU,0,LOCAL_LAB,"Glucose, serum",${LAB.glucose},LOINC,${today},2099-12-31,`,
      `K,0,LOCAL_LAB,Potassium,${LAB.potassiumBlood},LOINC,${today},2099-12-31,`,
      `NA,0,LOCAL_LAB,"Sodium, serum",${LAB.sodium},LOINC,${today},2099-12-31,`,
      "",
    ]);
    for (const row of stcmRows(csv)) expect(omopRowProblems("source_to_concept_map", row)).toEqual([]);
  });

  it("SOURCE_TO_CONCEPT_MAP without a source vocabulary: 422 naming each item", async () => {
    const r = await h.request("GET", `/api/v1/projects/${h.projectId}/exports/source-to-concept-map`);
    expect(r.status).toBe(422);
    expect((r.json as { detail: unknown[] }).detail[0]).toEqual({
      loc: ["items", "chol", "source_vocabulary_id"],
      msg: 'code "CHOL": no source_vocabulary_id: set it on the item, or give one for the export',
      type: "value_error.stcm",
    });
  });

  it("ConceptMap: valid FHIR R4 by both validators, a group per system, equivalence and comments", async () => {
    const r = await h.request("GET", `/api/v1/projects/${h.projectId}/exports/concept-map`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/fhir+json; charset=utf-8");
    const cm = r.json as { group: { source?: string; target?: string; element: unknown[] }[] };
    expect(fhirProblems(cm)).toEqual([]);
    expect(cm.group).toEqual([
      {
        target: "http://loinc.org",
        element: [
          {
            code: "CHOL",
            display: "Cholesterol",
            target: [
              {
                code: "2093-3",
                display: "Cholesterol [Mass/volume] in Serum or Plasma",
                equivalence: "equivalent",
              },
            ],
          },
          {
            code: "GLU",
            display: "Glucose, serum",
            target: [
              {
                code: "2345-7",
                display: "Glucose [Mass/volume] in Serum or Plasma",
                equivalence: "equivalent",
              },
            ],
          },
          {
            code: "K",
            display: "Potassium",
            target: [
              {
                code: "6298-4",
                display: "Potassium [Moles/volume] in Blood",
                equivalence: "narrower",
                comment: "The analyser reports whole blood",
              },
            ],
          },
          {
            code: "NA",
            display: "Sodium, serum",
            target: [
              {
                code: "2951-2",
                display: "Sodium [Moles/volume] in Serum or Plasma",
                equivalence: "equivalent",
                comment: "checked",
              },
            ],
          },
        ],
      },
      { element: [{ code: "HB", display: "Haemoglobin", target: [{ equivalence: "unmatched" }] }] },
    ]);
  });

  it("re-importing the SOURCE_TO_CONCEPT_MAP into a new project gives the same decisions", async () => {
    const created = await h.request("POST", "/api/v1/projects", { body: { name: "reimported" } });
    const p2 = (created.json as { id: string }).id;
    const r = await h.request(
      "POST",
      `/api/v1/projects/${p2}/imports/source-to-concept-map?source_column=lab_code`,
      { body: csv, headers: { "content-type": "text/csv" } },
    );
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ format: "source-to-concept-map", created: 4, problems: [] });
    const decisions = async (p: string) => {
      const pulled = await h.request("GET", `/api/v1/sync/projects/${p}/concept-mappings`);
      return (
        pulled.json as {
          items: {
            source_code: string;
            method: string;
            target_concept_id: number | null;
            reviewed_at: string | null;
          }[];
        }
      ).items
        .filter((i) => ["auto", "manual", "override"].includes(i.method))
        .map((i) => [i.source_code, i.target_concept_id, i.reviewed_at !== null])
        .sort();
    };
    expect(await decisions(p2)).toEqual(await decisions(h.projectId));
    expect(await decisions(p2)).toHaveLength(4);
  });
});

describe("a new vocabulary release", () => {
  it("vocab diff lists the deprecated concept with its replacement", async () => {
    const r = await runCli(["vocab", "diff", join(tmp.path, "old-index"), join(tmp.path, "new-index")]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")).toEqual([
      "concept_id,vocabulary_id,concept_code,concept_name,changes,old_standard_concept,new_standard_concept,new_invalid_reason,old_maps_to,new_maps_to,replaced_by",
      `${LAB.glucose},LOINC,2345-7,Glucose [Mass/volume] in Serum or Plasma,invalid;non_standard;maps_to_changed,S,,U,${LAB.glucose},,${LAB.glucoseBlood}`,
      "",
    ]);
    expect(r.stderr).toBe(
      `crossmap vocab diff: 1 concepts changed (invalid 1, non_standard 1, maps_to_changed 1) from ${OLD_RELEASE} to ${NEW_RELEASE}\n`,
    );
  });

  it("revalidate reopens the item it invalidates, suggests the replacement, and audits it", async () => {
    const app = createApp({
      stores: h.stores,
      vocabulary: next,
      mapPool: poolOn("new-index"),
    });
    const server = await listen(app, 0, "127.0.0.1");
    try {
      const post = (body?: object) =>
        fetch(`${server.url}/api/v1/projects/${h.projectId}/revalidate`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${h.admin}`,
            ...(body ? { "content-type": "application/json" } : {}),
          },
          ...(body ? { body: JSON.stringify(body) } : {}),
        }).then(async (r) => ({ status: r.status, json: await r.json() }));
      const expected = {
        release: NEW_RELEASE,
        checked: 4,
        reopened: 1,
        items: [
          {
            id: "glu",
            reason: "invalid",
            previous_concept_id: LAB.glucose,
            suggested_concept_id: LAB.glucoseBlood,
            suggested_via: "Concept replaced by",
          },
        ],
      };
      expect(await post({ dry_run: true })).toEqual({ status: 200, json: { ...expected, dry_run: true } });
      expect((await h.request("GET", itemPath(h, "concept", "glu"))).json).toMatchObject({ method: "auto" });
      expect(await post()).toEqual({ status: 200, json: { ...expected, dry_run: false } });
    } finally {
      await server.close();
    }
    const glu = (await h.request("GET", itemPath(h, "concept", "glu"))).json as Record<string, unknown>;
    expect(glu).toMatchObject({
      method: "review",
      target_concept_id: LAB.glucoseBlood,
      target_concept_name: "Glucose [Mass/volume] in Blood",
      target_vocabulary_id: "LOINC",
      revalidation: {
        reason: "invalid",
        previous_concept_id: LAB.glucose,
        previous_concept_name: "Glucose [Mass/volume] in Serum or Plasma",
        suggested_via: "Concept replaced by",
        release: NEW_RELEASE,
      },
    });
    const history = (await h.request("GET", `${itemPath(h, "concept", "glu")}/history`)).json as {
      events: {
        action: string;
        before: { target_concept_id: number };
        after: { target_concept_id: number };
      }[];
    };
    const last = history.events.at(-1)!;
    expect([last.action, last.before.target_concept_id, last.after.target_concept_id]).toEqual([
      "revalidate",
      LAB.glucose,
      LAB.glucoseBlood,
    ]);
    expect(history.events.filter((e) => e.action === "revalidate")).toHaveLength(1);
  });

  it("a client pushing the old decision again does not undo the reopening", async () => {
    const r = await h.request("POST", `/api/v1/sync/projects/${h.projectId}/concept-mappings/bulk`, {
      body: { items: [{ ...item("glu", "GLU", "Glucose, serum", LAB.glucose, 0.97, 1200), method: "auto" }] },
    });
    expect((r.json as { skipped: number }).skipped).toBe(1);
    expect((await h.request("GET", itemPath(h, "concept", "glu"))).json).toMatchObject({
      method: "review",
      target_concept_id: LAB.glucoseBlood,
    });
  });
});

describe("the crossmap export of the approved schema items", () => {
  it("GET exports/crossmap: YAML that crossmap check accepts and crossmap map runs; read keys may fetch it", async () => {
    const ids = await seedSchema(h, [
      {
        source_table: "labs",
        source_column: "id",
        target_table: "measurement",
        target_column: "measurement_id",
      },
      {
        source_table: "labs",
        source_column: "patient",
        target_table: "measurement",
        target_column: "person_id",
      },
      {
        source_table: "labs",
        source_column: "code",
        target_table: "measurement",
        target_column: "measurement_source_value",
      },
      {
        source_table: "labs",
        source_column: "value",
        target_table: "measurement",
        target_column: "value_as_string",
      },
      {
        source_table: "labs",
        source_column: "taken",
        target_table: "measurement",
        target_column: "measurement_datetime",
      },
      {
        source_table: "labs",
        source_column: "unit",
        target_table: "measurement",
        target_column: "unit_source_value",
      },
      {
        source_table: "labs",
        source_column: "ward",
        target_table: "measurement",
        target_column: "measurement_source_value",
      },
    ]);
    const [id, patient, code, value, taken, unit, ward] = ids as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const bulk = await h.request("POST", `/v1/projects/${h.projectId}/schema-mapping/bulk`, {
      body: {
        decisions: [
          { id, action: "approve" },
          { id: patient, action: "approve" },
          { id: code, action: "approve" },
          // The reviewer corrects the column: a number, not text.
          { id: value, action: "override", target_table: "measurement", target_column: "value_as_number" },
          { id: taken, action: "approve" },
          { id: unit, action: "reject" },
          { id: ward, action: "approve" },
        ],
      },
    });
    expect((bulk.json as { applied: number }).applied).toBe(7);
    const r = await h.request("GET", `/api/v1/projects/${h.projectId}/exports/crossmap?source=site_labs`, {
      key: await h.key("read"),
    });
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/yaml; charset=utf-8");
    expect(r.headers.get("content-disposition")).toBe('attachment; filename="crossmap.yaml"');
    const lines = r.text.split("\n");
    expect(lines.filter((l) => l.startsWith("# ")).slice(2)).toEqual([
      "# Not included:",
      `#   item ${ward}: labs.ward -> measurement.measurement_source_value: measurement.measurement_source_value is already written by labs.code`,
    ]);
    expect(lines.filter((l) => !l.startsWith("#"))).toEqual([
      "source: site_labs",
      "target: omop_cdm_v5.4",
      `name: test (crossmap project ${h.projectId})`,
      "entity_map:",
      "  labs: measurement",
      "field_map:",
      "  labs.id:",
      "    target: measurement.measurement_id",
      "    transform: int",
      "  labs.patient:",
      "    target: measurement.person_id",
      "    transform: int",
      "  labs.taken:",
      "    target: measurement.measurement_datetime",
      "    transform: datetime_text",
      "    config:",
      "      missing_time: midnight",
      "  labs.value:",
      "    target: measurement.value_as_number",
      "    transform: float",
      "  labs.code:",
      "    target: measurement.measurement_source_value",
      "    transform: str",
      "",
    ]);
    const file = join(tmp.path, "exported.yaml");
    writeFileSync(file, r.text);
    const check = await runCli(["check", "--strict", file]);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    const mapped = await runCli(["map", "--crossmap", file, "--entity", "labs"], {
      stdin:
        '{"id":"1","patient":"42","code":"GLU","value":"5.4","taken":"2024-03-01T08:15:00","unit":"mmol/L","ward":"3B"}\n',
    });
    expect(mapped.code, mapped.stderr).toBe(0);
    expect(JSON.parse(mapped.stdout)).toEqual({
      measurement_id: 1,
      person_id: 42,
      measurement_source_value: "GLU",
      value_as_number: 5.4,
      measurement_datetime: "2024-03-01 08:15:00",
    });
  });

  it("a project without target_model: 409, the crossmap has no target standard", async () => {
    const created = await h.request("POST", "/api/v1/projects", { body: { name: "no model" } });
    const other = (created.json as { id: string }).id;
    const r = await h.request("GET", `/api/v1/projects/${other}/exports/crossmap`);
    expect([r.status, r.json]).toEqual([
      409,
      {
        detail: `Project ${other} has no target_model, so a crossmap has no target standard; create projects with one`,
      },
    ]);
  });
});

/** The CSV's rows typed as the CDM declares its columns (empty fields left out, as NULL). */
function stcmRows(text: string): Record<string, unknown>[] {
  const rows = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true }).data;
  return rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(row)) {
      if (v === "") continue;
      out[k] = k.endsWith("concept_id") ? Number(v) : v;
    }
    return out;
  });
}
