// Builds real LMDB indexes in temp directories from small Athena tables in both source forms.
import { existsSync, lstatSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildVocabulary } from "../../src/vocab/build.js";
import { codeHash } from "../../src/vocab/layout.js";
import { openVocabulary } from "../../src/vocab/lmdb-bridge.js";
import { CONCEPTS, RELATIONSHIPS, tempDir, writeAthena, writeCsvIso } from "./fixtures.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
function workDir() {
  const t = tempDir();
  cleanups.push(t.remove);
  const src = join(t.path, "athena");
  mkdirSync(src);
  return { root: t.path, src, out: join(t.path, "index") };
}

async function buildAndOpen(
  src: string,
  out: string,
  extra: Partial<Parameters<typeof buildVocabulary>[0]> = {},
) {
  const report = await buildVocabulary({ sourceDir: src, outDir: out, ...extra });
  const bridge = openVocabulary(out);
  cleanups.unshift(() => void bridge.close());
  return { report, bridge };
}

describe("vocab build", () => {
  it("reads the Athena TAB form and the comma/ISO form into the same index", async () => {
    const a = workDir();
    writeAthena(a.src);
    const b = workDir();
    writeCsvIso(b.src);
    const tab = await buildAndOpen(a.src, a.out);
    const csv = await buildAndOpen(b.src, b.out);
    expect(tab.report.info.source_form).toBe("athena-tab");
    expect(csv.report.info.source_form).toBe("csv-iso");
    for (const row of CONCEPTS) {
      expect(csv.bridge.getConcept(Number(row[0]))).toEqual(tab.bridge.getConcept(Number(row[0])));
    }
    expect(tab.bridge.getConcept(1567956)).toEqual({
      concept_id: 1567956,
      concept_name: "Type 2 diabetes mellitus without complications",
      domain_id: "Condition",
      vocabulary_id: "ICD10CM",
      concept_class_id: "4-char billing code",
      standard_concept: null,
      concept_code: "E11.9",
      valid_start_date: "2007-10-01",
      valid_end_date: "2099-12-31",
      invalid_reason: null,
    });
  });

  it("counts what it loaded, skipped and why", async () => {
    const d = workDir();
    writeAthena(d.src);
    const { report } = await buildAndOpen(d.src, d.out);
    expect(report.malformedRows).toBe(0);
    expect(report.info.files).toEqual({
      "CONCEPT.csv": { rows: 6, loaded: 6, malformed: 0, skipped: 0, duplicates: 0 },
      // one deprecated relationship, one pointing at a concept the index does not hold (counted apart)
      "CONCEPT_RELATIONSHIP.csv": {
        rows: 7,
        loaded: 5,
        malformed: 0,
        skipped: 2,
        duplicates: 0,
        missing_concept: 1,
      },
    });
    expect(report.info.vocabularies.Local).toEqual({ concepts: 2, version: null, name: null });
    // No VOCABULARY.csv: no release.
    expect(report.info.release).toBeNull();
  });

  it('keeps the release VOCABULARY.csv gives the "None" vocabulary, and each vocabulary\'s version', async () => {
    const d = workDir();
    writeAthena(d.src);
    writeFileSync(
      join(d.src, "VOCABULARY.csv"),
      [
        "vocabulary_id\tvocabulary_name\tvocabulary_reference\tvocabulary_version\tvocabulary_concept_id",
        "None\tOMOP Standardized Vocabularies\tOMOP generated\tv5.0 30-AUG-24\t44819096",
        "SNOMED\tSystematic Nomenclature of Medicine - Clinical Terms (IHTSDO)\tx\t2024-03-01 SNOMED CT International Edition\t44819097",
      ].join("\n"),
    );
    const { report, bridge } = await buildAndOpen(d.src, d.out);
    expect(report.info.release).toBe("v5.0 30-AUG-24");
    expect(bridge.release).toBe("v5.0 30-AUG-24");
    expect(bridge.stats().release).toBe("v5.0 30-AUG-24");
    expect(report.info.vocabularies.SNOMED?.version).toBe("2024-03-01 SNOMED CT International Edition");
  });

  it("keeps quoted commas, quotes and newlines of the comma form, and reports later lines correctly", async () => {
    const d = workDir();
    const tricky = [
      [
        "4000001",
        'Fracture, "open"\nof femur',
        "Condition",
        "SNOMED",
        "Clinical Finding",
        "S",
        "1234567",
        "20020131",
        "20991231",
        "",
      ],
      ["4000002", "", "Condition", "SNOMED", "Clinical Finding", "", "7654321", "20020131", "20991231", ""],
      ["bad", "x", "Condition", "SNOMED", "Clinical Finding", "", "1", "20020131", "20991231", ""],
    ];
    writeCsvIso(d.src, tricky, []);
    const { report, bridge } = await buildAndOpen(d.src, d.out);
    expect(bridge.getConcept(4000001)?.concept_name).toBe('Fracture, "open"\nof femur');
    expect(bridge.getConcept(4000002)?.concept_name).toBe("");
    // header is line 1, the first row spans lines 2-3, so the bad row sits on line 5
    expect(report.problems).toEqual([
      {
        file: join(d.src, "CONCEPT.csv"),
        line: 5,
        path: ["concept_id"],
        code: "malformed_row",
        message: 'concept_id "bad" is not an integer from 0 to 4294967295',
      },
    ]);
  });

  it("reads files with Windows line endings without keeping the carriage returns", async () => {
    const d = workDir();
    const lines = [
      "concept_id\tconcept_name\tdomain_id\tvocabulary_id\tconcept_class_id\tstandard_concept\tconcept_code\tvalid_start_date\tvalid_end_date\tinvalid_reason",
      "8507\tMALE\tGender\tGender\tGender\tS\tM\t19700101\t20991231\tD",
    ];
    writeFileSync(join(d.src, "CONCEPT.csv"), `${lines.join("\r\n")}\r\n`);
    const { bridge } = await buildAndOpen(d.src, d.out);
    expect(bridge.getConcept(8507)?.invalid_reason).toBe("D");
    expect(bridge.lookupCode("Gender", "M")?.concept_id).toBe(8507);
  });

  it("treats quotes in the TAB form as text, as Athena writes them", async () => {
    const d = workDir();
    writeAthena(
      d.src,
      [
        [
          "4000003",
          '"Heel" spur',
          "Condition",
          "SNOMED",
          "Clinical Finding",
          "S",
          "3333",
          "20020131",
          "20991231",
          "",
        ],
      ],
      [],
    );
    const { bridge } = await buildAndOpen(d.src, d.out);
    expect(bridge.getConcept(4000003)?.concept_name).toBe('"Heel" spur');
  });

  it.each([false, true])(
    "reports a malformed row by file and line and still loads every good row (worker: %s)",
    async (relationshipWorker) => {
      const d = workDir();
      const rows = [...CONCEPTS.slice(0, 2), ["201827", "short row"], ...CONCEPTS.slice(2)];
      writeAthena(d.src, rows, [
        ...RELATIONSHIPS.slice(0, 1),
        ["1567956", "x", "Maps to", "19700101", "20991231", ""],
      ]);
      const { report, bridge } = await buildAndOpen(d.src, d.out, { relationshipWorker });
      expect(report.malformedRows).toBe(2);
      expect(report.problems.map((p) => `${p.file}:${p.line}: ${p.message}`)).toEqual([
        `${join(d.src, "CONCEPT.csv")}:4: expected 10 fields, found 2`,
        `${join(d.src, "CONCEPT_RELATIONSHIP.csv")}:3: concept_id_2 "x" is not an integer from 0 to 4294967295`,
      ]);
      expect(report.info.concepts).toBe(CONCEPTS.length);
      for (const row of CONCEPTS) expect(bridge.getConcept(Number(row[0]))?.concept_code).toBe(row[6]);
      expect(bridge.standardConcept("ICD10CM", "E11.9")?.concept_id).toBe(201826);
    },
  );

  it("keeps only the vocabularies asked for, and relationships between kept concepts", async () => {
    const d = workDir();
    writeAthena(d.src);
    const { report, bridge } = await buildAndOpen(d.src, d.out, { vocabularies: ["SNOMED", "Local"] });
    expect(report.info.vocabulary_filter).toEqual(["Local", "SNOMED"]);
    expect(Object.keys(report.info.vocabularies)).toEqual(["Local", "SNOMED"]);
    expect(bridge.getConcept(1567956)).toBeUndefined();
    expect(bridge.mapConcept(201826).map((c) => c.concept_id)).toEqual([201826, 2000000001]);
  });

  it("gives the same index whether rows are sorted in memory or spilled to disk and merged", async () => {
    const d = workDir();
    const concepts: string[][] = [];
    const rels: string[][] = [];
    // scrambled ids, a duplicated id, codes repeated across vocabularies
    for (let i = 0; i < 500; i++) {
      const id = String(1000 + ((i * 337) % 500));
      concepts.push([
        id,
        `c${i}`,
        "Condition",
        i % 2 ? "SNOMED" : "ICD10CM",
        "X",
        i % 3 ? "S" : "",
        `K${i % 250}`,
        "20000101",
        "20991231",
        "",
      ]);
      rels.push([id, String(1000 + ((i * 7) % 500)), i % 2 ? "Maps to" : "Is a", "20000101", "20991231", ""]);
    }
    concepts.push([
      "1000",
      "duplicate of 1000",
      "Condition",
      "SNOMED",
      "X",
      "S",
      "DUP",
      "20000101",
      "20991231",
      "",
    ]);
    writeAthena(d.src, concepts, rels);
    const memory = await buildAndOpen(d.src, d.out);
    const spilled = await buildAndOpen(d.src, join(d.root, "spilled"), {
      conceptChunk: 64,
      relationshipChunk: 50,
    });
    const worker = await buildAndOpen(d.src, join(d.root, "worker"), {
      relationshipWorker: true,
      relationshipChunk: 50,
    });
    // slabs of 64 words and table partitions of 512 bytes: records over many slabs, tables over many parts
    const slabbed = await buildAndOpen(d.src, join(d.root, "slabbed"), {
      slabBytes: 256,
      partitionBytes: 512,
    });
    expect(slabbed.report.info.slabs.concepts).toBeGreaterThan(50);
    expect(slabbed.report.info.slabs.relations).toBeGreaterThan(10);
    expect(slabbed.report.info.slabs.ids).toBeGreaterThan(10);
    expect(slabbed.report.info.slabs.codes).toBeGreaterThan(5);
    for (const area of ["terms", "termIndex", "postings", "first", "columns"] as const) {
      expect(slabbed.report.info.slabs[area]).toBeGreaterThan(3);
    }
    expect(memory.report.info.slabs).toEqual({
      concepts: 1,
      relations: 1,
      ids: 1,
      codes: 1,
      terms: 1,
      termIndex: 1,
      postings: 1,
      first: 1,
      columns: 1,
    });
    for (const text of ["c1", "c", "c42", "K7"]) {
      expect(slabbed.bridge.search(text, { limit: 100 })).toEqual(memory.bridge.search(text, { limit: 100 }));
      expect(spilled.bridge.search(text, { limit: 100 })).toEqual(memory.bridge.search(text, { limit: 100 }));
    }
    expect(memory.bridge.search("c1").total).toBe(1 + 10 + 100); // c1, c10-c19, c100-c199
    // no run files or temp dirs left
    expect(readdirSync(d.root).sort()).toEqual(["athena", "index", "slabbed", "spilled", "worker"]);
    const { built_at, build_ms } = worker.report.info;
    expect(worker.report.info).toEqual({ ...spilled.report.info, built_at, build_ms });
    expect(spilled.report.info.concepts).toBe(500);
    expect(spilled.report.info.files["CONCEPT.csv"]?.duplicates).toBe(1);
    expect(spilled.bridge.getConcept(1000)?.concept_name).toBe(memory.bridge.getConcept(1000)?.concept_name);
    for (let id = 1000; id < 1500; id++) {
      expect(spilled.bridge.getConcept(id)).toEqual(memory.bridge.getConcept(id));
      const mapped = memory.bridge.mapConcept(id, { relationships: ["Maps to", "Is a"] });
      expect(spilled.bridge.mapConcept(id, { relationships: ["Maps to", "Is a"] })).toEqual(mapped);
      expect(worker.bridge.mapConcept(id, { relationships: ["Maps to", "Is a"] })).toEqual(mapped);
      expect(slabbed.bridge.getConcept(id)).toEqual(memory.bridge.getConcept(id));
      expect(slabbed.bridge.mapConcept(id, { relationships: ["Maps to", "Is a"] })).toEqual(mapped);
    }
    const crosswalk = [...memory.bridge.crosswalk("SNOMED", "SNOMED", ["Maps to", "Is a"])];
    expect(crosswalk.length).toBeGreaterThan(200);
    expect([...slabbed.bridge.crosswalk("SNOMED", "SNOMED", ["Maps to", "Is a"])]).toEqual(crosswalk);
    for (let k = 0; k < 250; k++) {
      for (const vocabulary of ["SNOMED", "ICD10CM"]) {
        // rows i have code K(i % 250), odd rows SNOMED and even rows ICD10CM: odd codes are SNOMED's
        const found = memory.bridge.lookupCode(vocabulary, `K${k}`);
        expect(found?.concept_code).toBe((k % 2 === 1) === (vocabulary === "SNOMED") ? `K${k}` : undefined);
        expect(spilled.bridge.lookupCode(vocabulary, `K${k}`)).toEqual(found);
        expect(slabbed.bridge.lookupCode(vocabulary, `K${k}`)).toEqual(found);
      }
    }
    // ICD10CM K0 is rows 0 (id 1000) and 250 (id 1250, standard): the standard concept is preferred
    expect(memory.bridge.lookupCode("ICD10CM", "K0")?.concept_id).toBe(1250);
    expect(memory.bridge.lookupCode("SNOMED", "DUP")).toBeUndefined(); // the duplicate row lost to the first
  });

  it("tells apart two codes whose code hashes collide, in either order, and the standard one first", async () => {
    // FNV-1a("SNOMED\0C639912") = FNV-1a("SNOMED\0C1923960") = 1075553350: one codes key, two entries.
    expect(codeHash("SNOMED", "C639912")).toBe(codeHash("SNOMED", "C1923960"));
    const d = workDir();
    const row = (id: string, code: string, standard: string, invalid = "") => [
      id,
      `name ${id}`,
      "Condition",
      "SNOMED",
      "X",
      standard,
      code,
      "20000101",
      "20991231",
      invalid,
    ];
    writeAthena(
      d.src,
      [row("9002", "C1923960", ""), row("9001", "C639912", "S"), row("9003", "C639912", "", "D")],
      [],
    );
    const { bridge } = await buildAndOpen(d.src, d.out);
    expect(bridge.lookupCode("SNOMED", "C639912")?.concept_id).toBe(9001); // standard before invalid
    expect(bridge.lookupCode("SNOMED", "C1923960")).toEqual({
      concept_id: 9002,
      concept_name: "name 9002",
      domain_id: "Condition",
      vocabulary_id: "SNOMED",
      concept_class_id: "X",
      standard_concept: null,
      concept_code: "C1923960",
      valid_start_date: "2000-01-01",
      valid_end_date: "2099-12-31",
      invalid_reason: null,
    });
    expect(bridge.lookupCode("LOINC", "C639912")).toBeUndefined();
  });

  it("replaces an earlier index atomically and refuses to replace anything else", async () => {
    const d = workDir();
    writeAthena(d.src);
    await buildVocabulary({ sourceDir: d.src, outDir: d.out });
    writeAthena(d.src, CONCEPTS.slice(0, 1), []);
    const second = await buildVocabulary({ sourceDir: d.src, outDir: d.out });
    expect(second.info.concepts).toBe(1);
    expect(readdirSync(d.root).sort()).toEqual(["athena", "index"]);
    const notAnIndex = join(d.root, "mine");
    mkdirSync(notAnIndex);
    writeFileSync(join(notAnIndex, "notes.txt"), "keep me");
    await expect(buildVocabulary({ sourceDir: d.src, outDir: notAnIndex })).rejects.toThrow(
      `${notAnIndex} exists and is not a vocabulary index; refusing to replace it`,
    );
    expect(existsSync(join(notAnIndex, "notes.txt"))).toBe(true);
  });

  it("builds into the directory a symbolic link names, and the link stays a link", async () => {
    const d = workDir();
    writeAthena(d.src);
    const disk = join(d.root, "bigger-disk");
    mkdirSync(disk);
    const real = join(disk, "vocab-2026");
    symlinkSync(real, d.out);
    // The link's directory does not exist yet, then holds an earlier index.
    await buildVocabulary({ sourceDir: d.src, outDir: d.out });
    writeAthena(d.src, CONCEPTS.slice(0, 1), []);
    const second = await buildVocabulary({ sourceDir: d.src, outDir: d.out });
    expect(second.info.concepts).toBe(1);
    expect(lstatSync(d.out).isSymbolicLink()).toBe(true);
    expect(readdirSync(d.root).sort()).toEqual(["athena", "bigger-disk", "index"]);
    expect(readdirSync(disk)).toEqual(["vocab-2026"]);
    const bridge = openVocabulary(d.out);
    cleanups.unshift(() => void bridge.close());
    expect(bridge.getConcept(201826)?.concept_name).toBe("Type 2 diabetes mellitus");
  });

  it("fails before writing anything when CONCEPT.csv is missing or its header is wrong", async () => {
    const d = workDir();
    await expect(buildVocabulary({ sourceDir: d.src, outDir: d.out })).rejects.toThrow(
      `${d.src} has no CONCEPT.csv`,
    );
    writeFileSync(join(d.src, "CONCEPT.csv"), "id\tname\n1\tx\n");
    await expect(buildVocabulary({ sourceDir: d.src, outDir: d.out })).rejects.toThrow(
      "is not an Athena table",
    );
    expect(readdirSync(d.root).sort()).toEqual(["athena"]);
  });
});
