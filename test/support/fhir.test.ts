// The validators themselves must catch what we rely on them for, or every FHIR test passes vacuously.
import { describe, expect, it } from "vitest";
import { fhirProblems } from "./fhir.js";

describe("FHIR validation support", () => {
  it("accepts a valid Patient", () => {
    expect(
      fhirProblems({ resourceType: "Patient", id: "1", gender: "male", birthDate: "1990-05-15" }),
    ).toEqual([]);
  });
  it("rejects a gender outside the required binding (schema) and a bad date and unknown element (structure)", () => {
    expect(fhirProblems({ resourceType: "Patient", gender: "x" }).some((p) => p.startsWith("schema:"))).toBe(
      true,
    );
    expect(fhirProblems({ resourceType: "Patient", birthDate: "1990-13-01" }).length).toBeGreaterThan(0);
    expect(fhirProblems({ resourceType: "Patient", foo: 1 }).length).toBeGreaterThan(0);
  });
  it("rejects a missing required element and empty strings", () => {
    expect(fhirProblems({ resourceType: "Observation", code: { text: "x" } }).length).toBeGreaterThan(0);
    expect(fhirProblems({ resourceType: "Patient", id: "" }).length).toBeGreaterThan(0);
  });
});
