// The distinct words of an index's names and synonyms, held in memory for suggestions (suggest.ts): their
// texts and posting counts, a trigram index over them so a misspelt word finds the words it could be, and
// the character n-gram weights (IDF) that the similarity measure gives each 2- and 3-gram. Made once per
// process from the search areas (layout.ts); the words are far fewer than the concepts (1M for 5M).
import { refSlab, refWord, type SearchInfo } from "./layout.js";
import type { SearchSlabs } from "./search.js";
import { GRAM_BUCKETS, gramCodes } from "./suggest-text.js";

/** Trigram buckets of the word index (a hash of the three characters). */
const TRIGRAM_BUCKETS = 1 << 18;
/** Words longer than this, or with a digit, are matched exactly only: codes, numbers, strengths. */
const MAX_FUZZY_LENGTH = 32;
/**
 * A trigram held by more words than this is left out of the candidate count of a misspelt word: it says
 * little ("ion", "$co") and reading its list cost most of a lookup. The other trigrams still count.
 */
const MAX_TRIGRAM_WORDS = 20_000;
/** Most words a prefix is expanded to (the most frequent ones), and most a misspelt word is corrected to. */
const MAX_PREFIX_WORDS = 6;
const MAX_FUZZY_WORDS = 6;
/** Most words of a prefix range looked at for its most frequent ones. */
const MAX_PREFIX_SCAN = 20_000;

/** A word of the index that a query word may stand for, and how sure that is (1: the word itself). */
export interface WordMatch {
  token: number;
  weight: number;
  how: "exact" | "prefix" | "fuzzy";
}

export class WordIndex {
  /** Word texts by token number (string order, as the build sorted them). */
  readonly texts: string[];
  /** Postings (concepts holding the word) by token number, and where its list starts. */
  readonly df: Uint32Array;
  readonly listRef: Uint32Array;
  /** IDF of each character n-gram bucket (suggest-text.ts gramCodes), over all names and synonyms. */
  readonly gramIdf: Float32Array;
  private readonly gramStart: Uint32Array;
  private readonly gramWords: Uint32Array;
  private readonly gramCount: Uint8Array;
  private readonly hits: Uint16Array;
  private readonly cache = new Map<string, WordMatch[]>();

  constructor(
    private readonly slabs: SearchSlabs,
    info: SearchInfo,
    readonly rows: number,
  ) {
    const n = info.tokens;
    this.texts = new Array<string>(n);
    this.df = new Uint32Array(n);
    this.listRef = new Uint32Array(n);
    const shift = info.term_shift;
    const mask = 2 ** shift - 1;
    for (let s = 0; s < n; s++) {
      const ref = slabs.termIndex[s >>> shift]!.words[s & mask]!;
      const slab = slabs.terms[refSlab(ref)]!;
      const at = refWord(ref);
      this.listRef[s] = slab.words[at]!;
      this.df[s] = slab.words[at + 1]!;
      const start = (at + 5) * 4;
      this.texts[s] = slab.bytes.toString("utf8", start, start + slab.words[at + 4]!);
    }
    // Trigram lists: counted, then filled (CSR), over the words worth correcting.
    const counts = new Uint32Array(TRIGRAM_BUCKETS + 1);
    this.gramCount = new Uint8Array(n);
    const grams: number[] = [];
    for (let s = 0; s < n; s++) {
      const t = this.texts[s]!;
      if (!fuzzyWord(t)) continue;
      trigramsOf(t, grams);
      this.gramCount[s] = Math.min(255, grams.length);
      for (const g of grams) counts[g + 1]!++;
    }
    for (let b = 0; b < TRIGRAM_BUCKETS; b++) counts[b + 1]! += counts[b]!;
    this.gramStart = counts;
    this.gramWords = new Uint32Array(counts[TRIGRAM_BUCKETS]!);
    const next = counts.slice(0, TRIGRAM_BUCKETS);
    for (let s = 0; s < n; s++) {
      if (this.gramCount[s] === 0) continue;
      trigramsOf(this.texts[s]!, grams);
      for (const g of grams) this.gramWords[next[g]!++] = s;
    }
    this.hits = new Uint16Array(n);
    // N-gram document frequencies, approximated by the postings of the words holding each n-gram: the
    // concepts' texts themselves are never read (5M names would take seconds).
    const gramDf = new Float64Array(GRAM_BUCKETS);
    const codes: number[] = [];
    for (let s = 0; s < n; s++) {
      gramCodes(this.texts[s]!, codes, true);
      for (const g of codes) gramDf[g]! += this.df[s]!;
    }
    this.gramIdf = new Float32Array(GRAM_BUCKETS);
    const total = Math.max(1, rows);
    for (let g = 0; g < GRAM_BUCKETS; g++) this.gramIdf[g] = Math.log(1 + total / (1 + gramDf[g]!));
  }

  /** The token number of `word`, or -1. */
  find(word: string): number {
    const s = this.lowerBound(word);
    return s < this.texts.length && this.texts[s] === word ? s : -1;
  }

  /** IDF of a word by its postings: rare words weigh more. */
  idf(token: number): number {
    return Math.log(1 + this.rows / (1 + this.df[token]!));
  }

  /**
   * The words a query word may stand for: itself when the index has it; the most frequent words it is a
   * prefix of (an abbreviation: `creat`, `chol`); and, when the index lacks it or has it only rarely,
   * words within a small edit distance (a misspelling: `diabetis`). Digits match exactly only.
   */
  matches(word: string): WordMatch[] {
    const cached = this.cache.get(word);
    if (cached) return cached;
    const out: WordMatch[] = [];
    const exact = this.find(word);
    if (exact >= 0) out.push({ token: exact, weight: 1, how: "exact" });
    if (fuzzyWord(word)) {
      if (word.length >= 3) this.prefixMatches(word, exact, out);
      if (word.length >= 4 && (exact < 0 || this.df[exact]! <= 2)) this.fuzzyMatches(word, exact, out);
    }
    if (this.cache.size >= 200_000) this.cache.clear();
    this.cache.set(word, out);
    return out;
  }

  private prefixMatches(word: string, exact: number, out: WordMatch[]): void {
    const lo = this.lowerBound(word);
    const hi = this.lowerBound(`${word}\uffff`);
    const best: number[] = [];
    for (let s = lo; s < Math.min(hi, lo + MAX_PREFIX_SCAN); s++) {
      if (s === exact) continue;
      if (best.length < MAX_PREFIX_WORDS || this.df[s]! > this.df[best[best.length - 1]!]!) {
        let at = best.length;
        while (at > 0 && this.df[best[at - 1]!]! < this.df[s]!) at--;
        best.splice(at, 0, s);
        if (best.length > MAX_PREFIX_WORDS) best.pop();
      }
    }
    // A short prefix of a long word is a weaker guess than a long one.
    for (const s of best) {
      out.push({ token: s, weight: 0.6 + (0.3 * word.length) / this.texts[s]!.length, how: "prefix" });
    }
  }

  private fuzzyMatches(word: string, exact: number, out: WordMatch[]): void {
    const grams: number[] = [];
    trigramsOf(word, grams);
    const touched: number[] = [];
    const hits = this.hits;
    for (const g of grams) {
      const from = this.gramStart[g]!;
      const to = this.gramStart[g + 1]!;
      if (to - from > MAX_TRIGRAM_WORDS) continue;
      for (let i = from; i < to; i++) {
        const s = this.gramWords[i]!;
        if (hits[s] === 0) touched.push(s);
        if (hits[s]! < 65535) hits[s]!++;
      }
    }
    const maxEdits = word.length <= 5 ? 1 : word.length <= 9 ? 2 : 3;
    const found: { s: number; weight: number }[] = [];
    for (const s of touched) {
      const h = hits[s]!;
      hits[s] = 0;
      if (s === exact) continue;
      // Each edit changes at most three trigrams: fewer shared than that cannot be within maxEdits.
      if (h < Math.max(1, grams.length - 3 * maxEdits)) continue;
      if ((2 * h) / (grams.length + this.gramCount[s]!) < 0.4) continue;
      const t = this.texts[s]!;
      if (Math.abs(t.length - word.length) > maxEdits) continue;
      const d = editDistance(word, t, maxEdits);
      if (d > maxEdits) continue;
      found.push({ s, weight: 1 - d / Math.max(word.length, t.length) });
    }
    found.sort((a, b) => b.weight - a.weight || this.df[b.s]! - this.df[a.s]!);
    for (const f of found.slice(0, MAX_FUZZY_WORDS)) out.push({ token: f.s, weight: f.weight, how: "fuzzy" });
  }

  /** The first token number whose text is >= `text` (JavaScript string order, as the build sorted). */
  private lowerBound(text: string): number {
    let lo = 0;
    let hi = this.texts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.texts[mid]! < text) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The posting list of a token: its words, where it starts, and how long it is. */
  list(token: number): { words: Uint32Array; start: number; count: number } {
    const ref = this.listRef[token]!;
    return { words: this.slabs.postings[refSlab(ref)]!.words, start: refWord(ref), count: this.df[token]! };
  }
}

/** Words a misspelling or an abbreviation may stand for: letters only, and not too long. */
function fuzzyWord(word: string): boolean {
  if (word.length > MAX_FUZZY_LENGTH) return false;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 48 && c <= 57) return false;
  }
  return true;
}

/** The distinct trigram buckets of `$word$`. */
function trigramsOf(word: string, out: number[]): void {
  out.length = 0;
  const padded = `$${word}$`;
  for (let i = 0; i + 3 <= padded.length; i++) {
    const h =
      (Math.imul(padded.charCodeAt(i), 961) +
        Math.imul(padded.charCodeAt(i + 1), 31) +
        padded.charCodeAt(i + 2)) &
      (TRIGRAM_BUCKETS - 1);
    if (!out.includes(h)) out.push(h);
  }
}

/**
 * Optimal string alignment distance (Levenshtein plus adjacent transpositions), giving up with
 * `limit + 1` as soon as every path is longer than `limit`.
 */
export function editDistance(a: string, b: string, limit: number): number {
  const m = a.length;
  const n = b.length;
  if (Math.abs(m - n) > limit) return limit + 1;
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  let cur = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= m; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, prev2[j - 2]! + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > limit) return limit + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[n]!;
}
