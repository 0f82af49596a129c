// vocabulary_lookup against the VocabularyBridge contract. An in-memory bridge stands in here because
// the contract, not the index, is under test; the LMDB index has its own tests under test/vocab/.
import { describe, expect, it } from "vitest";
import type { Concept, VocabularyBridge } from "../../src/vocab/bridge.js";
import { codes, loadError, transformer } from "../helpers.js";

const concept = (id: number, vocabulary: string, code: string, name: string): Concept => ({
  concept_id: id,
  concept_name: name,
  domain_id: "Condition",
  vocabulary_id: vocabulary,
  concept_class_id: "Clinical Finding",
  standard_concept: vocabulary === "SNOMED" ? "S" : null,
  concept_code: code,
  valid_start_date: "1970-01-01",
  valid_end_date: "2099-12-31",
  invalid_reason: null,
});

const concepts = new Map([
  [201826, concept(201826, "SNOMED", "44054006", "Type 2 diabetes mellitus")],
  [1567956, concept(1567956, "ICD10CM", "E11.9", "Type 2 diabetes mellitus without complications")],
]);
const URIS: Record<string, string> = {
  SNOMED: "http://snomed.info/sct",
  ICD10CM: "http://hl7.org/fhir/sid/icd-10-cm",
};

const bridge: VocabularyBridge = {
  getConcept: (id) => concepts.get(id),
  mapConcept: (id, o) =>
    id === 1567956 && (!o?.targetVocabulary || o.targetVocabulary === "SNOMED")
      ? [concepts.get(201826) as Concept]
      : [],
  lookupCode: () => undefined,
  standardConcept: () => undefined,
  toCodeableConcept: (id) => {
    const c = concepts.get(id);
    return (
      c && {
        coding: [{ system: URIS[c.vocabulary_id] as string, code: c.concept_code, display: c.concept_name }],
      }
    );
  },
  toDvCodedText: () => undefined,
};

describe("vocabulary_lookup", () => {
  it("renders a concept as a CodeableConcept with its own system and code", () => {
    expect(transformer("vocabulary_lookup", {}, { vocabulary: bridge })(201826).out).toEqual({
      coding: [{ system: "http://snomed.info/sct", code: "44054006", display: "Type 2 diabetes mellitus" }],
    });
  });
  it("follows the mapping into target_vocabulary", () => {
    const t = transformer(
      "vocabulary_lookup",
      { target_vocabulary: "SNOMED", output: "concept_id" },
      { vocabulary: bridge },
    );
    expect(t("1567956").out).toBe(201826);
    expect(
      transformer("vocabulary_lookup", { output: "concept_code" }, { vocabulary: bridge })(1567956).out,
    ).toBe("E11.9");
  });
  it("reports unknown concepts and missing mappings", () => {
    const t = transformer("vocabulary_lookup", { target_vocabulary: "LOINC" }, { vocabulary: bridge });
    expect(t(1).issues[0]).toMatchObject({
      code: "concept_not_found",
      message: "concept 1 is not in the vocabulary",
    });
    expect(t(1567956).issues[0]?.message).toBe("concept 1567956 (ICD10CM) has no mapping to LOINC");
    expect(codes(t("abc"))).toEqual(["invalid_value"]);
  });
  it("fails to load without a vocabulary bridge", () => {
    expect(
      loadError(
        "source: s\ntarget: t\nentity_map: {e: T}\nfield_map:\n  e.a: {target: T.b, transform: vocabulary_lookup}\n",
      ),
    ).toContain("vocabulary_lookup: no vocabulary bridge configured: pass --vocab DIR");
  });
  it("without a bridge, uses fallback_system for the bare concept id when given", () => {
    const t = transformer("vocabulary_lookup", { fallback_system: "https://fhir-terminology.ohdsi.org" });
    expect(t(201826).out).toEqual({
      coding: [{ system: "https://fhir-terminology.ohdsi.org", code: "201826" }],
    });
  });
  it("without a bridge, fallback_dv_text writes a DV_TEXT of the source value; with one, never", () => {
    const config = { output: "dv_coded_text", fallback_dv_text: true, fallback_text_field: "src" };
    const t = transformer("vocabulary_lookup", config);
    expect(t(201826, { src: "44054006" }).out).toEqual({ _type: "DV_TEXT", value: "44054006" });
    expect(t(201826).issues[0]).toMatchObject({
      code: "missing_value",
      message: "no vocabulary to render concept 201826, and src is absent",
    });
    // This bridge renders no DV_CODED_TEXT: the failure is reported, not papered over with the source value.
    expect(
      transformer("vocabulary_lookup", config, { vocabulary: bridge })(201826, { src: "x" }).issues[0],
    ).toMatchObject({
      code: "concept_not_found",
      message: "concept 201826 cannot be rendered",
    });
  });
});
