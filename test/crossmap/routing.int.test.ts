// Routing by what a code means: a FHIR Observation goes to the OMOP table of its concept's domain, through
// the real vocabulary bridge over the shipped sample vocabulary; without a vocabulary the default route.
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCrossmap } from "../../src/crossmap/load.js";
import { buildVocabulary } from "../../src/vocab/build.js";
import { type LmdbVocabularyBridge, openVocabulary } from "../../src/vocab/lmdb-bridge.js";
import { tempDir } from "../vocab/fixtures.js";

const tmp = tempDir("crossmap-routing-");
let vocabulary: LmdbVocabularyBridge;
beforeAll(async () => {
  await buildVocabulary({ sourceDir: resolve("vocab"), outDir: join(tmp.path, "index") });
  vocabulary = openVocabulary(join(tmp.path, "index"));
});
afterAll(async () => {
  await vocabulary.close();
  tmp.remove();
});

const CROSSMAP = `source: fhir_r4
target: omop_cdm_v5.4
entity_map:
  Observation:
    - choose:
        - {target: measurement, when: {field: code, transform: domain, vocabulary_optional: true, equals: Measurement}}
        - {target: condition_occurrence, when: {field: code, transform: domain, vocabulary_optional: true, equals: Condition}}
        - {target: observation}
transforms:
  domain: {type: vocabulary_reverse_lookup, output: domain_id}
field_map:
  Observation.code.coding[0].code:
    target: [measurement.measurement_source_value, condition_occurrence.condition_source_value, observation.observation_source_value]
`;

const observation = (code: string) => ({
  resourceType: "Observation",
  code: { coding: [{ system: "http://loinc.org", code }] },
});

describe("routing an Observation by its concept's domain", () => {
  it("sends a lab to measurement and smoking status (LOINC 72166-2, domain Observation) to observation", () => {
    const m = parseCrossmap(CROSSMAP, { vocabulary }).mapper("Observation");
    const route = (code: string) => m.mapAll?.(observation(code), 1).outputs.map((o) => [o.entity, o.value]);
    expect(route("8480-6")).toEqual([["measurement", { measurement_source_value: "8480-6" }]]);
    expect(route("72166-2")).toEqual([["observation", { observation_source_value: "72166-2" }]]);
    // a code the vocabulary lacks: no domain, the default route
    expect(route("99999-9")).toEqual([["observation", { observation_source_value: "99999-9" }]]);
  });
  it("takes the default route for every record without a vocabulary", () => {
    const m = parseCrossmap(CROSSMAP).mapper("Observation");
    expect(m.mapAll?.(observation("8480-6"), 1).outputs.map((o) => o.entity)).toEqual(["observation"]);
  });
});
