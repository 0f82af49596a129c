// vocabulary_lookup and vocabulary_reverse_lookup over a real LMDB index built from the shipped sample
// vocabulary (vocab/), through the real crossmap loader and compiler.
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildVocabulary } from "../../src/vocab/build.js";
import { type LmdbVocabularyBridge, openVocabulary } from "../../src/vocab/lmdb-bridge.js";
import { codes, loadError, transformer } from "../helpers.js";
import { tempDir, writeAthena } from "../vocab/fixtures.js";

const tmp = tempDir("crossmap-transform-vocab-");
let vocabulary: LmdbVocabularyBridge;

beforeAll(async () => {
  await buildVocabulary({ sourceDir: resolve("vocab"), outDir: join(tmp.path, "index") });
  vocabulary = openVocabulary(join(tmp.path, "index"));
});
afterAll(async () => {
  await vocabulary.close();
  tmp.remove();
});

describe("vocabulary_lookup over the sample index", () => {
  it("renders an OMOP condition_concept_id as a FHIR CodeableConcept with the SNOMED code", () => {
    const t = transformer("vocabulary_lookup", { output: "codeable_concept" }, { vocabulary });
    expect(t("201826").out).toEqual({
      coding: [{ system: "http://snomed.info/sct", code: "44054006", display: "Type 2 diabetes mellitus" }],
      text: "Type 2 diabetes mellitus",
    });
  });

  it("maps a source concept into the target vocabulary, and renders openEHR DV_CODED_TEXT", () => {
    expect(
      transformer(
        "vocabulary_lookup",
        { target_vocabulary: "SNOMED", output: "concept_id" },
        { vocabulary },
      )(1567956).out,
    ).toBe(201826);
    expect(
      transformer("vocabulary_lookup", { output: "dv_coded_text" }, { vocabulary })(3004410).out,
    ).toEqual({
      _type: "DV_CODED_TEXT",
      value: "Hemoglobin A1c/Hemoglobin.total in Blood",
      defining_code: {
        _type: "CODE_PHRASE",
        terminology_id: { _type: "TERMINOLOGY_ID", value: "LOINC" },
        code_string: "4548-4",
      },
    });
  });

  it("leaves out unknown concepts with a concept_not_found issue", () => {
    const r = transformer("vocabulary_lookup", {}, { vocabulary })(38000175);
    expect(r.out).toBeUndefined();
    expect(r.issues[0]).toMatchObject({
      code: "concept_not_found",
      message: "concept 38000175 is not in the vocabulary",
    });
  });
});

describe("vocabulary_reverse_lookup over the sample index", () => {
  it("turns a FHIR CodeableConcept into the standard OMOP concept id", () => {
    const t = transformer("vocabulary_reverse_lookup", {}, { vocabulary });
    const condition = {
      coding: [{ system: "http://hl7.org/fhir/sid/icd-10-cm", code: "E11.9", display: "T2DM" }],
    };
    expect(t(condition).out).toBe(201826);
    expect(t({ system: "http://loinc.org", code: "4548-4" }).out).toBe(3004410);
  });

  it("takes the first coding that resolves and reports the first failure when none does", () => {
    const t = transformer("vocabulary_reverse_lookup", {}, { vocabulary });
    const twoCodings = {
      coding: [
        { system: "http://example.org/local", code: "x" },
        { system: "http://snomed.info/sct", code: "44054006" },
      ],
    };
    expect(t(twoCodings).out).toBe(201826);
    const none = t({
      coding: [
        { system: "http://example.org/local", code: "x" },
        { system: "http://snomed.info/sct", code: "0" },
      ],
    });
    expect(none.out).toBeUndefined();
    expect(none.issues[0]).toMatchObject({
      code: "unmapped_value",
      message: 'unknown code system "http://example.org/local"',
    });
  });

  it("gives the source concept itself with standard: false, for *_source_concept_id fields", () => {
    const t = transformer(
      "vocabulary_reverse_lookup",
      { system: "ICD10CM", standard: false },
      { vocabulary },
    );
    expect(t("E11.9").out).toBe(1567956);
  });

  it("reads the code system from another field, as in HL7 v2 DG1-3 (code ^ text ^ coding system)", () => {
    const t = transformer(
      "vocabulary_reverse_lookup",
      { system_field: "coding_system", output: "concept_code" },
      { vocabulary },
    );
    expect(t("E11.9", { coding_system: "I10C" }).out).toBe("44054006");
    expect(t("44054006", { coding_system: "SCT" }).out).toBe("44054006");
    const missing = t("E11.9", {});
    expect(missing.issues[0]).toMatchObject({
      code: "missing_value",
      message: 'code "E11.9" has no code system',
    });
  });

  it("says whether a code is unknown or only lacks a standard concept", () => {
    const t = transformer(
      "vocabulary_reverse_lookup",
      { system: "http://hl7.org/fhir/sid/icd-10-cm" },
      { vocabulary },
    );
    expect(t("Z99.99").issues[0]?.message).toBe('ICD10CM code "Z99.99" is not in the vocabulary');
    const gender = transformer("vocabulary_reverse_lookup", { system: "Gender" }, { vocabulary });
    expect(gender("M").out).toBe(8507);
    expect(gender("U").issues[0]?.message).toBe('Gender code "U" has no standard concept');
    expect(codes(t({ an: "object" }))).toEqual(["invalid_value"]);
  });

  it("fails at load time for an unknown fixed system, two systems, or no bridge", () => {
    const doc = (config: string) =>
      `source: s\ntarget: t\nentity_map: {e: T}\nfield_map:\n  e.a: {target: T.b, transform: vocabulary_reverse_lookup${config}}\n`;
    expect(loadError(doc(""))).toContain(
      "vocabulary_reverse_lookup: no vocabulary bridge configured: pass --vocab DIR",
    );
    const failure = (config: Record<string, unknown>) => {
      try {
        transformer("vocabulary_reverse_lookup", config, { vocabulary });
        return "";
      } catch (err) {
        return (err as { describe(): string }).describe();
      }
    };
    expect(failure({ system: "http://example.org/nope" })).toContain(
      'unknown code system "http://example.org/nope"',
    );
    expect(failure({ system: "SNOMED", system_field: "s" })).toContain(
      "give system or system_field, not both",
    );
  });
});

describe("vocabulary_lookup of a concept whose vocabulary has no FHIR system", () => {
  it("writes its code without a system, with an unmapped_value warning saying so", async () => {
    const src = join(tmp.path, "local-src");
    mkdirSync(src);
    writeAthena(src);
    await buildVocabulary({ sourceDir: src, outDir: join(tmp.path, "local-index") });
    const local = openVocabulary(join(tmp.path, "local-index"));
    try {
      const t = transformer("vocabulary_lookup", { output: "codeable_concept" }, { vocabulary: local });
      const r = t(2000000001);
      expect(r.out).toEqual({
        coding: [{ code: "DM-2", display: "Site-specific diabetes code" }],
        text: "Site-specific diabetes code",
      });
      expect(r.issues.map((i) => [i.code, i.severity, i.message])).toEqual([
        [
          "unmapped_value",
          "warning",
          'concept 2000000001 is in vocabulary "Local", which has no known FHIR system: its code "DM-2" is written without one',
        ],
      ]);
    } finally {
      await local.close();
    }
  });
});
