// The on-disk layout of a vocabulary index, shared by the builder and the reader so the two cannot drift:
// database names, key shapes and the binary value encodings.
import type { Concept } from "./bridge.js";

/** The LMDB data file inside an index directory (its lock file sits beside it). */
export const DATA_FILE = "vocab.mdb";
export const LAYOUT_VERSION = 1;

/**
 * concepts:  uint32 concept_id -> concept fields (see encodeConcept)
 * codes:     [vocabulary_id, concept_code] -> uint32 concept_id (the preferred one when a code repeats)
 * relations: uint32 concept_id_1 -> every valid relationship of that concept, grouped by relationship_id
 * meta:      "info" -> IndexInfo (msgpack)
 * Integer keys (MDB_INTEGERKEY) are the fastest LMDB lookup and cover every OMOP concept_id, custom
 * concepts >= 2,000,000,000 included; one relations read answers mapConcept for any relationship list.
 */
export const DB = { concepts: "concepts", codes: "codes", relations: "relations", meta: "meta" } as const;

export const MAX_CONCEPT_ID = 0xffff_ffff;

export const isConceptId = (id: unknown): id is number =>
  typeof id === "number" && Number.isInteger(id) && id >= 0 && id <= MAX_CONCEPT_ID;

/** LMDB refuses keys over 511 bytes by default build; lmdb-js allows ~1978. Longer codes are malformed rows. */
export const MAX_CODE_BYTES = 1000;

export interface IndexInfo {
  layout: number;
  built_at: string;
  source_dir: string;
  /** "athena-tab" (TAB, YYYYMMDD) or "csv-iso" (comma, quoted, ISO dates). */
  source_form: string;
  vocabulary_filter: string[] | null;
  files: Record<string, FileCounts>;
  concepts: number;
  codes: number;
  relationships: number;
  /** Relationship ids in the order their numeric index appears in relation values. */
  relationship_ids: string[];
  vocabularies: Record<string, { concepts: number; version: string | null; name: string | null }>;
  build_ms: number;
}

export interface FileCounts {
  rows: number;
  loaded: number;
  malformed: number;
  /** Rows left out on purpose (not an error): invalid relationships, filtered vocabularies, dangling ids. */
  skipped: number;
  duplicates: number;
}

// Concept values are the nine non-key fields joined by U+001F (unit separator): decoding is one UTF-8 slice
// and one split, much cheaper than a generic serializer for nine short strings.
const SEP = "\u001f";

export function encodeConcept(c: Omit<Concept, "concept_id">): Buffer {
  const parts = [
    c.concept_name,
    c.domain_id,
    c.vocabulary_id,
    c.concept_class_id,
    c.standard_concept ?? "",
    c.concept_code,
    c.valid_start_date,
    c.valid_end_date,
    c.invalid_reason ?? "",
  ];
  return Buffer.from(parts.map((p) => (p.includes(SEP) ? p.replaceAll(SEP, " ") : p)).join(SEP));
}

export function decodeConcept(id: number, buf: Buffer): Concept {
  const f = buf.toString("utf8", 0, buf.length).split(SEP);
  return {
    concept_id: id,
    concept_name: f[0]!,
    domain_id: f[1]!,
    vocabulary_id: f[2]!,
    concept_class_id: f[3]!,
    standard_concept: f[4] || null,
    concept_code: f[5]!,
    valid_start_date: f[6]!,
    valid_end_date: f[7]!,
    invalid_reason: f[8] || null,
  };
}

/**
 * Relation values: a sequence of groups, each `u16 relationship index, u32 count, count x u32 concept_id_2`,
 * little-endian. Walking the group headers skips the ids of relationships nobody asked for.
 */
export function forEachRelated(
  buf: Uint8Array,
  wanted: ReadonlySet<number>,
  visit: (conceptId2: number, relIndex: number) => void,
): void {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  // `length`, not `byteLength`: lmdb-js getBinaryFast hands out one shared buffer and sets its length.
  const end = buf.length;
  let at = 0;
  while (at + 6 <= end) {
    const rel = view.getUint16(at, true);
    const count = view.getUint32(at + 2, true);
    at += 6;
    if (wanted.has(rel)) for (let i = 0; i < count; i++) visit(view.getUint32(at + i * 4, true), rel);
    at += count * 4;
  }
}
