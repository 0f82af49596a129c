import { describe, expect, it } from "vitest";
import { mapBatch } from "../../src/crossmap/batch.js";
import { CrossmapProvider } from "../../src/crossmap/provider.js";
import type { TargetRecord } from "../../src/crossmap/types.js";
import type { AppError } from "../../src/errors.js";

describe("CrossmapProvider", () => {
  const provider = new CrossmapProvider();
  it("compiles a built-in once and hands out the same compiled crossmap", () => {
    const a = provider.builtin("omop_cdm_v5.4", "fhir_r4");
    expect(a.file).toBe("omop_cdm_v5.4-to-fhir_r4.yaml");
    expect(provider.builtin("omop_cdm_v5.4", "fhir_r4").crossmap).toBe(a.crossmap);
  });
  it("answers 404 naming both standards for an unknown pair", () => {
    try {
      provider.builtin("omop_cdm_v5.4", "cda");
      expect.unreachable();
    } catch (err) {
      expect((err as AppError).status).toBe(404);
      expect((err as AppError).message).toMatch(/^No crossmap from omop_cdm_v5.4 to cda\. Available: /);
    }
  });
  it("compiles caller YAML with located problems, and caches by text", () => {
    const text =
      "source: x\ntarget: y\nentity_map: {a: B}\nfield_map: {a.f: {target: B.f, transform: str}}\n";
    expect(provider.fromText(text).crossmap).toBe(provider.fromText(text).crossmap);
    expect(provider.fromText(text).file).toBeNull();
    try {
      provider.fromText(
        "source: x\ntarget: y\nentity_map: {a: B}\nfield_map: {a.f: {target: B.f, transform: nope}}",
      );
      expect.unreachable();
    } catch (err) {
      expect((err as AppError).status).toBe(422);
      expect((err as AppError).problems[0]).toMatchObject({
        path: ["field_map", "a.f", "transform"],
        line: 4,
      });
    }
  });
});

describe("mapBatch", () => {
  it("keeps order and reports issues with the record's index", () => {
    const { crossmap } = new CrossmapProvider().builtin("omop_cdm_v5.4", "fhir_r4");
    const r = mapBatch(crossmap, "person", [
      { person_id: 1, gender_concept_id: 8507 },
      { person_id: 2, gender_concept_id: 1 },
      { person_id: 1741351032930224901n, gender_concept_id: 8532 },
    ]);
    expect(r.targetEntity).toBe("Patient");
    expect(r.results.map((x) => [(x as TargetRecord).id, (x as TargetRecord).gender])).toEqual([
      ["1", "male"],
      ["2", undefined],
      ["1741351032930224901", "female"],
    ]);
    expect(r.issues).toEqual([
      expect.objectContaining({
        record: 1,
        field: "person.gender_concept_id",
        code: "unmapped_value",
        value: 1,
      }),
      // A required field that gives no value is as missing as an absent one.
      expect.objectContaining({
        record: 1,
        field: "person.gender_concept_id",
        code: "missing_required",
        message: "required field person.gender_concept_id gave no value",
      }),
    ]);
  });
});
