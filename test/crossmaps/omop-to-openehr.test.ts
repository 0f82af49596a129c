// The built-in OMOP CDM v5.4 -> openEHR 1.0.4 crossmap on the bundled Synthea27Nj sample folder with the
// sample vocabulary, run as the CLI runs it: every object written must be a COMPOSITION of a shipped
// template or an EHR_STATUS, valid against the ITS-JSON schema, the RM rules and its operational template;
// every clinical row an entry in the composition of its visit (or of its person's day); coded items with
// the concept name as rubric under the terminology openEHR names.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_DIR } from "../../src/crossmap/catalog.js";
import { loadCrossmapFile } from "../../src/crossmap/load.js";
import { builtinTemplates, OpenehrValidator } from "../../src/openehr/check/validator.js";
import { buildVocabulary } from "../../src/vocab/build.js";
import { openVocabulary } from "../../src/vocab/lmdb-bridge.js";
import { OMOP_SAMPLE_DIR, omopRows } from "../support/omop.js";
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

/** Clinical tables and the id column each row is known by in feeder_audit. */
const CLINICAL: Record<string, string> = {
  condition_occurrence: "condition_occurrence_id",
  drug_exposure: "drug_exposure_id",
  procedure_occurrence: "procedure_occurrence_id",
  measurement: "measurement_id",
  observation: "observation_id",
};

const tmp = mkdtempSync(join(tmpdir(), "crossmap-omop-openehr-"));
const vocab = join(tmp, "vocab");
let sample: MapRun;
beforeAll(async () => {
  await buildVocabulary({ sourceDir: resolve("vocab"), outDir: vocab });
  sample = await mapToOpenehr(["--from", "omop_cdm_v5.4", "--vocab", vocab], [OMOP_SAMPLE_DIR]);
}, 300_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** `type:id` of each row an entry was made from (two for a blood pressure: systolic and diastolic). */
const rowsOf = (e: Json): string[] =>
  e.feeder_audit.originating_system_item_ids.map((id: Json) => `${id.type}:${id.id}`);
const rowOf = (e: Json): string => rowsOf(e)[0] as string;

describe("OMOP CDM v5.4 -> openEHR 1.0.4 on the Synthea27Nj sample folder", () => {
  it("writes only EHR_STATUS and COMPOSITIONs of the shipped templates, each valid against the RM schema, the RM rules and its template", () => {
    const validator = new OpenehrValidator(builtinTemplates());
    const invalid: string[] = [];
    const kinds: Record<string, number> = {};
    for (const o of sample.objects) {
      const r = validator.check(o.value);
      const kind = r.templateId ? `${r.type} ${r.templateId}` : r.type;
      kinds[kind] = (kinds[kind] ?? 0) + 1;
      for (const v of r.violations) invalid.push(`${o.where}: ${v.severity} ${v.path}: ${v.message}`);
    }
    expect(invalid.slice(0, 10)).toEqual([]);
    expect(kinds).toEqual({
      EHR_STATUS: 28,
      "COMPOSITION crossmap.encounter.v1": 1791,
      "COMPOSITION crossmap.event_summary.v1": 2,
    });
  });

  it("puts every condition, drug, procedure, measurement and observation row into a composition as an entry", () => {
    const inside = new Set(compositions(sample).flatMap((c: Json) => (c.content ?? []).flatMap(rowsOf)));
    for (const [table, idColumn] of Object.entries(CLINICAL)) {
      const missing = omopRows(table)
        .map((r) => `${idColumn}:${r[idColumn]}`)
        .filter((id) => !inside.has(id));
      expect(missing.slice(0, 5), table).toEqual([]);
    }
    expect(sample.summary).toMatchObject({
      records_in: 22960,
      records_out: 1821,
      records_failed: 0,
      errors: 0,
    });
    // Synthea's few pulse and respiration rates with decimals are rounded to the archetypes' whole numbers;
    // the five tables the crossmap does not map are each named, not read silently past.
    // One unread_column per table of the sample that holds columns the compositions have no place for
    // (provenance, provider, visit detail); person's demographics are declared not_mapped.
    expect(issueCounts(sample)).toEqual({ precision_reduced: 5, skipped_file: 5, unread_column: 7 });
    expect(sample.code).toBe(0);
  });

  it("gathers each row into the composition of its visit, and a row without a visit into its person's day", () => {
    const visitOf = new Map<string, string | undefined>();
    for (const [table, idColumn] of Object.entries(CLINICAL))
      for (const r of omopRows(table)) visitOf.set(`${idColumn}:${r[idColumn]}`, r.visit_occurrence_id);
    const misplaced: string[] = [];
    const days: [string, string, string[]][] = [];
    for (const c of compositions(sample)) {
      if (c.name.value === "Event summary") {
        days.push([sourceId(c) as string, c.context.start_time.value, (c.content ?? []).map(rowOf)]);
        for (const e of c.content) if (visitOf.get(rowOf(e)) !== undefined) misplaced.push(rowOf(e));
      } else
        for (const e of c.content ?? [])
          for (const row of rowsOf(e)) if (visitOf.get(row) !== sourceId(c)) misplaced.push(row);
    }
    expect(misplaced).toEqual([]);
    expect(days).toEqual([
      ["10", "2022-07-03T00:00:00Z", ["condition_occurrence_id:137"]],
      [
        "10",
        "2022-07-04T00:00:00Z",
        ["drug_exposure_id:375", "drug_exposure_id:376", "drug_exposure_id:377", "drug_exposure_id:378"],
      ],
    ]);
  });

  it("routes measurements by concept to the vital-signs archetypes and lab results; observations to story", () => {
    expect(entriesByArchetype(sample)).toEqual({
      "openEHR-EHR-ACTION.procedure.v1": 1649,
      "openEHR-EHR-EVALUATION.problem_diagnosis.v1": 470,
      "openEHR-EHR-INSTRUCTION.medication_order.v3": 883,
      "openEHR-EHR-OBSERVATION.blood_pressure.v2": 726,
      "openEHR-EHR-OBSERVATION.body_mass_index.v2": 438,
      "openEHR-EHR-OBSERVATION.body_temperature.v2": 37,
      "openEHR-EHR-OBSERVATION.body_weight.v2": 511,
      "openEHR-EHR-OBSERVATION.height.v2": 496,
      "openEHR-EHR-OBSERVATION.laboratory_test_result.v1": 6156,
      "openEHR-EHR-OBSERVATION.pulse.v2": 468,
      "openEHR-EHR-OBSERVATION.pulse_oximetry.v1": 14,
      "openEHR-EHR-OBSERVATION.respiration.v2": 468,
      "openEHR-EHR-OBSERVATION.story.v1": 8099,
    });
  });

  it("merges the systolic and diastolic rows of one reading into one blood_pressure.v2 OBSERVATION", () => {
    const rows = omopRows("measurement");
    const bps = compositions(sample)
      .flatMap((c: Json) => c.content ?? [])
      .filter((e: Json) => e.archetype_node_id === "openEHR-EHR-OBSERVATION.blood_pressure.v2");
    // In input order: a diastolic row before its systolic row gives Diastolic first (the archetype's items are unordered).
    const bad = bps.filter((e: Json) => {
      const [sys, dia] = rowsOf(e)
        .map((r) => rows.find((m) => `measurement_id:${m.measurement_id}` === r))
        .sort(
          (a, b) =>
            Number(b?.measurement_concept_id === "3004249") - Number(a?.measurement_concept_id === "3004249"),
        );
      const items = e.data.events[0].data.items;
      const element = (name: string) => items.find((i: Json) => i.name.value === name)?.value.magnitude;
      return !(
        sys?.measurement_concept_id === "3004249" &&
        dia?.measurement_concept_id === "3012888" &&
        sys.person_id === dia.person_id &&
        sys.measurement_datetime === dia.measurement_datetime &&
        items.length === 2 &&
        element("Systolic") === Math.round(Number(sys.value_as_number)) &&
        element("Diastolic") === Math.round(Number(dia.value_as_number))
      );
    });
    expect(bps).toHaveLength(726);
    expect(bad.map(rowsOf).slice(0, 5)).toEqual([]);
  });

  it("writes coded items with the concept name as rubric under SNOMED-CT, LOINC or RxNorm, never OHDSI concept ids", () => {
    const text = sample.objects.map((o) => JSON.stringify(o.value)).join("\n");
    expect(text).not.toContain("OHDSI");
    const terminologies = new Set(
      [...text.matchAll(/"terminology_id":\{"_type":"TERMINOLOGY_ID","value":"([^"]+)"/g)].map((m) => m[1]),
    );
    expect([...terminologies].sort()).toEqual([
      "IANA_character-sets",
      "ISO_3166-1",
      "ISO_639-1",
      "LOINC",
      "RxNorm",
      "SNOMED-CT",
      "local",
      "openehr",
    ]);
    const condition = compositions(sample)
      .flatMap((c: Json) => c.content ?? [])
      .find((e: Json) => rowOf(e) === "condition_occurrence_id:1");
    expect(condition.data.items[0]).toEqual({
      _type: "ELEMENT",
      archetype_node_id: "at0002",
      name: { _type: "DV_TEXT", value: "Problem/Diagnosis name" },
      value: {
        _type: "DV_CODED_TEXT",
        value: "Otitis media",
        defining_code: {
          _type: "CODE_PHRASE",
          terminology_id: { _type: "TERMINOLOGY_ID", value: "SNOMED-CT" },
          code_string: "65363002",
        },
      },
    });
  });

  it("without a vocabulary writes a coded item as the DV_TEXT of the row's source value", async () => {
    const cm = await loadCrossmapFile(join(BUILTIN_DIR, "omop_cdm_v5.4-to-openehr_1.0.4.yaml"));
    const row = omopRows("condition_occurrence")[0] as Record<string, string>;
    const mapper = cm.mapper("condition_occurrence");
    if (!mapper.mapAll) throw new Error("condition_occurrence has several outputs");
    const { outputs, issues } = mapper.mapAll(row, 2);
    expect(issues).toEqual([]);
    const entry = outputs[0]?.value as Json;
    expect(entry.data.items[0].value).toEqual({ _type: "DV_TEXT", value: "65363002" });
  });

  it("writes a row whose concept id is 0 (no matching concept) with its source value, with or without a vocabulary", async () => {
    const bridge = openVocabulary(vocab);
    try {
      for (const options of [{}, { vocabulary: bridge }]) {
        const cm = await loadCrossmapFile(join(BUILTIN_DIR, "omop_cdm_v5.4-to-openehr_1.0.4.yaml"), options);
        const mapper = cm.mapper("drug_exposure");
        if (!mapper.mapAll) throw new Error("drug_exposure has several outputs");
        const row = { ...omopRows("drug_exposure")[0], drug_concept_id: "0", drug_source_value: "LOCAL-42" };
        const mapped = mapper.mapAll(row, 2);
        expect(mapped.issues).toEqual([]);
        const order = mapped.outputs.find((o) => o.output === "drug_exposure.medication_order")
          ?.value as Json;
        expect(order.activities[0].description.items[0]).toEqual({
          _type: "ELEMENT",
          archetype_node_id: "at0070",
          name: { _type: "DV_TEXT", value: "Medication item" },
          value: { _type: "DV_TEXT", value: "LOCAL-42" },
        });
        const bare = mapper.mapAll({ ...row, drug_source_value: "" }, 3);
        expect(bare.issues.map((i) => [i.field, i.code, i.severity, i.message])).toEqual([
          [
            "drug_exposure.drug_concept_id",
            "missing_value",
            "error",
            "concept 0 names no concept, and drug_source_value is absent",
          ],
          // ...and, since the field is required, the row's composition is incomplete.
          [
            "drug_exposure.drug_concept_id",
            "missing_required",
            "error",
            "required field drug_exposure.drug_concept_id gave no value",
          ],
        ]);
      }
    } finally {
      await bridge.close();
    }
  });

  it("takes language, territory and composer from --param, and reports a row whose visit is not in the run", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crossmap-omop-openehr-param-"));
    try {
      const visits = join(dir, "visit_occurrence.csv");
      const conditions = join(dir, "condition_occurrence.csv");
      writeFileSync(
        visits,
        "visit_occurrence_id,person_id,visit_concept_id,visit_start_date,visit_start_datetime,visit_type_concept_id\n" +
          "7,1,9202,2020-02-14,2020-02-14 09:30:00,44818517\n",
      );
      writeFileSync(
        conditions,
        "condition_occurrence_id,person_id,condition_concept_id,condition_start_date,condition_type_concept_id,visit_occurrence_id,condition_source_value\n" +
          "1,1,372328,2020-02-14,38000175,7,65363002\n" +
          "2,1,372328,2020-02-15,38000175,8,65363002\n",
      );
      const run = await mapToOpenehr(
        [
          "--from",
          "omop_cdm_v5.4",
          "--param",
          "language=de",
          "--param",
          "territory=DE",
          "--param",
          "composer=Dr. Ada Lovelace",
        ],
        [visits, conditions],
      );
      const cs = compositions(run);
      expect(cs.map((c: Json) => [c.language.code_string, c.territory.code_string, c.composer.name])).toEqual(
        [["de", "DE", "Dr. Ada Lovelace"]],
      );
      expect(cs[0].content.map((e: Json) => [rowOf(e), e.language.code_string])).toEqual([
        ["condition_occurrence_id:1", "de"],
      ]);
      // The *_type_concept_id (the record's provenance) has no place in the compositions: named once per file.
      const unread = (file: string, field: string) => ({
        file,
        line: 2,
        entity: field.split(".")[0],
        field,
        code: "unread_column",
        severity: "warning",
        message:
          "not read by the omop_cdm_v5.4 -> openehr_1.0.4 crossmap: the values in this file are not mapped (reported once per file and entity)",
      });
      expect(run.issues).toEqual([
        unread(visits, "visit_occurrence.visit_type_concept_id"),
        unread(conditions, "condition_occurrence.condition_type_concept_id"),
        {
          file: conditions,
          line: 3,
          entity: "condition_occurrence",
          code: "orphan_record",
          severity: "error",
          message:
            'condition_occurrence.problem_diagnosis was to be gathered into visit_occurrence.encounter with key "8", which no record of the run produced; it was not written',
        },
      ]);
      expect(run.code).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe("golden compositions, one per archetype", () => {
    for (const id of [
      "openEHR-EHR-EVALUATION.problem_diagnosis.v1",
      "openEHR-EHR-INSTRUCTION.medication_order.v3",
      "openEHR-EHR-ACTION.procedure.v1",
      "openEHR-EHR-OBSERVATION.blood_pressure.v2",
      "openEHR-EHR-OBSERVATION.body_weight.v2",
      "openEHR-EHR-OBSERVATION.height.v2",
      "openEHR-EHR-OBSERVATION.body_mass_index.v2",
      "openEHR-EHR-OBSERVATION.pulse.v2",
      "openEHR-EHR-OBSERVATION.respiration.v2",
      "openEHR-EHR-OBSERVATION.body_temperature.v2",
      "openEHR-EHR-OBSERVATION.pulse_oximetry.v1",
      "openEHR-EHR-OBSERVATION.laboratory_test_result.v1",
      "openEHR-EHR-OBSERVATION.story.v1",
    ])
      it(id, () => expectGoldenComposition(sample, "omop", id));
  });
});
