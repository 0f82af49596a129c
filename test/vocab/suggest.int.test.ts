// Ranked suggestions against an index built from the sample vocabulary (vocab/): codes and "Maps to"
// first, misspellings, abbreviations and other word orders by their names, filters, and the table's errors.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildVocabulary } from "../../src/vocab/build.js";
import { type LmdbVocabularyBridge, openVocabulary } from "../../src/vocab/lmdb-bridge.js";
import { suggestTuning } from "../../src/vocab/suggest.js";
import { loadAbbreviations } from "../../src/vocab/suggest-table.js";
import { parseAbbreviations, readings } from "../../src/vocab/suggest-text.js";

let dir: string;
let bridge: LmdbVocabularyBridge;
const table = loadAbbreviations();
const ids = (
  description: string,
  o: Parameters<LmdbVocabularyBridge["suggest"]>[1] = { limit: 3 },
  t = table,
) => bridge.suggest({ description }, o, t).map((c) => c.concept_id);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "suggest-"));
  await buildVocabulary({ sourceDir: "vocab", outDir: join(dir, "index") });
  bridge = openVocabulary(join(dir, "index"));
}, 60_000);
afterAll(async () => {
  await bridge.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("suggest", () => {
  it("puts a code's own standard concept first, with score 1", () => {
    expect(bridge.suggest({ code: "4548-4", vocabularyId: "LOINC" }, { limit: 3 }, table)).toEqual([
      {
        concept_id: 3004410,
        concept_name: "Hemoglobin A1c/Hemoglobin.total in Blood",
        vocabulary_id: "LOINC",
        domain_id: "Measurement",
        score: 1,
        match: "code",
      },
    ]);
  });

  it("puts the standard concept a non-standard code Maps to first", () => {
    expect(bridge.suggest({ code: "E11.9", vocabularyId: "ICD10CM" }, { limit: 3 }, table)).toEqual([
      {
        concept_id: 201826,
        concept_name: "Type 2 diabetes mellitus",
        vocabulary_id: "SNOMED",
        domain_id: "Condition",
        score: 1,
        match: "maps_to",
      },
    ]);
  });

  it("finds an abbreviation through the table, and not without it", () => {
    expect(ids("HGB A1C")).toEqual([3004410, 9225, 44777597]);
    expect(ids("HGB A1C", { limit: 3 }, new Map())[0]).toBe(9225);
  });

  it("finds misspellings and other word orders, within the domain asked", () => {
    expect(ids("hemoglobn a1c", { limit: 2, domains: ["Measurement"] })).toEqual([3004410, 3000963]);
    expect(ids("glucose serum", { limit: 3, domains: ["Measurement"] })).toEqual([3004501, 3000483, 4149386]);
    expect(ids("diabetes type 2", { limit: 2, vocabularies: ["SNOMED"] })).toEqual([201826, 4226121]);
  });

  it("scores text matches between 0 and 1, best first", () => {
    const scores = bridge.suggest({ description: "glucose serum" }, { limit: 10 }, table).map((c) => c.score);
    expect(scores.every((s) => s > 0 && s < 1)).toBe(true);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });
});

describe("bounded work per term", () => {
  const defaults = { ...suggestTuning };
  afterAll(() => Object.assign(suggestTuning, defaults));

  it("reads a common rarest word's concepts that also hold the next word, and ranks only those", () => {
    // Caps far below the sample's lists stand for the long lists of a full vocabulary: "potassium" has
    // more postings than the budget, so only its concepts that also hold "serum" are gathered (the
    // budget's first few concepts of "potassium" would hold "serum" by chance only).
    Object.assign(suggestTuning, { readCap: 5, confirmCap: 5, rerank: 3, scan: 5 });
    expect(ids("potassium serum")).toEqual([3023103]);
    expect(ids("serum potassium plasma")).toEqual([3023103]);
    Object.assign(suggestTuning, defaults);
    expect(ids("potassium serum")).toEqual([3023103, 3005456, 40185280]);
  });
});

describe("abbreviation table", () => {
  it("reads a term as written and spelt out", () => {
    const t = parseAbbreviations("# c\nHGB\themoglobin\nCA\tcalcium\tcancer\n", "t.tsv");
    expect(readings(["hgb", "ca"], t)).toEqual([
      ["hgb", "ca"],
      ["hemoglobin", "calcium"],
      ["hemoglobin", "cancer"],
    ]);
  });

  it("names the file and line of a bad entry", () => {
    const file = join(dir, "bad.tsv");
    writeFileSync(file, "HGB\themoglobin\nno meaning here\n");
    expect(() => loadAbbreviations(file)).toThrow(
      `${file}:2: expected an abbreviation of 1 to 3 words, a TAB and what it stands for`,
    );
  });
});
