// The suggester's pread reads (record-reader.ts) over a real file laid out as an index's concepts,
// relations and ids areas, at known offsets: records, names, "Maps to" lists through the ids table's
// probe, and the check that a slab's view sits at its file offset.
import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeHashTable } from "../../src/vocab/hash-table.js";
import { encodeConcept, ID_SLOT, makeRef, mix32 } from "../../src/vocab/layout.js";
import { areaInFile, RecordReader } from "../../src/vocab/record-reader.js";
import { type Slab, SlabWriter } from "../../src/vocab/slabs.js";
import { tempDir } from "./fixtures.js";

const tmp = tempDir();
afterAll(() => tmp.remove());

const concept = (id: number, name: string, standard: string | null) => ({
  concept_id: id,
  concept_name: name,
  domain_id: "Condition",
  vocabulary_id: "SNOMED",
  concept_class_id: "Clinical Finding",
  standard_concept: standard,
  concept_code: `c${id}`,
  valid_start_date: "19700101",
  valid_end_date: "20991231",
  invalid_reason: null,
});

/** Slabs written by the index's own writers, placed in one file after `gap` bytes each. */
function layout() {
  const slabs: { area: string; bytes: Buffer }[] = [];
  const writer = (area: string, bytes?: number) =>
    new SlabWriter(area, (_n, v) => slabs.push({ area, bytes: Buffer.from(v) }), bytes);
  const concepts = writer("concepts", 1024);
  const long = "x".repeat(700); // longer than one read: read again whole
  const rows = [
    concept(11, "Type 2 diabetes mellitus", "S"),
    concept(12, "Diabetes type II", null),
    concept(13, long, "S"),
    concept(14, "Essential hypertension", "S"),
  ];
  const refs = rows.map((c) => concepts.addConcept(c.concept_id, encodeConcept(c)));
  concepts.finish();
  // Concept 12: group 0 ("Maps to") -> 11 and 14, twice 11; group 1 -> 13.
  const relations = writer("relations");
  const rel12 = relations.addWords(new Uint32Array([8, 0, 3, refs[0]!, refs[3]!, refs[0]!, 1, 1, refs[2]!]));
  relations.finish();
  const ids = [11, 12, 13, 14];
  writeHashTable(
    Uint32Array.from(ids, mix32),
    ID_SLOT,
    (i, words, at) => {
      words[at] = ids[i]!;
      words[at + 1] = refs[i]!;
      words[at + 2] = ids[i] === 12 ? rel12 : 0;
    },
    (_p, words) =>
      slabs.push({ area: "ids", bytes: Buffer.from(words.buffer, words.byteOffset, words.byteLength) }),
    { partitionBytes: 24 }, // two slots a partition: several partitions, probes that wrap
  );
  const gap = 100;
  let at = gap;
  const placed = slabs.map((s) => {
    const p = { ...s, offset: at };
    at += s.bytes.length + gap;
    return p;
  });
  const file = Buffer.alloc(at);
  for (const p of placed) p.bytes.copy(file, p.offset);
  const path = join(tmp.path, "areas.bin");
  writeFileSync(path, file);
  const area = (name: string) => {
    const of = placed.filter((p) => p.area === name);
    return { offsets: of.map((p) => p.offset), lengths: of.map((p) => p.bytes.length) };
  };
  return { path, file, placed, refs, rows, long, area };
}

describe("RecordReader", () => {
  const l = layout();

  it("reads records, names and related refs by pread", () => {
    const reader = new RecordReader(
      openSync(l.path, "r"),
      l.area("concepts"),
      l.area("relations"),
      l.area("ids"),
    );
    expect(reader.conceptAt(l.refs[0]!)).toEqual(l.rows[0]);
    expect(reader.conceptAt(l.refs[2]!)).toEqual(l.rows[2]);
    expect(reader.nameAt(l.refs[1]!)).toEqual({ id: 12, name: "Diabetes type II" });
    expect(reader.nameAt(l.refs[2]!)).toEqual({ id: 13, name: l.long });
    expect(reader.relatedRefs(12, new Set([0]))).toEqual([l.refs[0], l.refs[3]]);
    expect(reader.relatedRefs(12, new Set([0, 1]))).toEqual([l.refs[0], l.refs[3], l.refs[2]]);
    expect(reader.relatedRefs(11, new Set([0]))).toEqual([]); // no relations
    expect(reader.relatedRefs(99, new Set([0]))).toEqual([]); // no such concept
    expect(l.refs[0]).toBe(makeRef(0, 0));
    reader.close();
  });

  it("takes a slab's view for its file offset only when the file holds the same bytes there", () => {
    // A view over the file's bytes (as a memory map gives), or over a copy placed elsewhere.
    const views = (copied: boolean, mapped = true): Slab[] =>
      l.placed
        .filter((p) => p.area === "concepts")
        .map((p) => {
          const from = copied ? Buffer.concat([Buffer.alloc(8), p.bytes]) : l.file;
          const at = copied ? 8 : p.offset;
          return { bytes: from.subarray(at, at + p.bytes.length), words: new Uint32Array(0), mapped };
        });
    const fd = openSync(l.path, "r");
    expect(areaInFile(fd, views(false))).toEqual(l.area("concepts"));
    expect(areaInFile(fd, views(true))).toBeUndefined(); // its offset is not its place in the file
    expect(areaInFile(fd, views(false, false))).toBeUndefined(); // copied by lmdb-js
    closeSync(fd);
  });
});
