import { describe, expect, it } from "vitest";
import {
  fhirSystemFor,
  openehrTerminologyFor,
  VOCABULARY_SYSTEMS,
  vocabularyForSystem,
} from "../../src/vocab/systems.js";

describe("vocabulary systems table", () => {
  it("covers every vocabulary the issue names", () => {
    const ids = VOCABULARY_SYSTEMS.map((s) => s.vocabularyId);
    for (const v of [
      "SNOMED",
      "LOINC",
      "RxNorm",
      "ICD10CM",
      "ICD9CM",
      "ICD10PCS",
      "CPT4",
      "HCPCS",
      "NDC",
      "CVX",
      "ATC",
      "UCUM",
      "Gender",
      "Race",
      "Ethnicity",
      "Visit",
    ]) {
      expect(ids).toContain(v);
    }
  });

  it("gives the FHIR R4 system URIs", () => {
    expect(fhirSystemFor("SNOMED")).toBe("http://snomed.info/sct");
    expect(fhirSystemFor("LOINC")).toBe("http://loinc.org");
    expect(fhirSystemFor("RxNorm")).toBe("http://www.nlm.nih.gov/research/umls/rxnorm");
    expect(fhirSystemFor("ICD10CM")).toBe("http://hl7.org/fhir/sid/icd-10-cm");
    expect(fhirSystemFor("UCUM")).toBe("http://unitsofmeasure.org");
    expect(fhirSystemFor("Nebraska Lexicon")).toBeUndefined();
  });

  it("maps URIs, OIDs and openEHR ids back to the vocabulary, and each URI to one vocabulary only", () => {
    expect(vocabularyForSystem("http://snomed.info/sct")).toBe("SNOMED");
    expect(vocabularyForSystem("http://loinc.org/")).toBe("LOINC");
    expect(vocabularyForSystem("urn:oid:2.16.840.1.113883.6.90")).toBe("ICD10CM");
    expect(vocabularyForSystem("SNOMED-CT")).toBe("SNOMED");
    expect(vocabularyForSystem("http://example.org/unknown")).toBeUndefined();
    const uris = VOCABULARY_SYSTEMS.flatMap((s) => [s.fhirSystem, ...(s.aliases ?? [])]);
    expect(new Set(uris).size).toBe(uris.length);
  });

  it("keeps the OMOP vocabulary_id as openEHR terminology id when the table has none", () => {
    expect(openehrTerminologyFor("SNOMED")).toBe("SNOMED-CT");
    expect(openehrTerminologyFor("Nebraska Lexicon")).toBe("Nebraska Lexicon");
  });
});
