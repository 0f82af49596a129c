// The built-in FHIR R4 -> openEHR 1.0.4 crossmap on the six Synthea sample Bundles (and a small Bundle with
// what they lack: allergies, entries without an encounter, an entry whose encounter is missing), run as
// the CLI runs it: every object written must be a COMPOSITION of a shipped template or an EHR_STATUS, valid
// against the ITS-JSON schema, the RM rules and its operational template, and every clinical resource an
// entry in the composition of its encounter.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { builtinTemplates, OpenehrValidator } from "../../src/openehr/check/validator.js";
import { sampleResources } from "../support/fhir-samples.js";
import { FIXTURES_DIR } from "../support/omop.js";
import {
  compositions,
  entriesByArchetype,
  expectGoldenComposition,
  issueCounts,
  type Json,
  type MapRun,
  mapToOpenehr,
  sourceId,
} from "../support/openehr-output.js";

const SAMPLES = join(FIXTURES_DIR, "fhir", "synthea");
const EXTRAS = join(FIXTURES_DIR, "openehr", "fhir-extras.bundle.json");
const CLINICAL = [
  "Observation",
  "Condition",
  "Procedure",
  "MedicationRequest",
  "Immunization",
  "AllergyIntolerance",
];

let samples: MapRun;
let extras: MapRun;
beforeAll(async () => {
  const bundles = readdirSync(SAMPLES)
    .filter((f) => f.endsWith(".json"))
    .map((f) => join(SAMPLES, f));
  [samples, extras] = await Promise.all([
    mapToOpenehr(["--from", "fhir_r4", "--format", "fhir-bundle"], bundles),
    mapToOpenehr(["--from", "fhir_r4", "--format", "fhir-bundle"], [EXTRAS]),
  ]);
}, 300_000);

describe("FHIR R4 -> openEHR 1.0.4 on the Synthea sample Bundles", () => {
  it("writes only EHR_STATUS and COMPOSITIONs of the shipped templates, each valid against the RM schema, the RM rules and its template", () => {
    const validator = new OpenehrValidator(builtinTemplates());
    const invalid: string[] = [];
    const kinds: Record<string, number> = {};
    for (const run of [samples, extras])
      for (const o of run.objects) {
        const r = validator.check(o.value);
        const kind = r.templateId ? `${r.type} ${r.templateId}` : r.type;
        kinds[kind] = (kinds[kind] ?? 0) + 1;
        for (const v of r.violations) invalid.push(`${o.where}: ${v.severity} ${v.path}: ${v.message}`);
      }
    expect(invalid).toEqual([]);
    expect(kinds).toEqual({
      EHR_STATUS: 7,
      "COMPOSITION crossmap.encounter.v1": 44,
      "COMPOSITION crossmap.event_summary.v1": 1,
    });
  });

  it("puts every clinical resource into a composition as an entry; the rest are counted as skipped", () => {
    const inside = new Set(compositions(samples).flatMap((c: Json) => (c.content ?? []).map(sourceId)));
    for (const type of CLINICAL) {
      const ids = sampleResources(type).map((r) => r.id);
      expect(
        ids.filter((id) => !inside.has(id)),
        type,
      ).toEqual([]);
    }
    expect(inside.size).toBe(333);
    expect(samples.summary).toMatchObject({
      records_in: 382,
      records_out: 49,
      records_failed: 0,
      errors: 0,
      skipped: {
        Organization: 9,
        Practitioner: 9,
        Claim: 52,
        ExplanationOfBenefit: 43,
        DiagnosticReport: 14,
        CarePlan: 5,
      },
    });
    // Synthea's blood pressures, BMIs and temperatures have more decimals than their archetypes record;
    // each Bundle entry left out (the 132 skipped above) is also named in a warning; the elements of the
    // mapped resources the compositions have no place for yet (an Encounter's type and reasonCode, a
    // Condition's clinical and verification status, ...) are named once per Bundle and resource type.
    expect(issueCounts(samples)).toEqual({
      precision_reduced: 64,
      unmapped_resource: 132,
      unread_column: 29,
    });
    expect(samples.code).toBe(0);
  });

  it("gathers each entry into the composition of the Encounter it references", () => {
    const encounterOf = new Map<string, string>();
    for (const type of CLINICAL)
      for (const r of sampleResources(type))
        encounterOf.set(r.id, String((r as Json).encounter?.reference).replace("urn:uuid:", ""));
    const misplaced: string[] = [];
    for (const c of compositions(samples)) {
      const encounter = sourceId(c);
      for (const e of c.content ?? [])
        if (encounterOf.get(sourceId(e) as string) !== encounter) misplaced.push(sourceId(e) as string);
    }
    expect(misplaced).toEqual([]);
  });

  it("routes Observations by LOINC code to the vital-signs archetypes, smoking status and lab results", () => {
    expect(entriesByArchetype(samples)).toEqual({
      "openEHR-EHR-ACTION.medication.v1": 37,
      "openEHR-EHR-ACTION.procedure.v1": 13,
      "openEHR-EHR-EVALUATION.problem_diagnosis.v1": 24,
      "openEHR-EHR-EVALUATION.tobacco_smoking_summary.v2": 21,
      "openEHR-EHR-INSTRUCTION.medication_order.v3": 9,
      "openEHR-EHR-OBSERVATION.blood_pressure.v2": 21,
      "openEHR-EHR-OBSERVATION.body_mass_index.v2": 21,
      "openEHR-EHR-OBSERVATION.body_temperature.v2": 1,
      "openEHR-EHR-OBSERVATION.body_weight.v2": 21,
      "openEHR-EHR-OBSERVATION.height.v2": 21,
      "openEHR-EHR-OBSERVATION.laboratory_test_result.v1": 144,
    });
  });

  it("writes a blood pressure's systolic and diastolic components into one blood_pressure.v2 OBSERVATION", () => {
    const bp = sampleResources("Observation").find(
      (o) => (o as Json).code.coding[0].code === "55284-4",
    ) as Json;
    const entry = compositions(samples)
      .flatMap((c: Json) => c.content ?? [])
      .find((e: Json) => sourceId(e) === bp.id);
    const value = (code: string) =>
      bp.component.find((c: Json) => c.code.coding[0].code === code).valueQuantity.value;
    expect(entry.data.events[0].data.items).toEqual([
      {
        _type: "ELEMENT",
        archetype_node_id: "at0004",
        name: { _type: "DV_TEXT", value: "Systolic" },
        value: {
          _type: "DV_QUANTITY",
          magnitude: Math.round(value("8480-6")),
          units: "mm[Hg]",
          precision: 0,
        },
      },
      {
        _type: "ELEMENT",
        archetype_node_id: "at0005",
        name: { _type: "DV_TEXT", value: "Diastolic" },
        value: {
          _type: "DV_QUANTITY",
          magnitude: Math.round(value("8462-4")),
          units: "mm[Hg]",
          precision: 0,
        },
      },
    ]);
  });

  it("writes allergies, and entries without an encounter, of any resource type, into one composition per patient and day; an entry whose encounter never came is reported", () => {
    const cs = compositions(extras);
    expect(
      cs.map((c: Json) => [
        c.name.value,
        c.context.start_time.value,
        (c.content ?? []).map((e: Json) => e.archetype_node_id),
      ]),
    ).toEqual([
      [
        "Encounter",
        "2020-02-14T09:30:00+01:00",
        ["openEHR-EHR-EVALUATION.adverse_reaction_risk.v2", "openEHR-EHR-OBSERVATION.respiration.v2"],
      ],
      [
        "Event summary",
        "2020-03-01T10:15:00+01:00",
        [
          "openEHR-EHR-EVALUATION.adverse_reaction_risk.v2",
          "openEHR-EHR-OBSERVATION.pulse.v2",
          "openEHR-EHR-OBSERVATION.pulse_oximetry.v1",
        ],
      ],
    ]);
    expect(extras.issues).toEqual([
      {
        file: EXTRAS,
        entry: 7,
        entity: "Observation",
        code: "orphan_record",
        severity: "error",
        message:
          'Observation.body_weight was to be gathered into Encounter.encounter with key "9c1e3a5b-7d9f-4b2d-8e4a-6c8e0a2c4e6a", which no record of the run produced; it was not written',
      },
    ]);
    expect(extras.code).toBe(1);
  });

  it("writes an allergy's first reaction as a CLUSTER adverse_reaction_event.v1 in the reaction event slot", () => {
    const allergy = compositions(extras)
      .flatMap((c: Json) => c.content ?? [])
      .find((e: Json) => sourceId(e) === "a1c3e5f7-0b2d-4f6a-9c8e-7d5b3a1f9e2c");
    const cluster = allergy.data.items.find(
      (i: Json) => i.archetype_node_id === "openEHR-EHR-CLUSTER.adverse_reaction_event.v1",
    );
    expect(cluster.items).toEqual([
      {
        _type: "ELEMENT",
        archetype_node_id: "at0006",
        name: { _type: "DV_TEXT", value: "Manifestation" },
        value: {
          _type: "DV_CODED_TEXT",
          value: "Wheal",
          defining_code: {
            _type: "CODE_PHRASE",
            terminology_id: { _type: "TERMINOLOGY_ID", value: "SNOMED-CT" },
            code_string: "247472004",
          },
        },
      },
      {
        _type: "ELEMENT",
        archetype_node_id: "at0010",
        name: { _type: "DV_TEXT", value: "Severity of reaction" },
        value: {
          _type: "DV_CODED_TEXT",
          value: "Moderate",
          defining_code: {
            _type: "CODE_PHRASE",
            terminology_id: { _type: "TERMINOLOGY_ID", value: "local" },
            code_string: "at0012",
          },
        },
      },
    ]);
  });

  it("takes language, territory and composer from --param", async () => {
    const run = await mapToOpenehr(
      [
        "--from",
        "fhir_r4",
        "--format",
        "fhir-bundle",
        "--param",
        "language=de",
        "--param",
        "territory=DE",
        "--param",
        "composer=Dr. Ada Lovelace",
      ],
      [EXTRAS],
    );
    const cs = compositions(run);
    expect(cs.map((c: Json) => [c.language.code_string, c.territory.code_string, c.composer.name])).toEqual([
      ["de", "DE", "Dr. Ada Lovelace"],
      ["de", "DE", "Dr. Ada Lovelace"],
    ]);
    expect(new Set(cs.flatMap((c: Json) => c.content.map((e: Json) => e.language.code_string)))).toEqual(
      new Set(["de"]),
    );
  });

  describe("golden compositions, one per archetype", () => {
    const archetypes = [
      "openEHR-EHR-EVALUATION.problem_diagnosis.v1",
      "openEHR-EHR-EVALUATION.tobacco_smoking_summary.v2",
      "openEHR-EHR-INSTRUCTION.medication_order.v3",
      "openEHR-EHR-ACTION.medication.v1",
      "openEHR-EHR-ACTION.procedure.v1",
      "openEHR-EHR-OBSERVATION.blood_pressure.v2",
      "openEHR-EHR-OBSERVATION.body_weight.v2",
      "openEHR-EHR-OBSERVATION.height.v2",
      "openEHR-EHR-OBSERVATION.body_mass_index.v2",
      "openEHR-EHR-OBSERVATION.body_temperature.v2",
      "openEHR-EHR-OBSERVATION.laboratory_test_result.v1",
    ];
    for (const id of archetypes) it(id, () => expectGoldenComposition(samples, "fhir", id));
    for (const id of [
      "openEHR-EHR-EVALUATION.adverse_reaction_risk.v2",
      "openEHR-EHR-OBSERVATION.pulse.v2",
      "openEHR-EHR-OBSERVATION.pulse_oximetry.v1",
      "openEHR-EHR-OBSERVATION.respiration.v2",
    ])
      it(id, () => expectGoldenComposition(extras, "fhir", id));
  });
});

describe("resources that record a mistake or something that did not happen", () => {
  it("become no entry, each with one excluded warning", async () => {
    const { loadCrossmapFile } = await import("../../src/crossmap/load.js");
    const { BUILTIN_DIR } = await import("../../src/crossmap/catalog.js");
    const cm = await loadCrossmapFile(join(BUILTIN_DIR, "fhir_r4-to-openehr_1.0.4.yaml"));
    const subject = { reference: "Patient/p1" };
    const code = { coding: [{ system: "http://loinc.org", code: "8867-4" }] };
    const cases: Record<string, unknown>[] = [
      { resourceType: "Observation", status: "cancelled", subject, code, effectiveDateTime: "2020-01-01" },
      { resourceType: "Procedure", status: "not-done", subject, code, performedDateTime: "2020-01-01" },
      { resourceType: "Immunization", status: "entered-in-error", patient: subject, vaccineCode: code },
    ];
    for (const r of cases) {
      const m = cm.mapper(r.resourceType as string);
      const out = m.mapAll?.({ id: "x1", ...r }, 1);
      expect(out?.outputs).toEqual([]);
      expect(out?.issues.map((i) => i.code)).toEqual(["excluded"]);
    }
  });
});
