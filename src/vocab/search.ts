// Concept search over an index's search areas (layout.ts, built by search-build.ts): ranked concepts for a
// text. First the concept whose id or code it is; then concepts whose name starts with it (shortest name
// first); then concepts whose name or a synonym holds every word of it, the last word as a prefix. Within
// each, standard concepts first. Posting lists are in that preference order, so a query reads only as
// far as it needs: the work depends on how many concepts it returns and counts, not on how many match.
import { codeRank } from "./athena-rows.js";
import type { Concept } from "./bridge.js";
import { COLUMN_WIDTH, ROW_BITS, ROW_MASK, refSlab, refWord, type SearchInfo } from "./layout.js";
import { foldText, tokensOf } from "./search-text.js";
import type { Slab } from "./slabs.js";

export interface SearchOptions {
  /** Only concepts of these vocabulary_ids. */
  vocabularies?: readonly string[];
  /** Only concepts of these domain_ids. */
  domains?: readonly string[];
  /** Only standard, valid concepts (standard_concept "S"). */
  standard?: boolean;
  /** At most this many concepts (default 20, at most MAX_LIMIT). */
  limit?: number;
}

/** How a concept matched: its id, its code, the start of its name, or every word of the text. */
export type SearchMatch = "id" | "code" | "name" | "words";

export type FoundConcept = Concept & { match: SearchMatch };

export interface SearchResult {
  concepts: FoundConcept[];
  /** How many concepts match: exact ("eq"), or a lower bound ("gte") once searchTuning.totalCap are counted. */
  total: number;
  total_relation: "eq" | "gte";
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/**
 * How the search trades work for exactness; tests change it to reach every path with small indexes.
 * totalCap: counting stops here ("10,000 or more" is all a reviewer needs to know of a broad query).
 * readCap: once its page is complete, a query counts further matches only while it has read at most
 * this many postings of its rarest word; past it, `total` is a lower bound. The page itself is always
 * complete: the cap bounds the counting, never the concepts returned.
 * merge: how a prefix's lists are read in order, "auto" choosing by their size (see postings()).
 */
export const searchTuning: { totalCap: number; readCap: number; merge: "auto" | "heap" | "bitmap" } = {
  totalCap: 10_000,
  readCap: 40_000,
  merge: "auto",
};
/** Words of a query beyond these are ignored. */
export const MAX_QUERY_TOKENS = 16;
/**
 * A query of several words checks a name's start by reading the name: at most this many per query. Past
 * it, further names that start with the text rank with the other word matches.
 */
const MAX_NAME_CHECKS = 2000;
const RANK_UNIT = 2 ** ROW_BITS;
/** A prefix of at least this many tokens merges its lists through a bitmap (see postings()). */
const MANY_LISTS = 256;

/** What the search reads from the rest of the index (lmdb-bridge.ts). */
export interface ConceptSource {
  conceptAt(ref: number): Concept;
  /** The record ref of a concept id, or 0. */
  idRef(id: number): number;
  /** The record ref of the preferred concept with this vocabulary and code, or 0. */
  codeRef(vocabularyId: string, code: string): number;
  /** The vocabulary ids in the index. */
  vocabularyIds: readonly string[];
}

export interface SearchSlabs {
  terms: Slab[];
  termIndex: Slab[];
  postings: Slab[];
  first: Slab[];
  columns: Slab[];
}

/** A query word: the posting lists of one token, or of every token with a prefix. */
interface Term {
  words: Uint32Array[];
  starts: number[];
  counts: number[];
  total: number;
  /** Per token: its rows in the first-token column (ordered by sort key). */
  firstStarts: number[];
  firstCounts: number[];
}

type Accepts = (facets: number, key: number) => boolean;

/** The best `limit` candidates by a numeric sort key (ties: first come first). */
class Best {
  readonly keys: number[] = [];
  readonly refs: number[] = [];
  constructor(readonly limit: number) {}

  get full(): boolean {
    return this.keys.length >= this.limit;
  }

  wants(key: number): boolean {
    return this.keys.length < this.limit || key < this.keys[this.keys.length - 1]!;
  }

  add(key: number, ref: number): void {
    let at = this.keys.length;
    while (at > 0 && this.keys[at - 1]! > key) at--;
    this.keys.splice(at, 0, key);
    this.refs.splice(at, 0, ref);
    if (this.keys.length > this.limit) {
      this.keys.pop();
      this.refs.pop();
    }
  }
}

export class ConceptSearch {
  private readonly rows: number;
  private bitmap: Uint32Array | undefined;
  private rankBitmaps: Uint32Array | undefined;

  constructor(
    private readonly slabs: SearchSlabs,
    private readonly info: SearchInfo,
    rows: number,
    private readonly source: ConceptSource,
  ) {
    this.rows = rows;
  }

  search(text: string, options: SearchOptions = {}): SearchResult {
    const limit = Math.max(1, Math.min(MAX_LIMIT, Math.floor(options.limit ?? DEFAULT_LIMIT)));
    const query = text.trim();
    if (query === "" || this.slabs.columns.length === 0)
      return { concepts: [], total: 0, total_relation: "eq" };
    const { accepts, none, standardOnly } = this.filter(options);
    const exact = this.exactMatches(query, accepts);
    const exactRefs = exact.map((e) => e.ref);
    const found: FoundConcept[] = exact.map((e) => ({ ...e.concept, match: e.match }));
    const done = (total: number, relation: "eq" | "gte"): SearchResult => ({
      concepts: found.slice(0, limit),
      total,
      total_relation: relation,
    });

    const tokens = tokensOf(foldText(query)).slice(0, MAX_QUERY_TOKENS);
    // Filters that no concept passes (standard concepts of a vocabulary that has none): nothing to read.
    if (tokens.length === 0 || none) return done(exact.length, "eq");
    // Every word but the last must be a token of the index; the last is a prefix of some.
    const numbers = new Map<string, number>();
    for (const token of tokens.slice(0, -1)) {
      const s = this.lowerBound(token);
      if (s >= this.info.tokens || this.termText(s) !== token) return done(exact.length, "eq");
      numbers.set(token, s);
    }
    const last = tokens[tokens.length - 1]!;
    const prefixLo = this.lowerBound(last);
    const prefixHi = this.lowerBound(`${last}\uffff`);
    if (prefixLo === prefixHi) return done(exact.length, "eq");
    // Lists and first-token rows are in rank order, standard first: standard-only reads their heads only.
    const prefix = this.term(prefixLo, prefixHi, standardOnly);
    const terms = [...[...numbers.values()].map((s) => this.term(s, s + 1, standardOnly)), prefix];
    const { columns } = this.slabs;
    const shift = this.info.column_shift;
    const mask = 2 ** shift - 1;

    // Is this row's name a start of the text? Its first token is the first word (one word: in the prefix
    // range), its second the second word (two words: in the prefix range), and past two words the name is
    // read (at most MAX_NAME_CHECKS times).
    const firstWord = tokens.length > 1 ? numbers.get(tokens[0]!)! : -1;
    const secondWord = tokens.length > 2 ? numbers.get(tokens[1]!)! : -1;
    let nameChecks = 0;
    const inPrefix = (t: number) => t >= prefixLo && t < prefixHi;
    const startsName = (first: number, second: number, ref: number): boolean => {
      if (tokens.length === 1) return inPrefix(first);
      if (first !== firstWord) return false;
      if (tokens.length === 2) return inPrefix(second);
      if (second !== secondWord || nameChecks >= MAX_NAME_CHECKS) return false;
      nameChecks++;
      return this.nameStartsWith(ref, tokens);
    };

    // Names that start with the text, from the first-token column: per first token, rows by sort key, so
    // each token's rows are read only while they could still make the best `limit`.
    const { totalCap, readCap } = searchTuning;
    let names = new Best(limit);
    const lead = tokens.length === 1 ? prefix : terms[0]!;
    const driver = terms.reduce((a, b) => (b.total < a.total ? b : a));
    // A name that starts with the words holds all of them, so it is also found among the matches below,
    // read in preference order until the best `limit` names can no longer change. That is the way when
    // the rarest word has fewer postings than the first word has names, and either its matches are all
    // read anyway (at most totalCap) or the text has three words or more (names that start with three
    // given words are few: the first word's names would be read to the end). For two words, the first
    // word's names are read for at most as many rows as the rarest word has postings, then the matches.
    let namesAmongMatches =
      tokens.length > 1 &&
      driver.total < lead.firstCounts[0]! &&
      (driver.total <= totalCap || tokens.length > 2);
    const budget = tokens.length > 1 ? driver.total : Number.POSITIVE_INFINITY;
    let scanned = 0;
    const firstSlabs = this.slabs.first;
    const firstShift = this.info.first_shift;
    const firstMask = 2 ** firstShift - 1;
    scan: for (let k = 0; k < lead.firstStarts.length && !namesAmongMatches; k++) {
      for (let i = lead.firstStarts[k]!, end = i + lead.firstCounts[k]!; i < end; i++) {
        const fw = firstSlabs[i >>> firstShift]!.words;
        const fa = (i & firstMask) * 2;
        const row = fw[fa]!;
        const key = fw[fa + 1]!;
        const sortKey = key * RANK_UNIT + row;
        if (!names.wants(sortKey)) break;
        if (++scanned > budget) {
          namesAmongMatches = true;
          names = new Best(limit);
          nameChecks = 0;
          break scan;
        }
        const cw = columns[row >>> shift]!.words;
        const ca = (row & mask) * COLUMN_WIDTH;
        if (!accepts(cw[ca + 2]!, key)) continue;
        const ref = cw[ca + 3]!;
        if (exactRefs.includes(ref) || !startsName(cw[ca]!, cw[ca + 1]!, ref)) continue;
        names.add(sortKey, ref);
      }
    }

    // Every word matches: the postings of the word with the fewest, in preference order, each checked
    // against the other words. This also counts the matches (names included): once the page is complete,
    // up to searchTuning.totalCap matches or searchTuning.readCap postings read, whichever comes first.
    const asks = namesAmongMatches ? driver.total : Math.min(driver.total, readCap);
    const others = terms.filter((t) => t !== driver).map((t) => this.membership(t, asks));
    const wanted = namesAmongMatches ? limit : limit - exact.length - names.refs.length;
    const words: number[] = [];
    let total = 0;
    let read = 0;
    let namesDone = !namesAmongMatches;
    let exhausted = true;
    const postings = this.postings(driver);
    for (let v = postings(); v >= 0; v = postings()) {
      // Later postings have this rank or a worse one: no name among them beats a full set of this rank's.
      if (!namesDone && names.full && !names.wants(Math.floor(v / RANK_UNIT) * 256 * RANK_UNIT)) {
        namesDone = true;
      }
      // Once the names are known, only the words that fill the rest of the page are still wanted.
      const more = namesAmongMatches ? limit - exact.length - names.refs.length : wanted;
      if (namesDone && words.length >= more && (total >= totalCap || read >= readCap)) {
        exhausted = false;
        break;
      }
      read++;
      let all = true;
      for (let o = 0; o < others.length && all; o++) all = others[o]!(v);
      if (!all) continue;
      const row = v & ROW_MASK;
      const cw = columns[row >>> shift]!.words;
      const ca = (row & mask) * COLUMN_WIDTH;
      if (!accepts(cw[ca + 2]!, cw[ca + 4]!)) continue;
      const ref = cw[ca + 3]!;
      if (exactRefs.includes(ref)) continue;
      total++;
      if (namesAmongMatches && startsName(cw[ca]!, cw[ca + 1]!, ref)) {
        names.add(cw[ca + 4]! * RANK_UNIT + row, ref);
      } else if (
        words.length < wanted &&
        !names.refs.includes(ref) &&
        !startsName(cw[ca]!, cw[ca + 1]!, ref)
      ) {
        words.push(ref);
      }
    }
    for (const ref of names.refs) found.push({ ...this.source.conceptAt(ref), match: "name" });
    for (const ref of words) found.push({ ...this.source.conceptAt(ref), match: "words" });
    // Counting may stop (readCap) before it reaches names found in the first-token column.
    return done(Math.max(exact.length + total, found.length), exhausted ? "eq" : "gte");
  }

  /**
   * A test of a row's facets and sort key against the options' filters; whether no row of the index
   * passes them (from SearchInfo.facet_rows); whether they take standard concepts only.
   */
  private filter(options: SearchOptions): { accepts: Accepts; none: boolean; standardOnly: boolean } {
    const allowed = (wanted: readonly string[] | undefined, ids: string[]) => {
      if (!wanted || wanted.length === 0) return undefined;
      const table = new Uint8Array(ids.length);
      for (const w of wanted) {
        const n = ids.indexOf(w);
        if (n >= 0) table[n] = 1;
      }
      return table;
    };
    const vocabularies = allowed(options.vocabularies, this.info.vocabularies);
    const domains = allowed(options.domains, this.info.domains);
    const standard = options.standard === true;
    const accepts: Accepts = (facets, key) =>
      (!vocabularies || vocabularies[facets & 0xffff] === 1) &&
      (!domains || domains[facets >>> 16] === 1) &&
      (!standard || key >>> 8 === 0);
    const pairs = this.info.facet_rows;
    const none =
      pairs !== undefined && !pairs.some(([f, rows, std]) => (standard ? std : rows) > 0 && accepts(f, 0));
    return { accepts, none, standardOnly: standard };
  }

  /** The concept with this id, then those with this code in any vocabulary (as typed, upper, lower case). */
  private exactMatches(
    query: string,
    accepts: Accepts,
  ): { ref: number; concept: Concept; match: SearchMatch }[] {
    const found: { ref: number; concept: Concept; match: SearchMatch; rank: number }[] = [];
    const add = (ref: number, match: SearchMatch) => {
      if (ref === 0 || found.some((o) => o.ref === ref)) return;
      const concept = this.source.conceptAt(ref);
      const rank = codeRank(concept);
      // -1 (not in the lists) becomes 0xffff, which no filter allows
      const v = this.info.vocabularies.indexOf(concept.vocabulary_id) & 0xffff;
      const d = this.info.domains.indexOf(concept.domain_id) & 0xffff;
      if (accepts((v | (d << 16)) >>> 0, rank << 8)) found.push({ ref, concept, match, rank });
    };
    if (/^\d{1,10}$/.test(query)) add(this.source.idRef(Number(query)), "id");
    const byId = found.length;
    for (const vocabularyId of this.source.vocabularyIds) {
      for (const code of new Set([query, query.toUpperCase(), query.toLowerCase()])) {
        add(this.source.codeRef(vocabularyId, code), "code");
      }
    }
    const codes = found.slice(byId);
    codes.sort((a, b) => a.rank - b.rank || a.concept.concept_id - b.concept.concept_id);
    return [...found.slice(0, byId), ...codes];
  }

  /**
   * The postings of a term in ascending order (preference, then row), one per call, -1 at the end: its
   * list; for a prefix, its lists merged through a heap, or, when reading every posting costs less than
   * that heap would for the searchTuning.totalCap postings a query reads at most, through one bitmap per rank.
   */
  private postings(term: Term): () => number {
    const n = term.words.length;
    if (n === 1) {
      const list = term.words[0]!;
      let i = term.starts[0]!;
      const end = i + term.counts[0]!;
      return () => (i < end ? list[i++]! : -1);
    }
    const { merge, totalCap } = searchTuning;
    // A heap over thousands of lists (a short prefix: mostly rare words of a few postings each) misses the
    // cache at every level of every pop; filling a bitmap reads the lists in order.
    const bitmap =
      merge === "auto" ? n >= MANY_LISTS || term.total < 3 * totalCap * Math.log2(n) : merge === "bitmap";
    return bitmap ? this.postingsByBitmap(term) : this.merged(term);
  }

  private merged(term: Term): () => number {
    const n = term.words.length;
    const pos = Int32Array.from(term.starts);
    const end = Int32Array.from(term.starts, (s, k) => s + term.counts[k]!);
    const heap = new Int32Array(n);
    let size = 0;
    const value = (k: number) => term.words[k]![pos[k]!]!;
    const down = (at: number) => {
      const k = heap[at]!;
      const v = value(k);
      for (;;) {
        let child = at * 2 + 1;
        if (child >= size) break;
        if (child + 1 < size && value(heap[child + 1]!) < value(heap[child]!)) child++;
        if (value(heap[child]!) >= v) break;
        heap[at] = heap[child]!;
        at = child;
      }
      heap[at] = k;
    };
    for (let k = 0; k < n; k++) if (pos[k]! < end[k]!) heap[size++] = k;
    for (let at = (size >> 1) - 1; at >= 0; at--) down(at);
    let previous = -1;
    return () => {
      while (size > 0) {
        const k = heap[0]!;
        const v = value(k);
        pos[k]!++;
        if (pos[k]! >= end[k]!) heap[0] = heap[--size]!;
        if (size > 0) down(0);
        if (v !== previous) {
          previous = v;
          return v;
        }
      }
      return -1;
    };
  }

  private postingsByBitmap(term: Term): () => number {
    const stride = Math.ceil(this.rows / 32) + 1;
    this.rankBitmaps ??= new Uint32Array(4 * stride);
    const bitmap = this.rankBitmaps.fill(0);
    for (let k = 0; k < term.words.length; k++) {
      const list = term.words[k]!;
      for (let i = term.starts[k]!, end = i + term.counts[k]!; i < end; i++) {
        const v = list[i]!;
        const r = v & ROW_MASK;
        bitmap[(v >>> ROW_BITS) * stride + (r >>> 5)]! |= 1 << (r & 31);
      }
    }
    let w = 0;
    let bits = 0;
    return () => {
      while (bits === 0) {
        if (w >= bitmap.length) return -1;
        bits = bitmap[w++]!;
      }
      const low = bits & -bits;
      bits ^= low;
      const at = w - 1;
      const rank = Math.floor(at / stride);
      return rank * RANK_UNIT + (at - rank * stride) * 32 + 31 - Math.clz32(low);
    };
  }

  /**
   * A membership test for a term's postings, asked about at most `asks` postings in ascending order: a
   * search forward from the last answer in each list, or, when the term has many lists and that would
   * cost more, a bitmap of its rows made once.
   */
  private membership(term: Term, asks: number): (v: number) => boolean {
    const lists = term.words.length;
    if (lists > 1 && term.total < asks * lists * 4) {
      this.bitmap ??= new Uint32Array(Math.ceil(this.rows / 32) + 1);
      const bitmap = this.bitmap.fill(0);
      for (let k = 0; k < lists; k++) {
        const list = term.words[k]!;
        for (let i = term.starts[k]!, end = i + term.counts[k]!; i < end; i++) {
          const r = list[i]! & ROW_MASK;
          bitmap[r >>> 5]! |= 1 << (r & 31);
        }
      }
      return (v) => {
        const r = v & ROW_MASK;
        return (bitmap[r >>> 5]! & (1 << (r & 31))) !== 0;
      };
    }
    const from = Int32Array.from(term.starts);
    return (v) => {
      for (let k = 0; k < lists; k++) {
        const list = term.words[k]!;
        const end = term.starts[k]! + term.counts[k]!;
        // gallop from where the last (smaller) posting was found, then binary search
        let lo = from[k]!;
        let step = 1;
        while (lo + step < end && list[lo + step]! < v) {
          lo += step;
          step *= 2;
        }
        let hi = Math.min(end, lo + step + 1);
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (list[mid]! < v) lo = mid + 1;
          else hi = mid;
        }
        from[k] = lo;
        if (lo < end && list[lo] === v) return true;
      }
      return false;
    };
  }

  /** Whether the concept's folded name begins with the query's tokens, the last one as a prefix. */
  private nameStartsWith(ref: number, tokens: string[]): boolean {
    const name = tokensOf(foldText(this.source.conceptAt(ref).concept_name));
    if (name.length < tokens.length) return false;
    const last = tokens.length - 1;
    for (let i = 0; i < last; i++) if (name[i] !== tokens[i]) return false;
    return name[last]!.startsWith(tokens[last]!);
  }

  /** The lists of tokens lo .. hi-1; with `standardOnly`, only their standard heads (rank 0). */
  private term(lo: number, hi: number, standardOnly: boolean): Term {
    const term: Term = { words: [], starts: [], counts: [], total: 0, firstStarts: [], firstCounts: [] };
    for (let s = lo; s < hi; s++) {
      const { words, at } = this.termRecord(s);
      const ref = words[at]!;
      const list = this.slabs.postings[refSlab(ref)]!.words;
      const start = refWord(ref);
      const count = standardOnly ? below(list, start, words[at + 1]!, RANK_UNIT) : words[at + 1]!;
      term.words.push(list);
      term.starts.push(start);
      term.counts.push(count);
      term.total += count;
      term.firstStarts.push(words[at + 2]!);
      term.firstCounts.push(
        standardOnly ? this.firstStandard(words[at + 2]!, words[at + 3]!) : words[at + 3]!,
      );
    }
    return term;
  }

  /** How many of the `count` first-token rows from `start` (in sort key order) are of rank 0. */
  private firstStandard(start: number, count: number): number {
    const shift = this.info.first_shift;
    const mask = 2 ** shift - 1;
    let lo = start;
    let hi = start + count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.slabs.first[mid >>> shift]!.words[(mid & mask) * 2 + 1]! < 256) lo = mid + 1;
      else hi = mid;
    }
    return lo - start;
  }

  private termRecord(s: number): { slab: Slab; words: Uint32Array; at: number } {
    const shift = this.info.term_shift;
    const ref = this.slabs.termIndex[s >>> shift]!.words[s & (2 ** shift - 1)]!;
    const slab = this.slabs.terms[refSlab(ref)]!;
    return { slab, words: slab.words, at: refWord(ref) };
  }

  private termText(s: number): string {
    const { slab, words, at } = this.termRecord(s);
    const start = (at + 5) * 4;
    return slab.bytes.toString("utf8", start, start + words[at + 4]!);
  }

  /** The first token number whose text is >= `text` (JavaScript string order, as the build sorted). */
  private lowerBound(text: string): number {
    let lo = 0;
    let hi = this.info.tokens;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.termText(mid) < text) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** How many of the `count` ascending values of `list` from `start` are below `limit`. */
function below(list: Uint32Array, start: number, count: number, limit: number): number {
  let lo = start;
  let hi = start + count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < limit) lo = mid + 1;
    else hi = mid;
  }
  return lo - start;
}
