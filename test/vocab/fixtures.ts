// Small Athena tables written into temp directories: the same rows in both source forms, plus helpers.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { open } from "lmdb";
import { READ_ONLY_OPTIONS } from "../../src/vocab/lmdb-bridge.js";

export const CONCEPT_HEADER = [
  "concept_id",
  "concept_name",
  "domain_id",
  "vocabulary_id",
  "concept_class_id",
  "standard_concept",
  "concept_code",
  "valid_start_date",
  "valid_end_date",
  "invalid_reason",
];
export const REL_HEADER = [
  "concept_id_1",
  "concept_id_2",
  "relationship_id",
  "valid_start_date",
  "valid_end_date",
  "invalid_reason",
];

/** Real OMOP rows (ids, codes, names), dates in YYYYMMDD; custom concept 2000000001 for the >= 2e9 range. */
export const CONCEPTS: string[][] = [
  [
    "201826",
    "Type 2 diabetes mellitus",
    "Condition",
    "SNOMED",
    "Clinical Finding",
    "S",
    "44054006",
    "20020131",
    "20991231",
    "",
  ],
  [
    "1567956",
    "Type 2 diabetes mellitus without complications",
    "Condition",
    "ICD10CM",
    "4-char billing code",
    "",
    "E11.9",
    "20071001",
    "20991231",
    "",
  ],
  [
    "3004410",
    "Hemoglobin A1c/Hemoglobin.total in Blood",
    "Measurement",
    "LOINC",
    "Lab Test",
    "S",
    "4548-4",
    "19700101",
    "20991231",
    "",
  ],
  ["8507", "MALE", "Gender", "Gender", "Gender", "S", "M", "19700101", "20991231", ""],
  [
    "2000000001",
    "Site-specific diabetes code",
    "Condition",
    "Local",
    "Custom",
    "",
    "DM-2",
    "20200101",
    "20991231",
    "",
  ],
  ["2000000002", "NA", "Observation", "Local", "Custom", "", "NA-1", "20200101", "20991231", ""],
];
export const RELATIONSHIPS: string[][] = [
  ["1567956", "201826", "Maps to", "19700101", "20991231", ""],
  ["201826", "1567956", "Mapped from", "19700101", "20991231", ""],
  ["201826", "201826", "Maps to", "19700101", "20991231", ""],
  ["2000000001", "201826", "Maps to", "20200101", "20991231", ""],
  ["201826", "2000000001", "Mapped from", "20200101", "20991231", ""],
  // deprecated: must not be followed
  ["2000000002", "3004410", "Maps to", "20200101", "20210101", "D"],
  // points outside the index: dropped
  ["201826", "999999999", "Is a", "20020131", "20991231", ""],
];

export function tempDir(prefix = "crossmap-vocab-"): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

const athenaLine = (row: string[]) => row.join("\t");
const isoDate = (v: string) => `${v.slice(0, 4)}-${v.slice(4, 6)}-${v.slice(6)}`;
const csvField = (v: string) => (/[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);

/** Athena form: TAB-separated, YYYYMMDD, unquoted. */
export function writeAthena(dir: string, concepts = CONCEPTS, rels = RELATIONSHIPS): void {
  writeFileSync(join(dir, "CONCEPT.csv"), `${[CONCEPT_HEADER, ...concepts].map(athenaLine).join("\n")}\n`);
  writeFileSync(
    join(dir, "CONCEPT_RELATIONSHIP.csv"),
    `${[REL_HEADER, ...rels].map(athenaLine).join("\n")}\n`,
  );
}

/** The comma form of the Synthea sample: quoted where needed (and "" for empty), ISO dates. */
export function writeCsvIso(dir: string, concepts = CONCEPTS, rels = RELATIONSHIPS): void {
  const line = (dateColumns: number[]) => (row: string[]) =>
    row.map((v, i) => (v === "" ? '""' : csvField(dateColumns.includes(i) ? isoDate(v) : v))).join(",");
  const c = [CONCEPT_HEADER.join(","), ...concepts.map(line([7, 8]))];
  const r = [REL_HEADER.join(","), ...rels.map(line([3, 4]))];
  writeFileSync(join(dir, "CONCEPT.csv"), `${c.join("\n")}\n`);
  writeFileSync(join(dir, "CONCEPT_RELATIONSHIP.csv"), `${r.join("\n")}\n`);
}

/**
 * Whether the installed lmdb binary hands out large values as views into the memory map (its V8 build:
 * Node 20 and 22 with lmdb 3.5.6) or copies them (its plain N-API build: Node 24). Probed, not guessed.
 */
export async function lmdbMapsLargeValues(): Promise<boolean> {
  const t = tempDir("crossmap-lmdb-probe-");
  try {
    const path = join(t.path, "probe.mdb");
    const w = open({ path, noSubdir: true });
    await w.put(1, Buffer.alloc((16 << 20) + 4096));
    await w.close();
    // opened as the bridge opens an index, so that its map leaves lmdb-js nothing the bridge would trip on
    const r = open({ path, ...READ_ONLY_OPTIONS, encoding: "binary" });
    try {
      const value = r.getBinaryFast(1) as Uint8Array | undefined;
      return (value?.buffer as { isSharedMap?: boolean } | undefined)?.isSharedMap === true;
    } finally {
      await r.close();
    }
  } finally {
    t.remove();
  }
}
