// The VocabularyBridge over real indexes: the shipped sample vocabulary and a small fixture.
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { open } from "lmdb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildVocabulary } from "../../src/vocab/build.js";
import { AREA, DATA_FILE, DB, LAYOUT_VERSION, slabKey } from "../../src/vocab/layout.js";
import {
  copiedIndexNotice,
  indexLayout,
  type LmdbVocabularyBridge,
  openVocabulary,
} from "../../src/vocab/lmdb-bridge.js";
import { lmdbMapsLargeValues, tempDir, writeAthena } from "./fixtures.js";

let sample: LmdbVocabularyBridge;
let fixture: LmdbVocabularyBridge;
const tmp = tempDir();

beforeAll(async () => {
  await buildVocabulary({ sourceDir: resolve("vocab"), outDir: join(tmp.path, "sample") });
  sample = openVocabulary(join(tmp.path, "sample"));
  writeAthena(tmp.path);
  await buildVocabulary({ sourceDir: tmp.path, outDir: join(tmp.path, "fixture") });
  fixture = openVocabulary(join(tmp.path, "fixture"));
});
afterAll(async () => {
  await sample.close();
  await fixture.close();
  tmp.remove();
});

describe("the shipped sample vocabulary", () => {
  it("holds the concepts the Synthea sample uses and the ones added to it", () => {
    expect(sample.stats().concepts).toBe(1486);
    expect(sample.getConcept(8507)?.concept_name).toBe("MALE");
    expect(sample.getConcept(8527)?.concept_code).toBe("5");
    expect(sample.getConcept(9202)?.concept_code).toBe("OP");
    expect(sample.getConcept(38003564)?.concept_name).toBe("Not Hispanic or Latino");
  });

  it("resolves ICD10CM E11.9 to the standard SNOMED concept through Maps to", () => {
    expect(sample.standardConcept("ICD10CM", "E11.9")).toEqual({
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
    });
    expect(sample.mapConcept(201826, { targetVocabulary: "ICD10CM" }).map((c) => c.concept_code)).toEqual([
      "E11.9",
    ]);
  });

  it("renders a SNOMED concept as a CodeableConcept with the concept's own code, not its OMOP id", () => {
    expect(sample.toCodeableConcept(201826)).toEqual({
      coding: [{ system: "http://snomed.info/sct", code: "44054006", display: "Type 2 diabetes mellitus" }],
      text: "Type 2 diabetes mellitus",
    });
  });

  it("renders LOINC under http://loinc.org and as openEHR DV_CODED_TEXT", () => {
    expect(sample.toCodeableConcept(3004410)?.coding).toEqual([
      { system: "http://loinc.org", code: "4548-4", display: "Hemoglobin A1c/Hemoglobin.total in Blood" },
    ]);
    expect(sample.toDvCodedText(3004410)).toEqual({
      _type: "DV_CODED_TEXT",
      value: "Hemoglobin A1c/Hemoglobin.total in Blood",
      defining_code: {
        _type: "CODE_PHRASE",
        terminology_id: { _type: "TERMINOLOGY_ID", value: "LOINC" },
        code_string: "4548-4",
      },
    });
  });
});

describe("a hub concept", () => {
  it("lists each of thousands of related concepts once, in file order", async () => {
    const hub = tempDir();
    const concepts = [["100", "hub", "Condition", "SNOMED", "X", "S", "H", "20000101", "20991231", ""]];
    const rels: string[][] = [];
    for (let i = 1; i <= 3000; i++) {
      concepts.push([
        String(100 + i),
        `leaf ${i}`,
        "Condition",
        "ICD10CM",
        "X",
        "",
        `L${i}`,
        "20000101",
        "20991231",
        "",
      ]);
      rels.push(["100", String(100 + i), "Mapped from", "20000101", "20991231", ""]);
      rels.push(["100", String(100 + i), "Subsumes", "20000101", "20991231", ""]);
    }
    writeAthena(hub.path, concepts, rels);
    // 4 KB slabs: the hub's list (6,000 ids, 24 KB) is larger than a slab and gets one of its own
    await buildVocabulary({ sourceDir: hub.path, outDir: join(hub.path, "index"), slabBytes: 4096 });
    const b = openVocabulary(join(hub.path, "index"));
    try {
      const ids = b.mapConcept(100, { relationships: ["Mapped from", "Subsumes"] }).map((c) => c.concept_id);
      expect(ids).toEqual(Array.from({ length: 3000 }, (_, i) => 101 + i));
      expect(b.mapConcept(3100, { relationships: ["Mapped from", "Subsumes"] })).toEqual([]);
      expect(b.getConcept(3100)?.concept_code).toBe("L3000");
    } finally {
      await b.close();
      hub.remove();
    }
  });
});

describe("lookups", () => {
  it("answers not found, never throws, for anything that is not a known concept", () => {
    for (const id of [0, -1, 1.5, Number.NaN, 2 ** 32, 99999999, "201826" as unknown as number]) {
      expect(fixture.getConcept(id)).toBeUndefined();
      expect(fixture.mapConcept(id)).toEqual([]);
      expect(fixture.toCodeableConcept(id)).toBeUndefined();
      expect(fixture.toDvCodedText(id)).toBeUndefined();
    }
    expect(fixture.lookupCode("SNOMED", "no-such-code")).toBeUndefined();
    expect(fixture.lookupCode("", "")).toBeUndefined();
    expect(fixture.lookupCode(undefined as unknown as string, "x")).toBeUndefined();
    expect(fixture.standardConcept("ICD10CM", "Z99.99")).toBeUndefined();
  });

  it("finds a code only in its own vocabulary", () => {
    expect(fixture.lookupCode("SNOMED", "44054006")?.concept_id).toBe(201826);
    expect(fixture.lookupCode("LOINC", "44054006")).toBeUndefined();
    expect(fixture.lookupCode("ICD10CM", "E11.9")?.concept_id).toBe(1567956);
  });

  it("handles custom concepts above 2,000,000,000 in both directions", () => {
    expect(fixture.getConcept(2000000001)?.concept_code).toBe("DM-2");
    expect(fixture.standardConcept("Local", "DM-2")?.concept_id).toBe(201826);
    expect(fixture.mapConcept(201826, { relationships: ["Mapped from"] }).map((c) => c.concept_id)).toEqual([
      1567956, 2000000001,
    ]);
  });

  it("maps with the default relationships, a target vocabulary, or a chosen relationship", () => {
    expect(fixture.mapConcept(1567956).map((c) => c.concept_id)).toEqual([201826]);
    expect(fixture.mapConcept(201826, { targetVocabulary: "Local" }).map((c) => c.concept_id)).toEqual([
      2000000001,
    ]);
    expect(fixture.mapConcept(201826, { relationships: ["Is a"] })).toEqual([]);
    expect(fixture.mapConcept(201826, { relationships: ["No such relationship"] })).toEqual([]);
  });

  it("does not follow a deprecated relationship", () => {
    expect(fixture.mapConcept(2000000002)).toEqual([]);
    expect(fixture.standardConcept("Local", "NA-1")).toBeUndefined();
  });

  it("leaves out a display that is empty or NA; openEHR falls back to the code", () => {
    expect(fixture.toCodeableConcept(2000000002)).toEqual({ coding: [{ code: "NA-1" }] });
    expect(fixture.toDvCodedText(2000000002)?.value).toBe("NA-1");
    expect(fixture.toDvCodedText(2000000002)?.defining_code.terminology_id.value).toBe("Local");
  });

  it("resolves FHIR system URIs for the reverse direction", () => {
    expect(fixture.standardConceptForSystem("http://hl7.org/fhir/sid/icd-10-cm", "E11.9")?.concept_id).toBe(
      201826,
    );
    expect(fixture.standardConceptForSystem("http://example.org/x", "E11.9")).toBeUndefined();
  });

  it("streams a crosswalk lazily, with the relationship that links each pair", () => {
    const rows = [...fixture.crosswalk("ICD10CM", "SNOMED")];
    expect(rows.map((r) => [r.source.concept_code, r.relationship, r.target.concept_code])).toEqual([
      ["E11.9", "Maps to", "44054006"],
    ]);
    const reverse = fixture.crosswalk("SNOMED", "Local");
    expect(reverse.next().value?.target.concept_code).toBe("DM-2");
  });
});

describe("closing", () => {
  it("answers not found after close, and ends a crosswalk that was under way", async () => {
    const dir = join(tmp.path, "closing");
    await buildVocabulary({ sourceDir: tmp.path, outDir: dir });
    const b = openVocabulary(dir);
    const rows = b.crosswalk("ICD10CM", "SNOMED");
    expect(rows.next().done).toBe(false);
    expect(b.getConcept(201826)?.concept_code).toBe("44054006");
    await b.close();
    expect(rows.next().done).toBe(true);
    expect(b.getConcept(201826)).toBeUndefined();
    expect(b.lookupCode("SNOMED", "44054006")).toBeUndefined();
    expect(b.mapConcept(1567956)).toEqual([]);
  });
});

describe("threads", () => {
  it("keeps answering from its slabs while another thread maps the same index and closes it", async () => {
    const maps = await lmdbMapsLargeValues();
    // 50k concepts with long names: a concepts slab of ~7 MB, which lmdb-js maps instead of copying
    const big = tempDir();
    const concepts = Array.from({ length: 50_000 }, (_, i) => [
      String(1000 + i),
      `concept ${i} ${"x".repeat(100)}`,
      "Condition",
      "SNOMED",
      "X",
      "S",
      `C${i}`,
      "20000101",
      "20991231",
      "",
    ]);
    writeAthena(big.path, concepts, []);
    const dir = join(big.path, "index");
    await buildVocabulary({ sourceDir: big.path, outDir: dir });
    const b = openVocabulary(dir);
    try {
      // the hash tables and the search areas (each under 4 MB) only, where lmdb-js maps large values
      if (maps) expect(b.copiedBytes).toBeLessThan(6 << 20);
      else expect(b.copiedBytes).toBeGreaterThan(4 << 20);
      const before = [1000, 26_000, 50_999].map((id) => b.getConcept(id));
      expect(before.map((c) => c?.concept_code)).toEqual(["C0", "C25000", "C49999"]);
      // The worker reads every concepts slab as lmdb-js's view into the map, then closes its env.
      const lmdb = pathToFileURL(createRequire(import.meta.url).resolve("lmdb")).href;
      const slabs = b.info.slabs.concepts;
      const worker = new Worker(
        `const { parentPort, workerData } = require("node:worker_threads");
        import(workerData.lmdb).then(async ({ open }) => {
          const env = open({ path: workerData.file, noSubdir: true, readOnly: true, maxDbs: 8 });
          const db = env.openDB({ name: "slabs", keyEncoding: "uint32", encoding: "binary" });
          let mapped = 0;
          for (let n = 0; n < workerData.slabs; n++) if (db.getBinaryFast(workerData.first + n).buffer.isSharedMap) mapped++;
          await env.close();
          parentPort.postMessage(mapped);
        });`,
        {
          eval: true,
          workerData: { lmdb, file: join(dir, DATA_FILE), slabs, first: slabKey(AREA.concepts, 0) },
        },
      );
      const mapped = await new Promise((res, rej) => worker.once("message", res).once("error", rej));
      await worker.terminate();
      expect(mapped).toBe(maps ? slabs : 0);
      expect([1000, 26_000, 50_999].map((id) => b.getConcept(id))).toEqual(before);
      expect(b.lookupCode("SNOMED", "C25000")?.concept_id).toBe(26_000);
    } finally {
      await b.close();
      big.remove();
    }
  });
});

describe("an index that lmdb-js copies instead of mapping", () => {
  it("is worth a warning from 64 MB copied, naming the size, the time and the remedy", () => {
    expect(copiedIndexNotice("data/vocab", (64 << 20) - 1, 40)).toBeUndefined();
    expect(copiedIndexNotice("data/vocab", 1_034_176_432, 756.4)).toBe(
      "the vocabulary index data/vocab was copied into memory (1,034 MB in 756 ms), not mapped: the " +
        `installed lmdb has no binary built for Node ${process.versions.node}'s V8, so every thread that ` +
        "opens the index holds its own copy. `npm rebuild lmdb --build-from-source` (needs a C++ compiler) " +
        "or Node 20/22 maps it instead.",
    );
  });

  it("stays quiet for a small index, whose small slabs are copied on purpose", () => {
    expect(sample.copiedBytes).toBeGreaterThan(0);
    expect(copiedIndexNotice("x", sample.copiedBytes, 1)).toBeUndefined();
  });
});

describe("index layout versions", () => {
  it("reads the layout of an index, and refuses one of another layout with a rebuild hint", async () => {
    expect(indexLayout(join(tmp.path, "sample"))).toBe(LAYOUT_VERSION);
    expect(indexLayout(join(tmp.path, "no-such-index"))).toBeUndefined();
    const old = join(tmp.path, "layout-1");
    const env = open({ path: join(old, DATA_FILE), noSubdir: true, maxDbs: 8 });
    await env.openDB({ name: DB.meta }).put("info", { layout: 1 });
    await env.close();
    expect(indexLayout(old)).toBe(1);
    expect(() => openVocabulary(old)).toThrow(
      `${old} is not a vocabulary index of layout ${LAYOUT_VERSION}; rebuild it with \`crossmap vocab build\``,
    );
  });
});
