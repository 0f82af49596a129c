// omop_codeable_concept and omop_concept_of: an OMOP concept, its source value and source concept survive the
// trip into one FHIR CodeableConcept and back, with and without a vocabulary; a CodeableConcept made elsewhere is
// resolved through the vocabulary. An in-memory bridge stands in for the index (the contract is under test).
import { describe, expect, it } from "vitest";
import type { Concept, VocabularyBridge } from "../../src/vocab/bridge.js";
import { codes, transformer } from "../helpers.js";

const OHDSI = "https://fhir-terminology.ohdsi.org";
const SOURCE_CONCEPT = "https://example.org/omop-source-concept";

const concept = (
  id: number,
  vocabulary: string,
  code: string,
  name: string,
  domain = "Condition",
): Concept => ({
  concept_id: id,
  concept_name: name,
  domain_id: domain,
  vocabulary_id: vocabulary,
  concept_class_id: "Clinical Finding",
  standard_concept: vocabulary === "SNOMED" || vocabulary === "UCUM" ? "S" : null,
  concept_code: code,
  valid_start_date: "1970-01-01",
  valid_end_date: "2099-12-31",
  invalid_reason: null,
});
const concepts = [
  concept(201826, "SNOMED", "44054006", "Type 2 diabetes mellitus"),
  concept(1567956, "ICD10CM", "E11.9", "Type 2 diabetes mellitus without complications"),
  concept(4275495, "SNOMED", "162864005", "Body mass index 30+ - obesity", "Observation"),
  concept(8840, "UCUM", "mg/dL", "milligram per deciliter", "Unit"),
];
const byId = new Map(concepts.map((c) => [c.concept_id, c]));
const byCode = new Map(concepts.map((c) => [`${c.vocabulary_id}|${c.concept_code}`, c]));
const bridge: VocabularyBridge = {
  getConcept: (id) => byId.get(id),
  mapConcept: () => [],
  lookupCode: (v, code) => byCode.get(`${v}|${code}`),
  standardConcept: (v, code) =>
    v === "ICD10CM" && code === "E11.9" ? byId.get(201826) : byCode.get(`${v}|${code}`),
  toCodeableConcept: () => undefined,
  toDvCodedText: () => undefined,
};

const forward = {
  concept_system: OHDSI,
  source_value_field: "sv",
  source_concept_field: "sc",
  source_concept_extension: SOURCE_CONCEPT,
};
const row = { sv: "E11.9", sc: "1567956" };

describe("omop_codeable_concept", () => {
  it("without a vocabulary: the concept under OHDSI, the source code alone, the source concept in its extension", () => {
    expect(transformer("omop_codeable_concept", forward)("201826", row)).toEqual({
      out: {
        extension: [{ url: SOURCE_CONCEPT, valueCoding: { system: OHDSI, code: "1567956" } }],
        coding: [
          { system: OHDSI, code: "201826" },
          { code: "E11.9", userSelected: true },
        ],
      },
      issues: [],
    });
  });
  it("takes a source value of spaces only (a fixed-width export's) as none: no text FHIR would refuse", () => {
    expect(transformer("omop_codeable_concept", forward)("201826", { sv: "   ", sc: " " })).toEqual({
      out: { coding: [{ system: OHDSI, code: "201826" }] },
      issues: [],
    });
  });
  it("with a vocabulary: the standard code first, the source code in the source concept's system", () => {
    expect(transformer("omop_codeable_concept", forward, { vocabulary: bridge })("201826", row).out).toEqual({
      extension: [
        {
          url: SOURCE_CONCEPT,
          valueCoding: {
            system: OHDSI,
            code: "1567956",
            display: "Type 2 diabetes mellitus without complications",
          },
        },
      ],
      coding: [
        { system: "http://snomed.info/sct", code: "44054006", display: "Type 2 diabetes mellitus" },
        { system: OHDSI, code: "201826", display: "Type 2 diabetes mellitus" },
        {
          system: "http://hl7.org/fhir/sid/icd-10-cm",
          code: "E11.9",
          display: "Type 2 diabetes mellitus without complications",
          userSelected: true,
        },
      ],
    });
  });
  it("keeps a concept the vocabulary lacks under OHDSI, with no issue", () => {
    expect(transformer("omop_codeable_concept", forward, { vocabulary: bridge })("2000000001")).toEqual({
      out: { coding: [{ system: OHDSI, code: "2000000001" }] },
      issues: [],
    });
  });
  it("marks the standard coding as the source when they are the same code", () => {
    const t = transformer("omop_codeable_concept", forward, { vocabulary: bridge });
    expect(t("201826", { sv: "44054006", sc: "201826" }).out).toMatchObject({
      coding: [
        {
          system: "http://snomed.info/sct",
          code: "44054006",
          display: "Type 2 diabetes mellitus",
          userSelected: true,
        },
        { system: OHDSI, code: "201826", display: "Type 2 diabetes mellitus" },
      ],
    });
  });
  it("trims a source code, keeps a phrase as text verbatim, and writes nothing for concept 0 without a source", () => {
    const t = transformer("omop_codeable_concept", forward);
    expect(t("0", { sv: "78791  " }).out).toEqual({ coding: [{ code: "78791", userSelected: true }] });
    expect(t("0", { sv: "Sodium Chloride 0.9%  Flush Syringe" }).out).toEqual({
      text: "Sodium Chloride 0.9%  Flush Syringe",
    });
    expect(t("0", {})).toEqual({ out: undefined, issues: [] });
  });
  it("wraps the CodeableConcept in an extension when asked", () => {
    const t = transformer("omop_codeable_concept", {
      concept_system: OHDSI,
      source_value_field: "sv",
      extension_url: "https://example.org/omop-race",
    });
    expect(t("8527", { sv: "white" }).out).toEqual({
      url: "https://example.org/omop-race",
      valueCodeableConcept: {
        coding: [
          { system: OHDSI, code: "8527" },
          { code: "white", userSelected: true },
        ],
      },
    });
  });
  it("reports a concept id that is not an integer", () => {
    expect(codes(transformer("omop_codeable_concept", forward)("abc", {}))).toEqual(["invalid_value"]);
  });
});

const reader = (part: string, extra: Record<string, unknown> = {}, vocabulary?: VocabularyBridge) =>
  transformer(
    "omop_concept_of",
    { part, concept_system: OHDSI, source_concept_extension: SOURCE_CONCEPT, ...extra },
    vocabulary ? { vocabulary } : {},
  );

describe("omop_concept_of", () => {
  const made = transformer("omop_codeable_concept", forward, { vocabulary: bridge })("201826", row).out;
  it("reads every part of a CodeableConcept it wrote back exactly, with or without a vocabulary", () => {
    for (const v of [undefined, bridge]) {
      expect(reader("concept_id", {}, v)(made).out).toBe(201826);
      expect(reader("source_value", {}, v)(made).out).toBe("E11.9");
      expect(reader("source_concept_id", {}, v)(made).out).toBe(1567956);
    }
    expect(reader("domain_id", {}, bridge)(made).out).toBe("Condition");
  });
  it("reads a free-text source value back from text, and finds nothing for an absent source concept", () => {
    const cc = { coding: [{ system: OHDSI, code: "201826" }], text: "sugar  diabetes" };
    expect(reader("source_value")(cc).out).toBe("sugar  diabetes");
    expect(reader("source_concept_id", {}, bridge)(cc)).toEqual({ out: undefined, issues: [] });
  });
  it("resolves a CodeableConcept made elsewhere through the vocabulary", () => {
    const cc = { coding: [{ system: "http://hl7.org/fhir/sid/icd-10-cm", code: "E11.9" }], text: "Diabetes" };
    expect(reader("concept_id", {}, bridge)(cc).out).toBe(201826);
    expect(reader("source_concept_id", {}, bridge)(cc).out).toBe(1567956);
    expect(reader("source_value", {}, bridge)(cc).out).toBe("E11.9");
    expect(
      reader("domain_id", {}, bridge)({ coding: [{ system: "http://snomed.info/sct", code: "162864005" }] })
        .out,
    ).toBe("Observation");
  });
  it("without a vocabulary a CodeableConcept made elsewhere gives no concept id (the field's default applies)", () => {
    const cc = { coding: [{ system: "http://snomed.info/sct", code: "44054006" }] };
    expect(reader("concept_id")(cc)).toEqual({ out: undefined, issues: [] });
  });
  it("reports an unknown code as concept_not_found, and a concept outside the wanted domains", () => {
    const r = reader(
      "concept_id",
      {},
      bridge,
    )({ coding: [{ system: "http://snomed.info/sct", code: "999" }] });
    expect(r.issues.map((i) => i.message)).toEqual(['SNOMED code "999" is not in the vocabulary']);
    const d = reader(
      "concept_id",
      { domains: ["Visit"] },
      bridge,
    )({ coding: [{ system: "http://snomed.info/sct", code: "44054006" }] });
    expect(d.issues.map((i) => i.message)).toEqual([
      'SNOMED code "44054006" is a Condition concept, not Visit',
    ]);
  });
  it("reads a Quantity's unit: concept from its extension, source value from the unit, else the vocabulary", () => {
    const UNIT = "https://example.org/omop-concept";
    const q = {
      extension: [{ url: UNIT, valueCoding: { system: OHDSI, code: "8840" } }],
      value: 1,
      unit: "mg/dl",
      system: "http://unitsofmeasure.org",
      code: "mg/dL",
    };
    expect(reader("concept_id", { concept_extension: UNIT })(q).out).toBe(8840);
    expect(reader("source_value", { concept_extension: UNIT })(q).out).toBe("mg/dl");
    const plain = {
      value: 1,
      unit: "milligram per deciliter",
      system: "http://unitsofmeasure.org",
      code: "mg/dL",
    };
    expect(reader("concept_id", { concept_extension: UNIT }, bridge)(plain).out).toBe(8840);
    expect(reader("source_value", { concept_extension: UNIT })(plain).out).toBe("mg/dL");
  });
  it("reads the CodeableConcept of an extension in a list, and prefers the OHDSI-coded one in a list", () => {
    const list = [
      {
        url: "https://example.org/omop-race",
        valueCodeableConcept: { coding: [{ system: OHDSI, code: "8527" }] },
      },
    ];
    expect(reader("concept_id", { extension: "https://example.org/omop-race" })(list).out).toBe(8527);
    const types = [
      { coding: [{ system: "http://snomed.info/sct", code: "1" }] },
      { coding: [{ system: OHDSI, code: "9202" }] },
    ];
    expect(reader("concept_id")(types).out).toBe(9202);
  });
});
