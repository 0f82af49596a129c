// OMOP -> FHIR -> OMOP through the built-in crossmaps on every bundled Synthea27Nj table, without and with the
// sample vocabulary: every row comes back in its own table under its own id, and every value comes back
// (the issue asks for >= 99 % with the vocabulary and >= 98 % without; this sample gives 100 % in both).
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_DIR } from "../../src/crossmap/catalog.js";
import { loadCrossmapFile } from "../../src/crossmap/load.js";
import { loadStandard } from "../../src/crossmap/standards.js";
import { resolveInputs } from "../../src/pipeline/inputs.js";
import { composePlan } from "../../src/pipeline/plan.js";
import { type RoundtripReport, roundtripReport } from "../../src/pipeline/roundtrip/report.js";
import { runRoundtrip } from "../../src/pipeline/roundtrip/run.js";
import { buildVocabulary } from "../../src/vocab/build.js";
import { type LmdbVocabularyBridge, openVocabulary } from "../../src/vocab/lmdb-bridge.js";
import { OMOP_SAMPLE_DIR } from "../support/omop.js";
import { tempDir } from "../vocab/fixtures.js";

const tmp = tempDir("crossmap-roundtrip-");
let vocabulary: LmdbVocabularyBridge;
beforeAll(async () => {
  await buildVocabulary({ sourceDir: resolve("vocab"), outDir: join(tmp.path, "index") });
  vocabulary = openVocabulary(join(tmp.path, "index"));
});
afterAll(async () => {
  await vocabulary.close();
  tmp.remove();
});

const cdm = loadStandard("omop_cdm_v5.4");

async function roundtrip(withVocabulary: boolean): Promise<RoundtripReport> {
  const options = withVocabulary ? { vocabulary } : {};
  const there = await loadCrossmapFile(join(BUILTIN_DIR, "omop_cdm_v5.4-to-fhir_r4.yaml"), options);
  const back = await loadCrossmapFile(join(BUILTIN_DIR, "fhir_r4-to-omop_cdm_v5.4.yaml"), options);
  const inputs = await resolveInputs({
    inputs: [OMOP_SAMPLE_DIR],
    format: undefined,
    entity: undefined,
    plan: composePlan([there]),
    note: () => {},
  });
  const result = await runRoundtrip({
    there,
    back,
    inputs,
    keyOf: (table) => cdm?.entities[table]?.fields[0]?.name,
    typeOf: (table, column) => cdm?.entities[table]?.fields.find((f) => f.name === column)?.type,
    stdin: process.stdin,
  });
  return roundtripReport(result, { from: there.source, via: there.target, vocabulary: withVocabulary });
}

const TABLE_ROWS = {
  condition_occurrence: 470,
  death: 3,
  device_exposure: 1,
  drug_exposure: 883,
  measurement: 10040,
  observation: 8099,
  observation_period: 28,
  person: 28,
  procedure_occurrence: 1649,
  provider: 67,
  visit_detail: 1791,
  visit_occurrence: 1791,
};

for (const withVocabulary of [false, true]) {
  describe(`OMOP -> FHIR -> OMOP on Synthea27Nj ${withVocabulary ? "with" : "without"} the sample vocabulary`, () => {
    let report: RoundtripReport;
    beforeAll(async () => {
      report = await roundtrip(withVocabulary);
    });
    it("brings every row back in its own table under its own id, and nothing else", () => {
      expect(Object.fromEntries(report.tables.map((t) => [t.table, t.rows]))).toEqual(TABLE_ROWS);
      for (const t of report.tables) {
        expect([t.table, t.rows_back, t.other_rows]).toEqual([t.table, t.rows, {}]);
      }
      expect(report.total.rows_back_pct).toBe(100);
      expect(report.not_read_back).toEqual({});
    });
    it(`brings every value back (the issue's bar: ${withVocabulary ? 99 : 98} %)`, () => {
      expect(report.total.values).toBe(390650);
      expect(report.tables.flatMap((t) => t.lost_columns)).toEqual([]);
      expect(report.total.values_back_pct).toBeGreaterThanOrEqual(withVocabulary ? 99 : 98);
      expect(report.total.values_back).toBe(390650);
      expect(report.issues).toMatchObject({ errors: 0, warnings: 0 });
    });
  });
}
