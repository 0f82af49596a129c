import { describe, expect, it } from "vitest";
import { canonicalStandard } from "../../src/crossmap/standard-names.js";

const known = ["omop_cdm_v5.4", "fhir_r4", "hl7v2_2.5.1", "openehr_1.0.4", "fhir_r5"];

describe("canonicalStandard: a standard's id or an unambiguous start of it", () => {
  it("keeps ids, in any case", () => {
    expect(canonicalStandard("fhir_r4", known)).toBe("fhir_r4");
    expect(canonicalStandard("OMOP_CDM_V5.4", known)).toBe("omop_cdm_v5.4");
  });

  it("expands short names that start exactly one id", () => {
    expect(canonicalStandard("omop", known)).toBe("omop_cdm_v5.4");
    expect(canonicalStandard("HL7v2", known)).toBe("hl7v2_2.5.1");
    expect(canonicalStandard("openehr", known)).toBe("openehr_1.0.4");
    expect(canonicalStandard("fhir_r4", [...known, "fhir_r4b"])).toBe("fhir_r4");
  });

  it("leaves ambiguous, unknown and empty names alone for the caller's error", () => {
    expect(canonicalStandard("fhir", known)).toBe("fhir");
    expect(canonicalStandard("cda", known)).toBe("cda");
    expect(canonicalStandard("", known)).toBe("");
  });
});
