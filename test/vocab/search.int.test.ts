// The concept search of a real index: its ranking on hand-made rows, and every answer checked against a
// brute-force reading of the same rows for thousands of generated concepts, through every read path.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { generateAthena } from "../../bench/vocab-generate.js";
import { codeRank } from "../../src/vocab/athena-rows.js";
import type { Concept } from "../../src/vocab/bridge.js";
import { buildVocabulary } from "../../src/vocab/build.js";
import { type LmdbVocabularyBridge, openVocabulary } from "../../src/vocab/lmdb-bridge.js";
import { type SearchOptions, type SearchResult, searchTuning } from "../../src/vocab/search.js";
import { foldText, tokensOf } from "../../src/vocab/search-text.js";
import { tempDir, writeAthena } from "./fixtures.js";

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.splice(0)) await c();
});
afterEach(() => {
  searchTuning.totalCap = 10_000;
  searchTuning.readCap = 40_000;
  searchTuning.merge = "auto";
});

/** A CONCEPT.csv row; `standard` "S", "C" or "", `invalid` "D" for a deprecated concept. */
function row(
  id: number,
  name: string,
  vocabulary: string,
  code: string,
  standard = "S",
  domain = "Condition",
  invalid = "",
): string[] {
  return [
    String(id),
    name,
    domain,
    vocabulary,
    "Clinical Finding",
    standard,
    code,
    "20020131",
    "20991231",
    invalid,
  ];
}

const ROWS = [
  row(201826, "Type 2 diabetes mellitus", "SNOMED", "44054006"),
  row(1567956, "Type 2 diabetes mellitus without complications", "ICD10CM", "E11.9", ""),
  row(4226121, "Retinopathy due to type 2 diabetes mellitus", "SNOMED", "390834004"),
  row(443238, "Diabetic renal disease", "SNOMED", "127013003"),
  row(201254, "Type 1 diabetes mellitus", "SNOMED", "46635009"),
  row(4000001, "Ménière's disease", "SNOMED", "13445001"),
  row(4000002, "Sjogren syndrome", "SNOMED", "83901003"),
  row(722031, "paroxetine", "RxNorm", "32937", "S", "Drug"),
  row(19105451, "Paxil", "RxNorm", "202363", "", "Drug"),
  row(4000003, "Diabetes insipidus", "SNOMED", "15771004", "", "Condition", "D"),
  row(4000004, "Diabetes", "SNOMED", "73211009", "C"),
  row(2000000002, "NA", "Local", "NA-1", ""),
  row(4000005, "E11.9 look-alike", "SNOMED", "12345"),
];
const SYNONYMS = [
  ["concept_id", "concept_synonym_name", "language_concept_id"],
  ["722031", "Paxil CR", "4180186"],
  ["722031", "paroxetine hydrochloride", "4180186"],
  ["4000002", "Sjögren's syndrome", "4180186"],
  ["2000000002", "local placeholder", "4180186"],
  ["999999", "synonym of a concept the index does not hold", "4180186"],
  ["x", "bad id", "4180186"],
  ["201826", "", "4180186"],
];

async function build(dir: string, rows: string[][], synonyms?: string[][], slabBytes?: number) {
  const src = join(dir, "athena");
  mkdirSync(src, { recursive: true });
  writeAthena(src, rows, []);
  if (synonyms)
    writeFileSync(join(src, "CONCEPT_SYNONYM.csv"), `${synonyms.map((r) => r.join("\t")).join("\n")}\n`);
  const out = join(dir, `index-${slabBytes ?? "default"}`);
  const report = await buildVocabulary({ sourceDir: src, outDir: out, ...(slabBytes ? { slabBytes } : {}) });
  const bridge = openVocabulary(out);
  cleanups.unshift(() => bridge.close());
  return { report, bridge, src };
}

const brief = (r: SearchResult) => r.concepts.map((c) => `${c.match} ${c.concept_id}`);

describe("concept search", () => {
  let bridge: LmdbVocabularyBridge;
  let report: Awaited<ReturnType<typeof build>>["report"];
  let src: string;
  beforeAll(async () => {
    const t = tempDir();
    cleanups.push(t.remove);
    ({ bridge, report, src } = await build(t.path, ROWS, SYNONYMS));
  });

  it("ranks an exact code first, then names that start with the text, then names holding every word", () => {
    expect(brief(bridge.search("E11.9"))).toEqual(["code 1567956", "name 4000005"]);
    expect(brief(bridge.search("type 2 diab"))).toEqual(["name 201826", "name 1567956", "words 4226121"]);
  });

  it("puts standard before classification before non-standard before invalid, then the shorter name", () => {
    expect(brief(bridge.search("diabet"))).toEqual([
      "name 443238", // Diabetic renal disease (standard, 22 characters)
      "name 4000004", // Diabetes (classification)
      "name 4000003", // Diabetes insipidus (invalid)
      "words 201254", // standard word matches by concept_id
      "words 201826",
      "words 4226121",
      "words 1567956", // non-standard
    ]);
  });

  it("finds a concept by id, and a code in any case", () => {
    expect(brief(bridge.search("201826"))).toEqual(["id 201826"]);
    expect(brief(bridge.search("e11.9"))[0]).toBe("code 1567956");
    expect(bridge.search("201826").concepts[0]).toEqual({ ...bridge.getConcept(201826), match: "id" });
  });

  it("ignores case and accents in names, synonyms and the text", () => {
    expect(brief(bridge.search("MENIERE"))).toEqual(["name 4000001"]);
    expect(brief(bridge.search("ménière's dis"))).toEqual(["name 4000001"]);
    expect(brief(bridge.search("sjögren"))).toEqual(["name 4000002"]);
    expect(brief(bridge.search("SJOGRENS"))).toEqual([]); // "sjogren" and "s" are two words
    expect(brief(bridge.search("sjogren s synd"))).toEqual(["words 4000002"]); // from the synonym
  });

  it("finds a concept by a word of its synonyms, after those whose name starts with it", () => {
    expect(brief(bridge.search("paxil"))).toEqual(["name 19105451", "words 722031"]);
    expect(brief(bridge.search("paroxetine hydro"))).toEqual(["words 722031"]);
    expect(brief(bridge.search("placeholder"))).toEqual(["words 2000000002"]);
  });

  it("does not treat an empty name or NA as a word", () => {
    expect(brief(bridge.search("na"))).toEqual([]);
  });

  it("filters by vocabulary, domain and standard, and limits the answer", () => {
    expect(brief(bridge.search("diabetes", { vocabularies: ["ICD10CM"] }))).toEqual(["words 1567956"]);
    expect(brief(bridge.search("p", { domains: ["Drug"] }))).toEqual(["name 722031", "name 19105451"]);
    expect(brief(bridge.search("diabetes", { standard: true, limit: 2 }))).toEqual([
      "words 201254",
      "words 201826",
    ]);
    expect(bridge.search("diabetes", { standard: true, limit: 2 }).total).toBe(3);
    expect(brief(bridge.search("e11.9", { vocabularies: ["SNOMED"] }))).toEqual(["name 4000005"]);
  });

  it("answers at once, with nothing, when no concept passes the filters", () => {
    // ICD10CM holds no standard concept, RxNorm no Condition: known from the index's counts per
    // (vocabulary | domain << 16): rows, standard rows (SNOMED 0, RxNorm 1, ICD10CM 2, Local 3; Condition
    // 0, Drug 1, numbered in concept_id order)
    expect(bridge.stats().search?.facet_rows).toEqual([
      [0, 9, 7],
      [2, 1, 0],
      [3, 1, 0],
      [1 | (1 << 16), 2, 1],
    ]);
    expect(bridge.search("diabetes", { vocabularies: ["ICD10CM"], standard: true })).toEqual({
      concepts: [],
      total: 0,
      total_relation: "eq",
    });
    expect(bridge.search("p", { vocabularies: ["RxNorm"], domains: ["Condition"] })).toEqual({
      concepts: [],
      total: 0,
      total_relation: "eq",
    });
    expect(brief(bridge.search("p", { vocabularies: ["RxNorm"], standard: true }))).toEqual(["name 722031"]);
  });

  it("counts every match, exactly below the cap and as a lower bound from it", () => {
    expect(bridge.search("diabetes")).toMatchObject({ total: 6, total_relation: "eq" });
    searchTuning.totalCap = 3;
    const r = bridge.search("diabetes", { limit: 5 });
    // the two names, then the first three standard word matches; counting stopped at the third match,
    // and a lower bound is never below the concepts returned
    expect(brief(r)).toEqual([
      "name 4000004",
      "name 4000003",
      "words 201254",
      "words 201826",
      "words 4226121",
    ]);
    expect(r).toMatchObject({ total: 5, total_relation: "gte" });
  });

  it("is left out by search: false (the bench's baseline), and such an index then finds nothing", async () => {
    const out = join(src, "..", "index-without-search");
    const r = await buildVocabulary({ sourceDir: src, outDir: out, search: false });
    expect(r.info.search).toBeUndefined();
    expect(r.info.slabs).toMatchObject({ terms: 0, termIndex: 0, postings: 0, first: 0, columns: 0 });
    const bare = openVocabulary(out);
    try {
      expect(bare.getConcept(201826)?.concept_name).toBe("Type 2 diabetes mellitus");
      expect(bare.search("diabetes")).toEqual({ concepts: [], total: 0, total_relation: "eq" });
    } finally {
      await bare.close();
    }
  });

  it("answers nothing for blank text or words the index does not hold", () => {
    expect(bridge.search("  ")).toEqual({ concepts: [], total: 0, total_relation: "eq" });
    expect(bridge.search("zzz")).toEqual({ concepts: [], total: 0, total_relation: "eq" });
    expect(bridge.search("type zzz 2")).toEqual({ concepts: [], total: 0, total_relation: "eq" });
    expect(bridge.search("()")).toEqual({ concepts: [], total: 0, total_relation: "eq" });
  });

  it("reports synonym rows it could not read, and counts those it skipped", () => {
    const file = join(src, "CONCEPT_SYNONYM.csv");
    expect(report.problems).toEqual([
      {
        file,
        line: 7,
        path: ["concept_id"],
        code: "malformed_row",
        message: 'concept_id "x" is not an integer from 0 to 4294967295',
      },
    ]);
    expect(report.info.files["CONCEPT_SYNONYM.csv"]).toEqual({
      rows: 7,
      loaded: 4,
      malformed: 1,
      skipped: 2,
      duplicates: 0,
    });
    expect(report.info.search).toMatchObject({
      named: ROWS.length - 1,
      vocabularies: ["SNOMED", "RxNorm", "ICD10CM", "Local"],
    });
  });

  it("answers not found after close", async () => {
    const t = tempDir();
    cleanups.push(t.remove);
    const other = await build(t.path, ROWS);
    await other.bridge.close();
    expect(other.bridge.search("diabetes")).toEqual({ concepts: [], total: 0, total_relation: "eq" });
  });
});

/** A concept as the reference reads it, its words worked out once. */
interface Read {
  concept: Concept;
  rank: number;
  nameTokens: string[];
  all: Set<string>;
  allList: string[];
  length: number;
}

function readConcepts(concepts: Concept[], synonyms: Map<number, string[]>): Read[] {
  return concepts.map((concept) => {
    const named = concept.concept_name !== "" && concept.concept_name !== "NA";
    const nameTokens = named ? tokensOf(foldText(concept.concept_name)) : [];
    const synonymTokens = (synonyms.get(concept.concept_id) ?? []).flatMap((s) => tokensOf(foldText(s)));
    return {
      concept,
      rank: codeRank(concept),
      nameTokens,
      all: new Set([...nameTokens, ...synonymTokens]),
      allList: [...new Set([...nameTokens, ...synonymTokens])],
      length: Math.min(255, foldText(concept.concept_name).length),
    };
  });
}

/** The ranking read straight off the rows: what the index must answer. */
function reference(
  read: Read[],
  text: string,
  options: SearchOptions = {},
): { ids: string[]; total: number } {
  const limit = options.limit ?? 20;
  const ok = (r: Read) =>
    (!options.vocabularies || options.vocabularies.includes(r.concept.vocabulary_id)) &&
    (!options.domains || options.domains.includes(r.concept.domain_id)) &&
    (!options.standard || r.rank === 0);
  const q = text.trim();
  const exact: string[] = [];
  const exactIds = new Set<number>();
  const byId = /^\d{1,10}$/.test(q) ? read.find((r) => r.concept.concept_id === Number(q)) : undefined;
  if (byId && ok(byId)) {
    exact.push(`id ${byId.concept.concept_id}`);
    exactIds.add(byId.concept.concept_id);
  }
  const variants = new Set([q, q.toUpperCase(), q.toLowerCase()]);
  const codes: Read[] = [];
  // the preferred concept of each (vocabulary, code) with one of the variants, as lookupCode answers
  const preferred = new Map<string, Read>();
  for (const r of read) {
    if (!variants.has(r.concept.concept_code)) continue;
    const key = `${r.concept.vocabulary_id}\u0000${r.concept.concept_code}`;
    const other = preferred.get(key);
    if (
      !other ||
      r.rank < other.rank ||
      (r.rank === other.rank && r.concept.concept_id < other.concept.concept_id)
    ) {
      preferred.set(key, r);
    }
  }
  for (const hit of preferred.values()) {
    if (ok(hit) && !exactIds.has(hit.concept.concept_id)) {
      exactIds.add(hit.concept.concept_id);
      codes.push(hit);
    }
  }
  codes.sort((a, b) => a.rank - b.rank || a.concept.concept_id - b.concept.concept_id);
  exact.push(...codes.map((r) => `code ${r.concept.concept_id}`));
  const tokens = tokensOf(foldText(q)).slice(0, 16);
  if (tokens.length === 0) return { ids: exact.slice(0, limit), total: exact.length };
  const full = tokens.slice(0, -1);
  const last = tokens[tokens.length - 1]!;
  const names: Read[] = [];
  const words: Read[] = [];
  for (const r of read) {
    if (exactIds.has(r.concept.concept_id) || !ok(r)) continue;
    if (!full.every((t) => r.all.has(t)) || !r.allList.some((t) => t.startsWith(last))) continue;
    const starts =
      r.nameTokens.length >= tokens.length &&
      full.every((t, i) => r.nameTokens[i] === t) &&
      r.nameTokens[tokens.length - 1]!.startsWith(last);
    (starts ? names : words).push(r);
  }
  const id = (r: Read) => r.concept.concept_id;
  names.sort((a, b) => a.rank - b.rank || a.length - b.length || id(a) - id(b));
  words.sort((a, b) => a.rank - b.rank || id(a) - id(b));
  const ids = [...exact, ...names.map((r) => `name ${id(r)}`), ...words.map((r) => `words ${id(r)}`)];
  return { ids: ids.slice(0, limit), total: ids.length };
}

describe("concept search against a brute-force reading of 3,000 generated concepts", () => {
  const concepts: Concept[] = [];
  const synonyms = new Map<number, string[]>();
  let reads: Read[] = [];
  const queries: [string, SearchOptions][] = [];
  const bridges: LmdbVocabularyBridge[] = [];
  beforeAll(async () => {
    const t = tempDir();
    cleanups.push(t.remove);
    const gen = join(t.path, "gen");
    generateAthena({ concepts: 3000, relationships: 2000, out: gen, seed: 5 });
    const read = (file: string) =>
      readFileSync(join(gen, file), "utf8")
        .replace(/\n$/, "") // not trimEnd: a last row ends in an empty field
        .split("\n")
        .slice(1)
        .map((l) => l.split("\t"));
    const rows = read("CONCEPT.csv");
    const syn = read("CONCEPT_SYNONYM.csv");
    // a few more shapes: accents, a repeated word, a very long word, a non-standard twin of a code
    rows.push(row(9000001, "Crème brûlée allergy", "SNOMED", "900001"));
    rows.push(row(9000002, "left left knee", "SNOMED", "900002"));
    rows.push(row(9000003, `${"x".repeat(80)} marker`, "SNOMED", "900003"));
    rows.push(row(9000004, "Twin of a code", "ICD10CM", rows[0]![6]!, ""));
    for (const f of rows) {
      concepts.push({
        concept_id: Number(f[0]),
        concept_name: f[1]!,
        domain_id: f[2]!,
        vocabulary_id: f[3]!,
        concept_class_id: f[4]!,
        standard_concept: f[5] || null,
        concept_code: f[6]!,
        valid_start_date: "",
        valid_end_date: "",
        invalid_reason: f[9] || null,
      });
    }
    for (const f of syn) synonyms.set(Number(f[0]), [...(synonyms.get(Number(f[0])) ?? []), f[1]!]);
    reads = readConcepts(concepts, synonyms);
    const synonymRows = [["concept_id", "concept_synonym_name", "language_concept_id"], ...syn];
    for (const slabBytes of [undefined, 4096]) {
      bridges.push((await build(t.path, rows, synonymRows, slabBytes)).bridge);
    }
    let seed = 11;
    const pick = <T>(list: T[]): T => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return list[seed % list.length]!;
    };
    const named = concepts.filter(
      (c) => tokensOf(foldText(c.concept_name)).length >= 2 && c.concept_name !== "NA",
    );
    const wordsOf = (c: Concept) => tokensOf(foldText(c.concept_name));
    for (let i = 0; i < 25; i++) {
      const c = pick(named);
      const w = wordsOf(c);
      queries.push(
        [c.concept_name, {}],
        [`${w[0]} ${w[1]!.slice(0, 2)}`, {}],
        [w[0]!.slice(0, 1 + (i % 3)), { limit: 100 }],
        [`${w[1]} ${w[0]}`, {}],
        [c.concept_code, {}],
        [String(c.concept_id), {}],
        [w[0]!, { vocabularies: [c.vocabulary_id], standard: i % 2 === 0 }],
        [w[0]!.toUpperCase(), { domains: [c.domain_id], limit: 7 }],
      );
    }
    for (const s of [...synonyms.values()].slice(0, 20))
      queries.push([s[0]!.split(" ").slice(0, 2).join(" "), {}]);
    queries.push(["creme brul", {}], ["CRÈME", {}], ["left kn", {}], ["left left", {}], ["x".repeat(70), {}]);
  }, 60_000);

  it.each(["auto", "heap", "bitmap"] as const)(
    "answers as the reference does (prefix lists read by %s)",
    (merge) => {
      searchTuning.merge = merge;
      // default slabs, and slabs of 4 KB (hundreds per area) for the forced read paths
      for (const bridge of merge === "auto" ? bridges : bridges.slice(1)) {
        for (const [text, options] of queries) {
          const got = bridge.search(text, options);
          const want = reference(reads, text, options);
          expect({ text, options, ids: brief(got), total: got.total }).toEqual({ text, options, ...want });
          expect(got.total_relation).toBe("eq");
        }
      }
    },
  );

  it("stops counting after readCap postings once its page is complete, and still returns the best concepts", () => {
    searchTuning.readCap = 7;
    let lowerBounds = 0;
    for (const [text, options] of queries) {
      const got = bridges[0]!.search(text, options);
      const want = reference(reads, text, options);
      expect({ text, options, ids: brief(got) }).toEqual({ text, options, ids: want.ids });
      if (got.total_relation === "eq") expect(got.total).toBe(want.total);
      else {
        lowerBounds++;
        expect(got.total).toBeLessThanOrEqual(want.total);
        expect(got.total).toBeGreaterThanOrEqual(got.concepts.length);
      }
    }
    expect(lowerBounds).toBeGreaterThan(20);
  });

  it("reads only up to the cap, and still returns the best concepts", () => {
    searchTuning.totalCap = 5;
    for (const [text, options] of queries) {
      const got = bridges[0]!.search(text, options);
      const want = reference(reads, text, options);
      expect({ text, ids: brief(got) }).toEqual({ text, ids: want.ids });
      if (got.total_relation === "eq") expect(got.total).toBe(want.total);
      else expect(got.total).toBeLessThanOrEqual(want.total);
    }
  });
});
