// A project's reviewed decisions in the vocabulary transforms, over the real sample index: which item a
// code matches (its system as given, the vocabulary_id it stands for, then code-only items), what each
// kind of decision gives, and that without decisions nothing changes.
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectDecisions } from "../../src/review/decisions.js";
import type { ConceptItem } from "../../src/store/types.js";
import { compileOverlay, type UnreviewedMode } from "../../src/transforms/overlay.js";
import { buildVocabulary } from "../../src/vocab/build.js";
import { type LmdbVocabularyBridge, openVocabulary } from "../../src/vocab/lmdb-bridge.js";
import { codes, transformer } from "../helpers.js";
import { tempDir } from "../vocab/fixtures.js";

const tmp = tempDir("crossmap-overlay-");
let vocabulary: LmdbVocabularyBridge;
beforeAll(async () => {
  await buildVocabulary({ sourceDir: resolve("vocab"), outDir: join(tmp.path, "index") });
  vocabulary = openVocabulary(join(tmp.path, "index"));
});
afterAll(async () => {
  await vocabulary.close();
  tmp.remove();
});

function item(fields: Partial<ConceptItem> & { id: string }): ConceptItem {
  return {
    version: 1,
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
    reviewed_at: null,
    source_column: null,
    source_code: "X",
    source_description: null,
    target_concept_id: null,
    target_concept_name: null,
    target_vocabulary_id: null,
    confidence: null,
    method: "review",
    ...fields,
  };
}

const overlayOf = (items: ConceptItem[], unreviewed: UnreviewedMode = "ignore") =>
  compileOverlay(projectDecisions(items, unreviewed).entries, unreviewed);

const LOCAL = "http://hospital.example.org/CodeSystem/lab";

describe("vocabulary_reverse_lookup with decisions", () => {
  const overlay = overlayOf([
    item({
      id: "glu",
      source_code: "GLU",
      source_vocabulary_id: LOCAL,
      method: "auto",
      target_concept_id: 3004410,
    }),
    item({
      id: "icd",
      source_code: "E11.9",
      source_vocabulary_id: "ICD10CM",
      method: "override",
      target_concept_id: 4000001,
    }),
    item({ id: "any", source_code: "E11.9", method: "unmapped" }),
    item({
      id: "t2",
      source_code: "ANY",
      method: "override",
      target_concept_id: 201826,
      target_concept_name: "T2DM",
    }),
  ]);
  const lookup = (config: Record<string, unknown> = {}) =>
    transformer("vocabulary_reverse_lookup", config, { vocabulary, overlay });

  it("matches the record's system as given, then the vocabulary_id it stands for, then code-only items", () => {
    expect(lookup()({ coding: [{ system: LOCAL, code: "GLU" }] }).out).toBe(3004410);
    // ICD10CM's FHIR URI stands for the item's vocabulary_id: the override, not the vocabulary's answer.
    expect(lookup()({ system: "http://hl7.org/fhir/sid/icd-10-cm", code: "E11.9" }).out).toBe(4000001);
    expect(lookup({ system: "ICD10CM" })("E11.9").out).toBe(4000001);
    // Another system with the same code: the code-only item (rejected) decides.
    const other = lookup()({ system: "urn:oid:1.2.3", code: "E11.9" });
    expect([other.out, codes(other)]).toEqual([undefined, ["rejected_by_review"]]);
    expect(other.issues[0]!.message).toBe(
      'urn:oid:1.2.3 code "E11.9" was rejected by review (item any): it has no concept',
    );
    expect(lookup()({ system: "http://snomed.info/sct", code: "ANY" }).out).toBe(201826);
  });

  it("renders a decided concept from the vocabulary, or from the item when the vocabulary lacks it", () => {
    expect(lookup({ output: "concept_name" })({ system: LOCAL, code: "ANY" }).out).toBe(
      "Type 2 diabetes mellitus",
    );
    const code = lookup({ output: "concept_code" })({ system: "ICD10CM", code: "E11.9" });
    expect(codes(code)).toEqual(["concept_not_found"]);
    expect(code.issues[0]!.message).toBe(
      "concept 4000001 (a project's decision) is not in the vocabulary, so its concept_code is unknown",
    );
  });

  it("leaves the code's own concept (standard: false) to the vocabulary", () => {
    expect(lookup({ system: "ICD10CM", standard: false })("E11.9").out).toBe(1567956);
  });

  it("without decisions (or with none for a code) gives what it gave before", () => {
    const plain = transformer("vocabulary_reverse_lookup", { system: "ICD10CM" }, { vocabulary });
    expect(plain("E11.9").out).toBe(201826);
    expect(codes(lookup({ system: "ICD10CM" })("E10.9"))).toEqual(["concept_not_found"]);
  });

  it("works without a vocabulary when the run brings decisions; a field with a default writes it otherwise", () => {
    const entry = { default: 0, vocabulary_optional: true };
    const decided = transformer("vocabulary_reverse_lookup", {}, { overlay, entry });
    expect(decided({ system: LOCAL, code: "GLU" }).out).toBe(3004410);
    // A code the decisions do not name gets what it gets without the project: the default, no issue.
    expect(decided({ system: "ICD10CM", code: "E10.9" })).toEqual({ out: 0, issues: [] });
    const idle = transformer("vocabulary_reverse_lookup", {}, { entry });
    expect(idle({ system: LOCAL, code: "GLU" })).toEqual({ out: 0, issues: [] });
    expect(idle({ system: "ICD10CM", code: "E10.9" })).toEqual({ out: 0, issues: [] });
  });

  it("without a vocabulary and not vocabulary_optional, says a code is not among the decisions", () => {
    const decided = transformer("vocabulary_reverse_lookup", {}, { overlay });
    const miss = decided({ system: "ICD10CM", code: "E10.9" });
    expect(miss.issues.map((i) => [i.code, i.severity, i.message])).toEqual([
      [
        "concept_not_found",
        "error",
        `ICD10CM code "E10.9" is not among the project's decisions, and no vocabulary is configured`,
      ],
    ]);
  });
});

describe("omop_concept_of with decisions: only the codes decided change", () => {
  const ORG_TYPE = "http://terminology.hl7.org/CodeSystem/organization-type";
  const overlay = overlayOf([
    item({
      id: "emp",
      source_code: "emp",
      source_vocabulary_id: ORG_TYPE,
      method: "override",
      target_concept_id: 8717,
    }),
  ]);
  const config = { part: "concept_id", concept_system: "https://fhir-terminology.ohdsi.org" };
  const type = (code: string) => [{ coding: [{ system: ORG_TYPE, code }], text: code }];
  const loinc = { coding: [{ system: "http://loinc.org", code: "2345-7" }] };

  it("vocabulary: false (an Organization's type): a code no decision names gives nothing and no issue", () => {
    const plain = transformer("omop_concept_of", { ...config, vocabulary: false }, { vocabulary });
    const decided = transformer("omop_concept_of", { ...config, vocabulary: false }, { vocabulary, overlay });
    expect(plain(type("prov"))).toEqual({ out: undefined, issues: [] });
    expect(decided(type("prov"))).toEqual({ out: undefined, issues: [] });
    expect(decided(type("emp"))).toEqual({ out: 8717, issues: [] });
  });

  it("without a vocabulary: a code no decision names gives nothing and no issue, as without the project", () => {
    const plain = transformer("omop_concept_of", config);
    const decided = transformer("omop_concept_of", config, { overlay });
    expect(plain(loinc)).toEqual({ out: undefined, issues: [] });
    expect(decided(loinc)).toEqual({ out: undefined, issues: [] });
    expect(decided(type("emp"))).toEqual({ out: 8717, issues: [] });
  });

  it("with a vocabulary: a code no decision names gets the vocabulary's concept", () => {
    const plain = transformer("omop_concept_of", config, { vocabulary });
    const decided = transformer("omop_concept_of", config, { vocabulary, overlay });
    expect(decided(loinc)).toEqual(plain(loinc));
    expect(decided(loinc).out).toBe(3004501);
  });
});

describe("suggestions awaiting review", () => {
  const items = [
    item({
      id: "s",
      source_code: "E11.9",
      source_vocabulary_id: "ICD10CM",
      method: "review",
      target_concept_id: 4000002,
    }),
  ];

  it("unreviewed: use applies the suggestion, with a warning", () => {
    const t = transformer(
      "vocabulary_reverse_lookup",
      { system: "ICD10CM" },
      { vocabulary, overlay: overlayOf(items, "use") },
    );
    const r = t("E11.9");
    expect([r.out, r.issues.map((i) => [i.code, i.severity])]).toEqual([
      4000002,
      [["unreviewed_mapping", "warning"]],
    ]);
  });

  it("unreviewed: ignore asks the vocabulary, with a warning that a suggestion waits", () => {
    const t = transformer(
      "vocabulary_reverse_lookup",
      { system: "ICD10CM" },
      { vocabulary, overlay: overlayOf(items) },
    );
    const r = t("E11.9");
    expect([r.out, r.issues.map((i) => [i.code, i.severity, i.message])]).toEqual([
      201826,
      [
        [
          "unreviewed_mapping",
          "warning",
          `ICD10CM code "E11.9": item s suggests concept 4000002, not reviewed yet (unreviewed: ignore); the vocabulary's concept was used`,
        ],
      ],
    ]);
  });

  it("a decision wins over a suggestion for the same code; the later decision over an earlier one", () => {
    const later = { updated_at: "2026-02-01T00:00:00.000Z" };
    const d = projectDecisions(
      [
        item({ id: "a", source_code: "Z", method: "review", target_concept_id: 1 }),
        item({ id: "b", source_code: "Z", method: "auto", target_concept_id: 2 }),
        item({ id: "c", source_code: "Z", method: "override", target_concept_id: 3, ...later }),
      ],
      "use",
    );
    expect(d.entries.map((e) => e.decision.conceptId)).toEqual([3]);
    expect(d.shadowed.sort()).toEqual(["a", "b"]);
  });
});

describe("vocabulary_lookup with decisions", () => {
  it("a decision for the concept's own code replaces the concept, then renders as usual", () => {
    const overlay = overlayOf([
      item({
        id: "o",
        source_code: "E11.9",
        source_vocabulary_id: "ICD10CM",
        method: "override",
        target_concept_id: 3004410,
      }),
    ]);
    const t = transformer("vocabulary_lookup", { output: "concept_id" }, { vocabulary, overlay });
    expect(t(1567956).out).toBe(3004410);
    expect(t(201826).out).toBe(201826);
    const rejected = transformer(
      "vocabulary_lookup",
      {},
      {
        vocabulary,
        overlay: overlayOf([
          item({ id: "r", source_code: "44054006", source_vocabulary_id: "SNOMED", method: "unmapped" }),
        ]),
      },
    )(201826);
    expect(codes(rejected)).toEqual(["rejected_by_review"]);
  });
});

describe("the decision snapshot", () => {
  it("hashes the decision fields in id order: the same items give the same hash, a decision changes it", () => {
    const a = item({ id: "a", source_code: "A", method: "auto", target_concept_id: 1 });
    const b = item({ id: "b", source_code: "B" });
    const one = projectDecisions([b, a], "ignore").snapshot;
    expect(one).toEqual({
      items: 2,
      sha256: projectDecisions([a, b], "ignore").snapshot.sha256,
      unreviewed: "ignore",
    });
    expect(projectDecisions([a, { ...b, comment: "x", version: 2 }], "ignore").snapshot.sha256).toBe(
      one.sha256,
    );
    expect(projectDecisions([a, { ...b, method: "unmapped" }], "ignore").snapshot.sha256).not.toBe(
      one.sha256,
    );
  });
});
