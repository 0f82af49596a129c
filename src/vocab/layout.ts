// The on-disk layout of a vocabulary index, shared by the builder and the reader so the two cannot drift:
// database names, key shapes and the binary value encodings.
import { AppError } from "../errors.js";
import type { Concept } from "./bridge.js";

/** The LMDB data file inside an index directory (its lock file sits beside it). */
export const DATA_FILE = "vocab.mdb";
export const LAYOUT_VERSION = 4;

/**
 * An index is one LMDB file with two databases:
 * meta:  "info" -> IndexInfo (msgpack), which also says how many slabs each area has
 * slabs: uint32 area * 65536 + n -> the n-th slab of an area: a large binary value
 *
 * Point lookups do not descend a B-tree. At 5M concepts one B-tree read costs 1.4-1.9 us, almost all of
 * it memory stalls on the ~10 dependent cache lines of a leaf's binary search; a hash slot costs one or
 * two. So the areas are laid out for direct addressing, as whole LMDB values that lmdb-js hands out as
 * views into the memory map (values of 16 MB or more; smaller ones are copied once, at open):
 *
 * concepts:  concept records in concept_id order: u32 concept_id, u32 byte length, the UTF-8 of
 *            encodeConcept, padded to a 4-byte boundary
 * relations: one list per concept_id_1 with valid relationships, in concept_id_1 order: u32 word count,
 *            then groups `u32 relationship index, u32 count, count x concept ref of concept_id_2`,
 *            ascending: an answer is read without a slot lookup
 * ids:       hash table concept_id -> slot [concept_id, concept ref, relations ref] (ID_SLOT words)
 * codes:     hash table code key (vocabulary_id, concept_code) -> slot [code key, concept ref] for every
 *            concept, preferred concepts first along a probe sequence (see build.ts); the reader confirms
 *            vocabulary and code on the record, so hash collisions are harmless
 * and for the concept search (search-build.ts, search.ts), over "rows", the concepts in concept_id order:
 * terms:     the distinct tokens of names and synonyms, in string order: records `u32 postings ref,
 *            u32 postings count, u32 first-token start, u32 first-token count, u32 byte length`, then
 *            the UTF-8, padded
 * termIndex: a column: token number (string order) -> its terms record ref, for binary search
 * postings:  per token, the concepts whose name or a synonym has it, as `rank << 30 | row` ascending,
 *            so a list reads in preference order (rank: athena-rows.codeRank), then concept_id
 * first:     a column of pairs `row, sort key`: the rows of named concepts ordered by their name's first
 *            token number, then sort key, then row; a token's rows are its terms record's first-token
 *            range, and a range of tokens (a prefix) is one contiguous run
 * columns:   per row five words: the token numbers of the name's first and second tokens (NO_TOKEN:
 *            none), vocabulary and domain numbers (u16 each; the lists are in SearchInfo), the concept
 *            ref, and the sort key `rank << 8 | folded name length (at most 255)`
 * The columns are cut into slabs of 2^shift entries (SearchInfo), so an entry is found with a shift.
 *
 * Words are little-endian u32s (the build and the reader refuse a big-endian host). A ref addresses a
 * record as `slab * 2^24 + word + 1` (0: none), so a slab holds at most 64 MB of records (a single larger
 * record gets a slab of its own) and an area at most 255 slabs.
 */
export const DB = { slabs: "slabs", meta: "meta" } as const;

export const AREA = {
  concepts: 0,
  relations: 1,
  ids: 2,
  codes: 3,
  terms: 4,
  termIndex: 5,
  postings: 6,
  first: 7,
  columns: 8,
} as const;
export type AreaName = keyof typeof AREA;
export const slabKey = (area: number, n: number): number => area * 65536 + n;

export const SLAB_WORDS = 1 << 24;
export const MAX_SLABS = 255;
export const makeRef = (slab: number, word: number): number => slab * SLAB_WORDS + word + 1;
export const refSlab = (ref: number): number => (ref - 1) >>> 24;
export const refWord = (ref: number): number => (ref - 1) & (SLAB_WORDS - 1);

export const ID_SLOT = 3;
export const CODE_SLOT = 2;
/** Words per row in the search columns: first and second token, facets, concept ref, sort key. */
export const COLUMN_WIDTH = 5;
export const NO_TOKEN = 0xffff_ffff;
/** A posting is `rank << 30 | row`: an index holds at most 2^30 concepts. */
export const ROW_BITS = 30;
export const ROW_MASK = 2 ** ROW_BITS - 1;

/** Slab counts per area, in IndexInfo. */
export type SlabCounts = Record<AreaName, number>;

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Slabs are written and read as host-endian Uint32Arrays: both the build and the reader refuse other hosts. */
export function requireLittleEndian(): void {
  if (!LITTLE_ENDIAN) {
    throw new AppError(500, "vocab_big_endian", "vocabulary indexes are little-endian; this host is not");
  }
}

export const MAX_CONCEPT_ID = 0xffff_ffff;

export const isConceptId = (id: unknown): id is number =>
  typeof id === "number" && Number.isInteger(id) && id >= 0 && id <= MAX_CONCEPT_ID;

/** Longer concept codes are malformed rows: no vocabulary has them, and a bound keeps runs and keys sane. */
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
  relationships: number;
  /** Relationship ids in the order their numeric index appears in relation values. */
  relationship_ids: string[];
  vocabularies: Record<string, { concepts: number; version: string | null; name: string | null }>;
  /**
   * The vocabulary release: VOCABULARY.csv's vocabulary_version of the "None" row, which Athena fills
   * with the release of the whole download (e.g. "v5.0 30-AUG-24"); null when the files do not say.
   * Absent in indexes built before it was kept.
   */
  release?: string | null;
  build_ms: number;
  slabs: SlabCounts;
  /** Absent when the build left the search index out (BuildOptions.search). */
  search?: SearchInfo;
}

/** What the concept search needs besides its slabs (see the layout above). */
export interface SearchInfo {
  /** Distinct tokens, and postings over all of them. */
  tokens: number;
  postings: number;
  /** Rows in the first-token column (concepts with a name). */
  named: number;
  /** log2 of the entries per slab of the term index, the first-token column and the columns. */
  term_shift: number;
  first_shift: number;
  column_shift: number;
  /** The vocabulary and domain ids that the columns number. */
  vocabularies: string[];
  domains: string[];
  /**
   * Per (vocabulary, domain) pair held by some row: `[vocabulary | domain << 16, rows, standard rows]`.
   * A query whose filters no pair passes answers at once instead of reading lists (absent in indexes
   * built before it: such queries read as before).
   */
  facet_rows?: [number, number, number][];
}

export interface FileCounts {
  rows: number;
  loaded: number;
  malformed: number;
  /** Rows left out on purpose (not an error): invalid relationships, filtered vocabularies, dangling ids. */
  skipped: number;
  duplicates: number;
  /**
   * CONCEPT_RELATIONSHIP.csv: rows (among `skipped`) left out because concept_id_1 or concept_id_2 is not
   * in the index: not in CONCEPT.csv, or outside `--vocabularies`. Absent in indexes built before.
   */
  missing_concept?: number;
}

// Concept values are the nine non-key fields joined by U+001F (unit separator): decoding is one UTF-8 slice
// and one split, much cheaper than a generic serializer for nine short strings.
const SEP = "\u001f";

export function encodeConcept(c: Omit<Concept, "concept_id">): string {
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
  return parts.map((p) => (p.includes(SEP) ? p.replaceAll(SEP, " ") : p)).join(SEP);
}

/**
 * The concept encoded in `buf[start, end)`. indexOf + slice, not split: no array, and half the time of a
 * split per concept (measured 0.16 vs 0.30 us), a good part of a lookup once its slot is read.
 */
export function decodeConcept(id: number, buf: Buffer, start = 0, end = buf.length): Concept {
  const s = buf.toString("utf8", start, end);
  let a = 0;
  let b = s.indexOf(SEP);
  const concept_name = s.slice(a, b);
  a = b + 1;
  b = s.indexOf(SEP, a);
  const domain_id = s.slice(a, b);
  a = b + 1;
  b = s.indexOf(SEP, a);
  const vocabulary_id = s.slice(a, b);
  a = b + 1;
  b = s.indexOf(SEP, a);
  const concept_class_id = s.slice(a, b);
  a = b + 1;
  b = s.indexOf(SEP, a);
  const standard_concept = s.slice(a, b);
  a = b + 1;
  b = s.indexOf(SEP, a);
  const concept_code = s.slice(a, b);
  a = b + 1;
  b = s.indexOf(SEP, a);
  const valid_start_date = s.slice(a, b);
  a = b + 1;
  b = s.indexOf(SEP, a);
  const valid_end_date = s.slice(a, b);
  const invalid_reason = s.slice(b + 1);
  return {
    concept_id: id,
    concept_name,
    domain_id,
    vocabulary_id,
    concept_class_id,
    standard_concept: standard_concept || null,
    concept_code,
    valid_start_date,
    valid_end_date,
    invalid_reason: invalid_reason || null,
  };
}

/** FNV-1a over the UTF-16 units of `vocabulary_id NUL concept_code` (codeKey mixes it for the table). */
export function codeHash(vocabularyId: string, code: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < vocabularyId.length; i++) h = Math.imul(h ^ vocabularyId.charCodeAt(i), 0x01000193);
  h = Math.imul(h, 0x01000193); // the NUL separator
  for (let i = 0; i < code.length; i++) h = Math.imul(h ^ code.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** murmur3's 32-bit finaliser: spreads ids and FNV hashes over every bit, which the tables index by. */
export function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** The codes table key of a vocabulary and code. */
export const codeKey = (vocabularyId: string, code: string): number => mix32(codeHash(vocabularyId, code));

/** The vocabulary_id of an encoded concept, without building the whole Concept. */
export function vocabularyOf(s: string): string {
  const a = s.indexOf(SEP, s.indexOf(SEP) + 1);
  return s.slice(a + 1, s.indexOf(SEP, a + 1));
}

/**
 * The relations list at `words[at]` (see the layout above): calls `visit` with the concept ref of every
 * concept_id_2 of the groups in `wanted` (all groups when null), group by group. Group headers let it skip
 * the refs of groups nobody asked for.
 */
export function forEachRelation(
  words: Uint32Array,
  at: number,
  wanted: ReadonlySet<number> | null,
  visit: (ref: number, group: number) => void,
): void {
  const end = at + 1 + words[at]!;
  at++;
  while (at < end) {
    const group = words[at]!;
    const count = words[at + 1]!;
    at += 2;
    if (!wanted || wanted.has(group)) for (let i = 0; i < count; i++) visit(words[at + i]!, group);
    at += count;
  }
}
