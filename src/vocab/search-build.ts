// Builds the concept search areas of an index (layout.ts): the tokens of every kept concept's name and
// synonyms, one posting list per token in preference order, the named rows by first token, and the
// per-row columns a query reads. Rows are the kept concepts in concept_id order: every pass is sequential.
import { AppError } from "../errors.js";
import { detectForm, readTable } from "./athena-files.js";
import { indexColumns, RowFault, readSynonymRow, SYNONYM_COLUMNS } from "./athena-rows.js";
import type { IdSet } from "./id-set.js";
import {
  AREA,
  COLUMN_WIDTH,
  type FileCounts,
  NO_TOKEN,
  ROW_BITS,
  ROW_MASK,
  type SearchInfo,
  SLAB_WORDS,
} from "./layout.js";
import { resized } from "./resized.js";
import { TokenTable } from "./search-tokens.js";
import { COPY_MAX_BYTES, MAPPED_MIN_BYTES, SlabWriter } from "./slabs.js";

const SEP = "\u001f";
const MAX_FACETS = 0xffff;

export type PutSlab = (area: number) => (n: number, value: Buffer | Uint32Array) => void;

export interface SearchSlabs {
  terms: number;
  termIndex: number;
  postings: number;
  first: number;
  columns: number;
}

export class SearchBuilder {
  private tokens = new TokenTable();
  private rows = 0;
  /** Row r's name tokens are occ[occStart[r] .. occStart[r + 1]), without repeats. */
  private occStart = new Uint32Array(0);
  private occ = new Uint32Array(1 << 16);
  private occCount = 0;
  private firstToken = new Uint32Array(0);
  private secondToken = new Uint32Array(0);
  private nameLength = new Uint8Array(0);
  private facets = new Uint32Array(0);
  private readonly vocabularies = new Facet("vocabularies");
  private readonly domains = new Facet("domains");
  /** (row, token) pairs of synonyms, in file order. */
  private synRows = new Uint32Array(1024);
  private synTokens = new Uint32Array(1024);
  private synCount = 0;
  private readonly scratch = new Uint32Array(512);

  /** `rows`: how many concepts will be added (an upper bound), so the per-row columns are made once. */
  constructor(rows = 1024) {
    this.growRows(Math.max(1024, rows + 1));
  }

  /** The next kept row (concept_id order), from its layout.encodeConcept value. */
  addConcept(encoded: string): void {
    const row = this.rows++;
    if (this.rows >= this.facets.length) this.growRows(this.facets.length * 2);
    const a = encoded.indexOf(SEP);
    const b = encoded.indexOf(SEP, a + 1);
    const c = encoded.indexOf(SEP, b + 1);
    this.facets[row] =
      (this.vocabularies.number(encoded, b + 1, c) | (this.domains.number(encoded, a + 1, b) << 16)) >>> 0;
    // "" and R's "NA" are no names: such a concept is found by id, code or synonym only.
    const named = a > 0 && !(a === 2 && encoded.startsWith("NA"));
    const n = named ? this.tokens.tokenize(encoded, this.scratch, a) : 0;
    this.firstToken[row] = n > 0 ? this.scratch[0]! : NO_TOKEN;
    this.secondToken[row] = n > 0 && this.tokens.second >= 0 ? this.tokens.second : NO_TOKEN;
    this.nameLength[row] = n > 0 ? Math.min(this.tokens.foldedLength, 255) : 255;
    if (this.occCount + n > this.occ.length) this.occ = resized(this.occ, (this.occCount + n) * 2);
    for (let k = 0; k < n; k++) this.occ[this.occCount++] = this.scratch[k]!;
    this.occStart[row + 1] = this.occCount;
  }

  private growRows(size: number): void {
    this.occStart = resized(this.occStart, size + 1);
    this.firstToken = resized(this.firstToken, size);
    this.secondToken = resized(this.secondToken, size);
    this.nameLength = resized(this.nameLength, size);
    this.facets = resized(this.facets, size);
  }

  /** Reads CONCEPT_SYNONYM.csv; synonyms of concepts outside the index (or empty ones) are skipped. */
  async readSynonyms(
    file: string,
    keptIds: IdSet,
    report: (file: string, line: number, fault: RowFault) => void,
    progress?: (bytesRead: number, totalBytes: number) => void,
  ): Promise<FileCounts> {
    const counts: FileCounts = { rows: 0, loaded: 0, malformed: 0, skipped: 0, duplicates: 0 };
    let faults = 0;
    const fault = (line: number, f: RowFault) => {
      faults++;
      report(file, line, f);
    };
    counts.rows = await readTable(file, detectForm(file), {
      header: (columns) => {
        const col = indexColumns(file, columns, SYNONYM_COLUMNS);
        return (fields, line) => {
          const s = readSynonymRow(fields, col);
          if (s instanceof RowFault) return fault(line, s);
          const row = keptIds.indexOf(s.conceptId);
          const n = row < 0 ? 0 : this.tokens.tokenize(s.name, this.scratch);
          if (n === 0) {
            counts.skipped++;
            return;
          }
          counts.loaded++;
          if (this.synCount + n > this.synRows.length) {
            const size = (this.synCount + n) * 2;
            this.synRows = resized(this.synRows, size);
            this.synTokens = resized(this.synTokens, size);
          }
          for (let k = 0; k < n; k++) {
            this.synRows[this.synCount] = row;
            this.synTokens[this.synCount++] = this.scratch[k]!;
          }
        };
      },
      parseError: (line, message) => fault(line, new RowFault(undefined, message)),
      ...(progress ? { progress } : {}),
    });
    counts.malformed = faults;
    return counts;
  }

  /**
   * Writes the search areas. `conceptRefs` and `ranks` are the kept concepts' record refs and preference
   * ranks, by row. Returns the slab counts and the SearchInfo for the index metadata.
   */
  write(
    conceptRefs: Uint32Array,
    ranks: Uint8Array,
    put: PutSlab,
    slabBytes = SLAB_WORDS * 4,
  ): { slabs: SearchSlabs; info: SearchInfo } {
    const rows = this.rows;
    if (rows > ROW_MASK) {
      throw new AppError(422, "vocab_too_large", `the concept search holds at most ${ROW_MASK + 1} concepts`);
    }
    const texts = this.tokens.texts();
    const tokenCount = texts.length;
    this.tokens = new TokenTable();
    // Token numbers in string order: what a query's binary search over the terms relies on.
    const byText = Array.from(texts.keys()).sort((x, y) => (texts[x]! < texts[y]! ? -1 : 1));
    const sorted = Uint32Array.from(byText);
    const numberOf = new Uint32Array(tokenCount);
    for (let s = 0; s < tokenCount; s++) numberOf[sorted[s]!] = s;

    const { synStart, synTokens } = this.synonymsByRow();
    const { occStart, occ } = this;
    // Token ids become token numbers in place, and a synonym token the row already has becomes NO_TOKEN,
    // so that each fill pass below is a plain scan (at full size the postings take three passes).
    // counts[s * 4 + rank]: a list is laid out rank by rank.
    const lastRow = new Int32Array(tokenCount).fill(-1);
    const counts = new Uint32Array(tokenCount * 4);
    const facetRows = new FacetRows();
    for (let r = 0; r < rows; r++) {
      const rank = ranks[r]!;
      facetRows.add(this.facets[r]!, rank === 0);
      for (let k = occStart[r]!; k < occStart[r + 1]!; k++) {
        const s = numberOf[occ[k]!]!;
        occ[k] = s;
        lastRow[s] = r;
        counts[s * 4 + rank]!++;
      }
      for (let k = synStart[r]!; k < synStart[r + 1]!; k++) {
        const s = numberOf[synTokens[k]!]!;
        if (lastRow[s] === r) synTokens[k] = NO_TOKEN;
        else {
          synTokens[k] = s;
          lastRow[s] = r;
          counts[s * 4 + rank]!++;
        }
      }
    }
    const total = (s: number) =>
      counts[s * 4]! + counts[s * 4 + 1]! + counts[s * 4 + 2]! + counts[s * 4 + 3]!;

    // Postings: runs of whole lists in string order, each filled in place in one pass over the rows.
    // One slab buffer for every search area, written one after another (each put is synchronous): at full
    // size a buffer per area and per column slab held 300 MB more at the peak.
    const slabBuffer = Buffer.allocUnsafe(Math.max(4, Math.min(SLAB_WORDS, slabBytes >>> 2)) * 4);
    const postingsWriter = new SlabWriter("search postings", put(AREA.postings), slabBytes, slabBuffer);
    const postingRefs = new Uint32Array(tokenCount);
    const cursor = new Uint32Array(tokenCount * 4);
    let postings = 0;
    for (let lo = 0; lo < tokenCount; ) {
      let hi = lo;
      let words = 0;
      while (hi < tokenCount && (hi === lo || words + total(hi) <= postingsWriter.capacity)) {
        words += total(hi);
        hi++;
      }
      const run = postingsWriter.reserve(words);
      let at = run.at;
      for (let s = lo; s < hi; s++) {
        postingRefs[s] = run.ref + (at - run.at);
        for (let rank = 0; rank < 4; rank++) {
          cursor[s * 4 + rank] = at;
          at += counts[s * 4 + rank]!;
        }
      }
      const target = run.words;
      for (let r = 0; r < rows; r++) {
        const rank = ranks[r]!;
        const posting = rank * 2 ** ROW_BITS + r;
        for (let k = occStart[r]!; k < occStart[r + 1]!; k++) {
          const s = occ[k]!;
          if (s >= lo && s < hi) target[cursor[s * 4 + rank]!++] = posting;
        }
        for (let k = synStart[r]!; k < synStart[r + 1]!; k++) {
          const s = synTokens[k]!; // NO_TOKEN is never below hi
          if (s >= lo && s < hi) target[cursor[s * 4 + rank]!++] = posting;
        }
      }
      postings += words;
      lo = hi;
    }
    const postingSlabs = postingsWriter.finish();
    this.occ = new Uint32Array(0);
    this.occStart = new Uint32Array(0);

    // Named rows by first token number, then sort key, then row: two stable counting sorts.
    const keyOf = (r: number) => (ranks[r]! << 8) | this.nameLength[r]!;
    const firstOf = (r: number) =>
      this.firstToken[r] === NO_TOKEN ? NO_TOKEN : numberOf[this.firstToken[r]!]!;
    const byKey = countingSort(rows, 1024, keyOf);
    const firstStart = new Uint32Array(tokenCount + 1);
    let named = 0;
    for (let r = 0; r < rows; r++) {
      const f = firstOf(r);
      if (f !== NO_TOKEN) {
        firstStart[f + 1]!++;
        named++;
      }
    }
    for (let s = 0; s < tokenCount; s++) firstStart[s + 1]! += firstStart[s]!;
    const firstRows = new Uint32Array(named);
    const next = firstStart.slice(0, tokenCount);
    for (const r of byKey) {
      const f = firstOf(r);
      if (f !== NO_TOKEN) firstRows[next[f]!++] = r;
    }
    const first = writeColumn(named, 2, slabBuffer, put(AREA.first), (i, words, at) => {
      const r = firstRows[i]!;
      words[at] = r;
      words[at + 1] = keyOf(r);
    });

    const termsWriter = new SlabWriter("search terms", put(AREA.terms), slabBytes, slabBuffer);
    const termRefs = new Uint32Array(tokenCount);
    for (let s = 0; s < tokenCount; s++) {
      termRefs[s] = termsWriter.addString(
        [postingRefs[s]!, total(s), firstStart[s]!, firstStart[s + 1]! - firstStart[s]!],
        texts[sorted[s]!]!,
      );
    }
    const termSlabs = termsWriter.finish();
    const termIndex = writeColumn(tokenCount, 1, slabBuffer, put(AREA.termIndex), (s, words, at) => {
      words[at] = termRefs[s]!;
    });
    const columns = writeColumn(rows, COLUMN_WIDTH, slabBuffer, put(AREA.columns), (r, words, at) => {
      const second = this.secondToken[r]!;
      words[at] = firstOf(r);
      words[at + 1] = second === NO_TOKEN ? NO_TOKEN : numberOf[second]!;
      words[at + 2] = this.facets[r]!;
      words[at + 3] = conceptRefs[r]!;
      words[at + 4] = keyOf(r);
    });
    return {
      slabs: {
        terms: termSlabs,
        termIndex: termIndex.slabs,
        postings: postingSlabs,
        first: first.slabs,
        columns: columns.slabs,
      },
      info: {
        tokens: tokenCount,
        postings,
        named,
        term_shift: termIndex.shift,
        first_shift: first.shift,
        column_shift: columns.shift,
        vocabularies: this.vocabularies.ids,
        domains: this.domains.ids,
        facet_rows: facetRows.list(),
      },
    };
  }

  /** Synonym tokens grouped by row (a counting sort of the pairs): row r's are [synStart[r], synStart[r + 1]). */
  private synonymsByRow(): { synStart: Uint32Array; synTokens: Uint32Array } {
    const synStart = new Uint32Array(this.rows + 1);
    for (let k = 0; k < this.synCount; k++) synStart[this.synRows[k]! + 1]!++;
    for (let r = 0; r < this.rows; r++) synStart[r + 1]! += synStart[r]!;
    const synTokens = new Uint32Array(this.synCount);
    const next = synStart.slice(0, this.rows);
    for (let k = 0; k < this.synCount; k++) synTokens[next[this.synRows[k]!]!++] = this.synTokens[k]!;
    this.synRows = new Uint32Array(0);
    this.synTokens = new Uint32Array(0);
    return { synStart, synTokens };
  }
}

/** Rows and standard rows per (vocabulary, domain) pair; rows in id order mostly repeat the last pair. */
class FacetRows {
  private readonly counts = new Map<number, [number, number, number]>();
  private last: [number, number, number] | undefined;

  add(facets: number, standard: boolean): void {
    let last = this.last;
    if (last?.[0] !== facets) {
      last = this.counts.get(facets);
      if (!last) {
        last = [facets, 0, 0];
        this.counts.set(facets, last);
      }
      this.last = last;
    }
    last[1]++;
    if (standard) last[2]++;
  }

  list(): [number, number, number][] {
    return [...this.counts.values()].sort((a, b) => a[0] - b[0]);
  }
}

/** Numbers the values of a field (vocabulary_id, domain_id) for the columns, which hold them in 16 bits. */
class Facet {
  readonly ids: string[] = [];
  private readonly numbers = new Map<string, number>();
  private last = "";
  private lastNumber = -1;

  constructor(private readonly what: string) {}

  /** The number of encoded[start, end). Rows in id order mostly repeat the last value: no slice then. */
  number(encoded: string, start: number, end: number): number {
    if (this.lastNumber >= 0 && end - start === this.last.length && encoded.startsWith(this.last, start)) {
      return this.lastNumber;
    }
    const value = encoded.slice(start, end);
    let n = this.numbers.get(value);
    if (n === undefined) {
      n = this.ids.length;
      if (n >= MAX_FACETS) {
        throw new AppError(422, "vocab_too_large", `the vocabulary has more than ${MAX_FACETS} ${this.what}`);
      }
      this.numbers.set(value, n);
      this.ids.push(value);
    }
    this.last = value;
    this.lastNumber = n;
    return n;
  }
}

/** 0 .. n-1 ordered by `key` (0 .. buckets-1), stably. */
function countingSort(n: number, buckets: number, key: (i: number) => number): Uint32Array {
  const starts = new Uint32Array(buckets + 1);
  for (let i = 0; i < n; i++) starts[key(i) + 1]!++;
  for (let b = 0; b < buckets; b++) starts[b + 1]! += starts[b]!;
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[starts[key(i)]!++] = i;
  return out;
}

/**
 * A column of `entries` entries of `width` words, in slabs of 2^shift entries so a reader finds entry i
 * in slab i >>> shift, each written in `buffer` (slab-sized) and put before the next. Slabs get the
 * padding SlabWriter gives (slabs.ts), so none is copied at open unless it is small.
 */
function writeColumn(
  entries: number,
  width: number,
  buffer: Buffer,
  put: (n: number, value: Uint32Array) => void,
  fill: (i: number, words: Uint32Array, at: number) => void,
): { shift: number; slabs: number } {
  const slabWords = buffer.length >>> 2;
  const shift = 31 - Math.clz32(Math.floor(slabWords / width));
  const perSlab = 2 ** shift;
  const slabs = Math.max(1, Math.ceil(entries / perSlab));
  // As SlabWriter pads: only when slabs are of the full mapped size (tests make them tiny).
  const padded = slabWords * 4 >= MAPPED_MIN_BYTES;
  for (let n = 0; n < slabs; n++) {
    const first = n * perSlab;
    const count = Math.min(perSlab, entries - first);
    let bytes = count * width * 4;
    if (padded && (slabs > 1 || bytes >= COPY_MAX_BYTES) && bytes < MAPPED_MIN_BYTES)
      bytes = MAPPED_MIN_BYTES;
    const words = new Uint32Array(buffer.buffer, buffer.byteOffset, Math.max(width, Math.ceil(bytes / 4)));
    words.fill(0, count * width);
    for (let i = 0; i < count; i++) fill(first + i, words, i * width);
    put(n, words);
  }
  return { shift, slabs };
}
