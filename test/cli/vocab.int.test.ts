// `crossmap vocab ...` as a user runs it: real processes over real index directories.
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONCEPTS, RELATIONSHIPS, tempDir, writeAthena } from "../vocab/fixtures.js";

const BIN = resolve("bin/crossmap.js");
const tmp = tempDir("crossmap-cli-vocab-");
const index = join(tmp.path, "sample-index");

function crossmap(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  const r = crossmap("vocab", "build", "vocab", "--out", index);
  if (r.code !== 0) throw new Error(`sample build failed: ${r.stderr}`);
});
afterAll(() => tmp.remove());

describe("crossmap vocab build", () => {
  it("builds the shipped sample and says what it loaded, as JSON", () => {
    const out = join(tmp.path, "again");
    // -q as every other command spells --quiet.
    const r = crossmap("vocab", "build", "vocab", "--out", out, "-q");
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(""); // no progress bar when stderr is not a terminal
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({
      index: out,
      release: "v5.0 09-APR-22*",
      concepts: 1486,
      relationships: 2852,
      malformed_rows: 0,
      files: {
        "CONCEPT.csv": { rows: 1486, loaded: 1486 },
        "CONCEPT_RELATIONSHIP.csv": { rows: 2852, loaded: 2852 },
      },
    });
  });

  it("reports malformed rows as file:line on stderr, exits 1, and keeps every good row", () => {
    const src = join(tmp.path, "bad-src");
    mkdirSync(src);
    writeAthena(src, [...CONCEPTS.slice(0, 1), ["12x", "bad"], ...CONCEPTS.slice(1)], []);
    const out = join(tmp.path, "bad-index");
    const r = crossmap("vocab", "build", src, "--out", out);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`crossmap: ${join(src, "CONCEPT.csv")}:3: expected 10 fields, found 2\n`);
    expect(JSON.parse(r.stdout)).toMatchObject({ concepts: CONCEPTS.length, malformed_rows: 1 });
    const look = crossmap("vocab", "lookup", "2000000001", "--vocab", out);
    expect(JSON.parse(look.stdout).concept_code).toBe("DM-2");
  });

  it("warns when relationships name concepts CONCEPT.csv lacks (an export of local concepts only), and mapping with that index reports codes it writes without a system", () => {
    const src = join(tmp.path, "local-src");
    mkdirSync(src);
    const local = CONCEPTS.filter((c) => c[3] === "Local");
    writeAthena(src, local, [
      ...RELATIONSHIPS,
      ["2000000002", "2000000001", "Maps to", "20200101", "20991231", ""],
    ]);
    const out = join(tmp.path, "local-index");
    const r = crossmap("vocab", "build", src, "--out", out);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      'crossmap: warning: 6 of the 8 relationships of CONCEPT_RELATIONSHIP.csv were left out because a concept they name is not in CONCEPT.csv (e.g. 201826 "Mapped from" 1567956): mapping cannot follow them\n',
    );
    expect(JSON.parse(r.stdout)).toMatchObject({
      concepts: 2,
      relationships: 1,
      files: { "CONCEPT_RELATIONSHIP.csv": { rows: 8, loaded: 1, skipped: 7, missing_concept: 6 } },
    });

    const row = {
      condition_occurrence_id: 1,
      person_id: 1,
      condition_concept_id: 0,
      condition_source_concept_id: 2000000001,
      condition_source_value: "DM-2",
      condition_start_date: "2020-02-14",
      condition_type_concept_id: 32817,
    };
    const input = `${JSON.stringify(row)}\n`;
    const map = spawnSync(
      process.execPath,
      [BIN, "map", "--from", "omop", "--to", "fhir", "--entity", "condition_occurrence", "--vocab", out],
      { encoding: "utf8", input },
    );
    expect(map.status).toBe(0);
    expect(JSON.parse(map.stdout).code.coding).toEqual([
      { code: "DM-2", display: "Site-specific diabetes code", userSelected: true },
    ]);
    // Without -q (which prints errors only): the warning, then the summary line.
    expect(map.stderr.split("\n")[0]).toBe(
      '-:1: warning unmapped_value at condition_occurrence.condition_concept_id -> Condition.code: source concept 2000000001 is in vocabulary "Local", which has no known FHIR system: its code "DM-2" is written without one',
    );
    expect(map.stderr.split("\n")[1]).toMatch(
      /^crossmap map: 1 in, 1 out, 0 failed, 0 with errors, 1 warnings;/,
    );
  });

  it("exits 2 with a message when the source has no CONCEPT.csv", () => {
    const r = crossmap("vocab", "build", tmp.path, "--out", join(tmp.path, "none"));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`crossmap: ${tmp.path} has no CONCEPT.csv\n`);
  });
});

describe("crossmap vocab lookup", () => {
  it("prints concept 201826 as JSON", () => {
    const r = crossmap("vocab", "lookup", "201826", "--vocab", index);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `${JSON.stringify(
        {
          concept_id: 201826,
          concept_name: "Type 2 diabetes mellitus",
          domain_id: "Condition",
          vocabulary_id: "SNOMED",
          concept_class_id: "Clinical Finding",
          standard_concept: "S",
          concept_code: "44054006",
          valid_start_date: "2002-01-31",
          valid_end_date: "2099-12-31",
          invalid_reason: null,
        },
        null,
        2,
      )}\n`,
    );
  });

  it("resolves a source code to its standard concept, by vocabulary or by FHIR system", () => {
    const byVocabulary = crossmap(
      "vocab",
      "lookup",
      "--code",
      "E11.9",
      "--vocabulary",
      "ICD10CM",
      "--standard",
      "--vocab",
      index,
    );
    expect(JSON.parse(byVocabulary.stdout).concept_id).toBe(201826);
    const bySystem = crossmap(
      "vocab",
      "lookup",
      "--code",
      "E11.9",
      "--system",
      "http://hl7.org/fhir/sid/icd-10-cm",
      "--standard",
      "--as",
      "codeable-concept",
      "--vocab",
      index,
    );
    expect(JSON.parse(bySystem.stdout)).toEqual({
      coding: [{ system: "http://snomed.info/sct", code: "44054006", display: "Type 2 diabetes mellitus" }],
      text: "Type 2 diabetes mellitus",
    });
  });

  it("maps to another vocabulary with --to", () => {
    const r = crossmap("vocab", "lookup", "201826", "--to", "ICD10CM", "--vocab", index);
    expect(JSON.parse(r.stdout).map((c: { concept_code: string }) => c.concept_code)).toEqual(["E11.9"]);
  });

  it("exits 1 with a message, and prints nothing, for an unknown concept", () => {
    const r = crossmap("vocab", "lookup", "99", "--vocab", index);
    expect(r).toEqual({ code: 1, stdout: "", stderr: `crossmap: concept 99 not found in ${index}\n` });
  });

  it("exits 2 when the index directory holds no index", () => {
    const r = crossmap("vocab", "lookup", "201826", "--vocab", tmp.path);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `crossmap: ${tmp.path} holds no vocabulary index (expected vocab.mdb); build one with \`crossmap vocab build\`\n`,
    );
  });
});

describe("crossmap vocab crosswalk and stats", () => {
  it("streams a crosswalk as CSV", () => {
    const r = crossmap("vocab", "crosswalk", "ICD10CM", "SNOMED", "--vocab", index);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      "source_concept_id,source_vocabulary_id,source_code,source_name,relationship_id,target_concept_id,target_vocabulary_id,target_code,target_name\n" +
        "1567956,ICD10CM,E11.9,Type 2 diabetes mellitus without complications,Maps to,201826,SNOMED,44054006,Type 2 diabetes mellitus\n",
    );
  });

  it("streams a crosswalk as NDJSON", () => {
    const r = crossmap("vocab", "crosswalk", "ICD10CM", "SNOMED", "--format", "ndjson", "--vocab", index);
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      source: { concept_id: 1567956 },
      relationship_id: "Maps to",
      target: { concept_id: 201826 },
    });
  });

  it("refuses an unknown output format with exit 2", () => {
    const r = crossmap("vocab", "crosswalk", "ICD10CM", "SNOMED", "--format", "xml", "--vocab", index);
    expect(r).toEqual({
      code: 2,
      stdout: "",
      stderr: 'crossmap: --format must be csv or ndjson, not "xml"\n',
    });
  });

  it("refuses a vocabulary or relationship the index does not hold, with exit 2", () => {
    const r = crossmap("vocab", "crosswalk", "FOO", "SNOMED", "--vocab", index);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^crossmap: the index has no vocabulary "FOO"; it holds: .*SNOMED.*\n$/);
    const typo = crossmap("vocab", "crosswalk", "ICD10CM", "SNOMD", "--vocab", index);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(
      /^crossmap: the index has no vocabulary "SNOMD" \(did you mean "SNOMED"\?\); it holds: /,
    );
    const rel = crossmap(
      "vocab",
      "crosswalk",
      "ICD10CM",
      "SNOMED",
      "--relationship",
      "Maps too",
      "--vocab",
      index,
    );
    expect(rel).toEqual({
      code: 2,
      stdout: "",
      stderr:
        'crossmap: the index has no relationship "Maps too" (did you mean "Maps to"?); it holds: Maps to, Mapped from\n',
    });
  });

  it("builds only the vocabularies asked for", () => {
    const out = join(tmp.path, "gender-only");
    const r = crossmap("vocab", "build", "vocab", "--out", out, "--vocabularies", "Gender,Race");
    expect(JSON.parse(r.stdout)).toMatchObject({ concepts: 9, relationships: 0 });
    const stats = JSON.parse(crossmap("vocab", "stats", "--vocab", out).stdout);
    expect(stats.vocabulary_filter).toEqual(["Gender", "Race"]);
    expect(Object.keys(stats.vocabularies)).toEqual(["Gender", "Race"]);
  });

  it("prints the index statistics as JSON", () => {
    const r = crossmap("vocab", "stats", "--vocab", index);
    const stats = JSON.parse(r.stdout);
    expect(stats).toMatchObject({
      index_dir: index,
      layout: 4,
      // VOCABULARY.csv's version of "None": the release the sample was cut from.
      release: "v5.0 09-APR-22*",
      source_form: "athena-tab",
      concepts: 1486,
      relationships: 2852,
      relationship_ids: ["Maps to", "Mapped from"],
      slabs: {
        concepts: 1,
        relations: 1,
        ids: 1,
        codes: 1,
        terms: 1,
        termIndex: 1,
        postings: 1,
        first: 1,
        columns: 1,
      },
      search: { tokens: 1371, postings: 5782, named: 1486 },
    });
    expect(stats.vocabularies.SNOMED).toEqual({ concepts: 179, version: null, name: null });
  });
});

describe("crossmap vocab search", () => {
  it("prints the ranked concepts with how each matched, and the count", () => {
    const r = crossmap("vocab", "search", "type", "2", "diab", "--vocab", index, "--limit", "2");
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const out = JSON.parse(r.stdout);
    expect(out.concepts.map((c: { concept_id: number; match: string }) => [c.concept_id, c.match])).toEqual([
      [201826, "name"],
      [1567956, "name"],
    ]);
    expect(out.concepts[0]).toEqual({
      concept_id: 201826,
      concept_name: "Type 2 diabetes mellitus",
      domain_id: "Condition",
      vocabulary_id: "SNOMED",
      concept_class_id: "Clinical Finding",
      standard_concept: "S",
      concept_code: "44054006",
      valid_start_date: "2002-01-31",
      valid_end_date: "2099-12-31",
      invalid_reason: null,
      match: "name",
    });
    expect(out).toMatchObject({ total: 3, total_relation: "eq" });
  });

  it("filters by vocabulary, domain and standard; a code is found in any case", () => {
    const icd = JSON.parse(
      crossmap("vocab", "search", "diabetes", "--vocabulary", "ICD10CM", "--vocab", index).stdout,
    );
    expect(icd.concepts.map((c: { concept_id: number }) => c.concept_id)).toEqual([1567956]);
    const code = JSON.parse(crossmap("vocab", "search", "e11.9", "--vocab", index).stdout);
    expect(code.concepts[0]).toMatchObject({ concept_id: 1567956, match: "code" });
    const standard = JSON.parse(
      crossmap("vocab", "search", "diabetes", "--domain", "Condition", "--standard", "--vocab", index).stdout,
    );
    expect(standard.concepts.every((c: { standard_concept: string }) => c.standard_concept === "S")).toBe(
      true,
    );
  });

  it("exits 1 when nothing matches, still printing the empty answer", () => {
    const r = crossmap("vocab", "search", "zzzq", "--vocab", index);
    expect(r).toEqual({
      code: 1,
      stdout: `${JSON.stringify({ concepts: [], total: 0, total_relation: "eq" }, null, 2)}\n`,
      stderr: "",
    });
  });

  it("refuses a limit out of range with exit 2", () => {
    expect(crossmap("vocab", "search", "x", "--limit", "101", "--vocab", index)).toEqual({
      code: 2,
      stdout: "",
      stderr: "crossmap: --limit must be an integer from 1 to 100, not 101\n",
    });
  });
});
