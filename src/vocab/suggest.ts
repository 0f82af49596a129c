// Ranked candidate concepts for a source term, as a reviewer knows them from OHDSI Usagi: an exact code
// (or the standard concept it "Maps to") first, then concepts whose name or synonyms resemble the term's
// description. The description's words are matched to the index's words (exactly, by prefix for
// abbreviations, within a small edit distance for misspellings, through an abbreviation table), concepts
// are gathered from those words' posting lists with IDF weights, and the best few hundred are ranked by
// the TF-IDF cosine of their names' character 2- and 3-grams. A non-standard concept that "Maps to" a
// standard one counts for that standard concept. Work per term is bounded by caps on the postings read.
import type { Concept } from "./bridge.js";
import { COLUMN_WIDTH, ROW_BITS, ROW_MASK, type SearchInfo } from "./layout.js";
import type { Slab } from "./slabs.js";
import type { RowTokens } from "./suggest-rows.js";
import {
  type Abbreviations,
  cosine,
  type GramVector,
  gramVector,
  readings,
  wordsOf,
} from "./suggest-text.js";
import type { WordIndex, WordMatch } from "./suggest-words.js";

export interface SuggestOptions {
  /** Only concepts of these vocabulary_ids. */
  vocabularies?: readonly string[] | undefined;
  /** Only concepts of these domain_ids. */
  domains?: readonly string[] | undefined;
  /** Only standard, valid concepts (default true); a non-standard match then counts for what it maps to. */
  standard?: boolean | undefined;
  /** How many candidates (default 5, at most MAX_CANDIDATES). */
  limit?: number | undefined;
}

/** How a candidate was found. */
export type CandidateMatch = "code" | "maps_to" | "name" | "mapped_name";

export interface Candidate {
  concept_id: number;
  concept_name: string;
  vocabulary_id: string;
  domain_id: string;
  /** 1 for a code match; else the similarity of the term to the concept's name, 0 .. 1. */
  score: number;
  match: CandidateMatch;
}

/** A source term: its code and code system (a vocabulary_id), or the source concept it already has, and its text. */
export interface TermQuery {
  code?: string | null | undefined;
  vocabularyId?: string | null | undefined;
  sourceConceptId?: number | null | undefined;
  description?: string | null | undefined;
}

export const DEFAULT_CANDIDATES = 5;
export const MAX_CANDIDATES = 50;

/**
 * What bounds the work per term (tests lower them to reach every path with a small index).
 * readCap: postings read from one word's list; a word with more only confirms concepts already found.
 * confirmCap: concepts a common word confirms. rerank: concepts per reading whose names are compared.
 */
export const suggestTuning = { readCap: 5_000, confirmCap: 5_000, rerank: 50, scan: 500, pairCap: 400_000 };

/** Words of a description beyond these are ignored. */
const MAX_WORDS = 16;

/** What the suggester reads from the rest of the index (lmdb-bridge.ts). */
export interface SuggestSource {
  conceptAt(ref: number): Concept;
  /** The id and name of the concept at a ref, without the rest of its record. */
  nameAt(ref: number): { id: number; name: string };
  getConcept(id: number): Concept | undefined;
  lookupCode(vocabularyId: string, code: string): Concept | undefined;
  /** Concepts a concept "Maps to". */
  mapsTo(conceptId: number): Concept[];
}

/** A concept found by text, read whole only if it is returned. */
interface Scored {
  id: number;
  score: number;
  match: CandidateMatch;
  nameLength: number;
  /** Its record (found by name), or 0 and the concept itself (found through "Maps to"). */
  ref: number;
  concept: Concept | undefined;
  /** The place of the pick that found it, among the term's picks. */
  order: number;
}

interface Pick {
  row: number;
  /** The row's rank (athena-rows.codeRank): 0 for a standard, valid concept. */
  rank: number;
  ref: number;
  /** Share of the reading's weight its words found in the concept (name or synonym). */
  coverage: number;
  reading: number;
}

export class Suggester {
  /** Per row two scores side by side (one cache line): accumulated, and the current word's best. */
  private readonly scores: Float32Array;
  /** Per token: 1 + its first entry while confirmWords runs, else 0. */
  private readonly tokenEntry: Int32Array;
  private readonly shift: number;
  private readonly mask: number;
  private readonly vocabularyIds: string[];
  private readonly domainIds: string[];

  constructor(
    private readonly words: WordIndex,
    private readonly rowTokens: RowTokens,
    private readonly columns: Slab[],
    info: SearchInfo,
    private readonly source: SuggestSource,
    private readonly abbreviations: Abbreviations | undefined,
  ) {
    this.scores = new Float32Array(2 * words.rows);
    this.tokenEntry = new Int32Array(words.df.length);
    this.shift = info.column_shift;
    this.mask = 2 ** info.column_shift - 1;
    this.vocabularyIds = info.vocabularies;
    this.domainIds = info.domains;
  }

  /** Candidates for a source term, best first: its code's concepts, then text matches. */
  suggest(term: TermQuery, options: SuggestOptions = {}): Candidate[] {
    const limit = Math.max(1, Math.min(MAX_CANDIDATES, Math.floor(options.limit ?? DEFAULT_CANDIDATES)));
    const standard = options.standard !== false;
    const passes = (c: Concept) =>
      (!options.vocabularies?.length || options.vocabularies.includes(c.vocabulary_id)) &&
      (!options.domains?.length || options.domains.includes(c.domain_id)) &&
      (!standard || (c.standard_concept === "S" && !c.invalid_reason));
    const out: Candidate[] = [];
    const add = (c: Concept, score: number, match: CandidateMatch) => {
      if (passes(c) && !out.some((o) => o.concept_id === c.concept_id)) out.push(candidate(c, score, match));
    };
    for (const c of this.codeConcepts(term)) {
      add(c, 1, "code");
      if (c.standard_concept !== "S" || c.invalid_reason) {
        for (const m of this.source.mapsTo(c.concept_id)) add(m, 1, "maps_to");
      }
    }
    if (term.description && out.length < limit) {
      for (const c of this.byText(term.description, options, standard, passes, limit)) {
        if (!out.some((o) => o.concept_id === c.concept_id)) out.push(c);
      }
    }
    return out.slice(0, limit);
  }

  private codeConcepts(term: TermQuery): Concept[] {
    if (term.sourceConceptId) {
      const c = this.source.getConcept(term.sourceConceptId);
      if (c) return [c];
    }
    if (term.code && term.vocabularyId) {
      const c = this.source.lookupCode(term.vocabularyId, term.code);
      if (c) return [c];
    }
    return [];
  }

  /** Text matches, best first. */
  private byText(
    text: string,
    options: SuggestOptions,
    standard: boolean,
    passes: (c: Concept) => boolean,
    limit: number,
  ): Candidate[] {
    const raw = wordsOf(text).slice(0, MAX_WORDS);
    if (raw.length === 0) return [];
    const variants = readings(raw, this.abbreviations).map((v) => v.flatMap((w) => this.split(w)));
    const rowFilter = this.rowFilter(options, standard);
    const picks = new Map<number, Pick>();
    const matchLists = variants.map((v) => v.map((w) => this.words.matches(w)));
    for (const [k, v] of variants.entries()) {
      for (const p of this.gather(v, matchLists[k]!, rowFilter)) {
        const seen = picks.get(p.row);
        if (!seen || seen.coverage < p.coverage) picks.set(p.row, { ...p, reading: k });
      }
    }
    const idf = this.words.gramIdf;
    const vectors = variants.map((v) => gramVector(v, idf));
    // Concepts found by name are passed by the row filter already; only their names are read here, and
    // only the candidates returned are read whole.
    const scored = new Map<number, Scored>();
    // A concept found twice with the same score keeps its first finding (`order`: the pick's place).
    const keep = (s: Scored) => {
      const had = scored.get(s.id);
      if (!had || had.score < s.score || (had.score === s.score && had.order > s.order)) scored.set(s.id, s);
    };
    // Non-standard concepts count for the standard ones they "Map to": looked up best score first, and
    // only while they can still reach the `limit` best (a lookup reads the relations and records).
    const mapped: { id: number; score: number; order: number }[] = [];
    let order = 0;
    for (const p of picks.values()) {
      const { id, name } = this.source.nameAt(p.ref);
      const score = this.similarity(name, variants, vectors, matchLists, p);
      const isStandard = p.rank === 0;
      if (isStandard || !standard) {
        keep({ id, score, match: "name", nameLength: name.length, ref: p.ref, concept: undefined, order });
      } else mapped.push({ id, score, order });
      order++;
    }
    mapped.sort((a, b) => b.score - a.score || a.order - b.order);
    for (const m of mapped) {
      if (scored.size >= limit && countAbove(scored, m.score) >= limit) break;
      for (const c of this.source.mapsTo(m.id)) {
        if (passes(c)) {
          keep({
            id: c.concept_id,
            score: m.score,
            match: "mapped_name",
            nameLength: c.concept_name.length,
            ref: 0,
            concept: c,
            order: m.order,
          });
        }
      }
    }
    return [...scored.values()]
      .sort((a, b) => b.score - a.score || a.nameLength - b.nameLength || a.id - b.id)
      .slice(0, limit)
      .map((s) => candidate(s.concept ?? this.source.conceptAt(s.ref), s.score, s.match));
  }

  /**
   * How alike a reading of the term and a name are: the n-gram cosine of the name and the reading with
   * each word replaced by the name's word it was matched to (a corrected misspelling, a spelt-out
   * prefix), discounted by how sure those matches were; at least a share of how much of the term the
   * concept's name or synonyms hold (a synonym's text is not in the index, only its words).
   */
  private similarity(
    name: string,
    variants: string[][],
    vectors: GramVector[],
    matchLists: WordMatch[][][],
    pick: Pick,
  ): number {
    const nameWords = wordsOf(name);
    const idf = this.words.gramIdf;
    const nameVector = gramVector(nameWords, idf);
    let best = 0;
    for (const [k, v] of variants.entries()) {
      let score = cosine(vectors[k]!, nameVector);
      const aligned: string[] = [];
      let weight = 0;
      let total = 0;
      let inName = 0;
      let changed = false;
      for (const [i, w] of v.entries()) {
        const wordIdf = this.wordWeight(matchLists[k]![i]!);
        total += wordIdf;
        if (nameWords.includes(w)) {
          aligned.push(w);
          weight += wordIdf;
          inName += wordIdf;
          continue;
        }
        let found: { text: string; weight: number } | undefined;
        for (const m of matchLists[k]![i]!) {
          const text = this.words.texts[m.token]!;
          if (m.how !== "exact" && nameWords.includes(text) && (!found || found.weight < m.weight)) {
            found = { text, weight: m.weight };
          }
        }
        if (found) {
          aligned.push(found.text);
          weight += wordIdf * found.weight;
          inName += wordIdf * found.weight;
          changed = true;
        } else {
          aligned.push(w);
          weight += wordIdf;
        }
      }
      if (changed) score = Math.max(score, cosine(gramVector(aligned, idf), nameVector) * (weight / total));
      // Half the likeness of the texts, half how much of the term the name holds: a short name that lacks
      // a word of the term ("gram of creatinine" for "creatinine serum") should not beat a longer one
      // that has them all.
      score = 0.5 * score + 0.5 * (inName / total);
      // The concept holds words of the term that its name lacks: a synonym has them (its text is not in
      // the index, only its words), so how much of the term it holds stands in for the name's likeness.
      if (k === pick.reading && pick.coverage - inName / total > 0.2)
        score = Math.max(score, 0.85 * pick.coverage);
      // Readings that spell out an abbreviation are a guess: a little below the words as written.
      if (k > 0) score *= 0.97;
      if (score > best) best = score;
    }
    return Math.round(best * 1e4) / 1e4;
  }

  /** The weight of a query word: the IDF of its best match, or of a word seen once when it has none. */
  private wordWeight(matches: WordMatch[]): number {
    let w = 0;
    for (const m of matches) w = Math.max(w, this.words.idf(m.token) * m.weight);
    return w > 0 ? w : Math.log(1 + this.words.rows);
  }

  /**
   * Concepts holding a reading's words, as picks. Rarer words first: each reads its lists into the
   * accumulator (a word's score in a concept being the best of its matches) while the reading has read
   * fewer than readCap postings; a word with longer lists only adds to the confirmCap concepts found so
   * far with the highest scores, found from those concepts' own token lists (RowTokens). Only the `scan`
   * best by score are then looked at for the final order, so the work per reading is bounded whatever
   * the lists' lengths. Concepts travel as postings (`rank << 30 | row`), which carry their rank.
   */
  private gather(
    reading: string[],
    matchLists: WordMatch[][],
    accepts: (posting: number) => boolean,
  ): Pick[] {
    const { readCap, confirmCap, rerank, scan, pairCap } = suggestTuning;
    // Per row: its accumulated score, then the current word's best match (0 between words).
    const { scores } = this;
    const order = reading
      .map((_, i) => i)
      .filter((i) => matchLists[i]!.length > 0)
      .sort((a, b) => this.rarest(matchLists[a]!) - this.rarest(matchLists[b]!));
    const sizes = order.map((i) => {
      let size = 0;
      for (const m of matchLists[i]!) size += Math.min(this.words.df[m.token]!, readCap);
      return size;
    });
    const touched: number[] = [];
    let total = 0;
    for (const i of reading.keys()) total += this.wordWeight(matchLists[i]!);
    let read = 0;
    // Once the reading has read readCap postings: the rows the later words may add to, and per row and
    // such word (its column) the word's best match in the row.
    let confirm: number[] | undefined;
    let confirmed: Float32Array | undefined;
    const column = new Int32Array(order.length).fill(-1);
    let columns = 0;
    for (const [o, i] of order.entries()) {
      const wordTouched: number[] = [];
      const size = sizes[o]!;
      const readAll = touched.length === 0 || read + size <= readCap;
      if (!readAll && !confirm) {
        confirm = this.strongest(touched, confirmCap);
        // Which later words will not be read whole either is known now (`read` grows only by the
        // words that are): all of them are confirmed in one pass over the rows' token lists.
        let r = read;
        for (let q = o; q < order.length; q++) {
          if (r + sizes[q]! <= readCap) r += sizes[q]!;
          else column[q] = columns++;
        }
        confirmed = this.confirmWords(
          confirm,
          order.map((w) => matchLists[w]!),
          column,
          columns,
        );
      }
      // The rarest word is common too (every word is): its concepts that also hold the next word, not
      // the first readCap of its concepts, which would hold the next word by chance only.
      const next = order[1];
      const pair = touched.length === 0 && next !== undefined && o === 0 && size >= readCap;
      if (pair) {
        const others = matchLists[next]!.map((m) => this.words.list(m.token));
        const at = new Int32Array(others.length);
        let scanned = 0;
        for (const m of matchLists[i]!) {
          const value = this.words.idf(m.token) * m.weight;
          const { words, start, count } = this.words.list(m.token);
          for (const [j, o] of others.entries()) at[j] = o.start;
          const end = start + Math.min(count, pairCap - scanned);
          scanned += end - start;
          for (let k = start; k < end && wordTouched.length < readCap; k++) {
            const v = words[k]!;
            let found = false;
            for (let j = 0; j < others.length && !found; j++) {
              const o = others[j]!;
              const oEnd = o.start + o.count;
              if (at[j]! >= oEnd) continue;
              at[j] = seek(o.words, at[j]!, oEnd, v);
              found = at[j]! < oEnd && o.words[at[j]!] === v;
            }
            if (!found) continue;
            const b = 2 * (v & ROW_MASK) + 1;
            if (scores[b] === 0) wordTouched.push(v);
            if (scores[b]! < value) scores[b] = value;
          }
        }
      } else if (readAll) {
        for (const m of matchLists[i]!) {
          const value = this.words.idf(m.token) * m.weight;
          const { words, start, count } = this.words.list(m.token);
          for (let k = start, end = start + Math.min(count, readCap); k < end; k++) {
            const v = words[k]!;
            const b = 2 * (v & ROW_MASK) + 1;
            if (scores[b] === 0) wordTouched.push(v);
            if (scores[b]! < value) scores[b] = value;
          }
        }
      } else {
        const c = column[o]!;
        for (let k = 0; k < confirm!.length; k++) {
          const value = confirmed![k * columns + c]!;
          if (value === 0) continue;
          const v = confirm![k]!;
          const b = 2 * (v & ROW_MASK) + 1;
          if (scores[b] === 0) wordTouched.push(v);
          if (scores[b]! < value) scores[b] = value;
        }
      }
      if (readAll) read += size;
      for (const v of wordTouched) {
        const a = 2 * (v & ROW_MASK);
        if (scores[a] === 0) touched.push(v);
        scores[a]! += scores[a + 1]!;
        scores[a + 1] = 0;
      }
    }
    // The `scan` best by coverage that pass the filters, then the best of those by coverage nudged
    // towards names of about the reading's length.
    const passing: number[] = [];
    for (const v of touched) if (accepts(v)) passing.push(v);
    const length = reading.join(" ").length;
    const nameLengths = this.rowTokens.nameLength;
    const top: { key: number; v: number }[] = [];
    for (const v of passing.length > scan ? this.strongestUnordered(passing, scan) : passing) {
      const row = v & ROW_MASK;
      const coverage = scores[2 * row]! / total;
      const nameLength = nameLengths[row]!;
      const key = coverage * (0.75 + (0.25 * Math.min(length, nameLength)) / Math.max(length, nameLength, 1));
      if (top.length >= rerank && key <= top[top.length - 1]!.key) continue;
      let at = top.length;
      while (at > 0 && top[at - 1]!.key < key) at--;
      top.splice(at, 0, { key, v });
      if (top.length > rerank) top.pop();
    }
    const picks = top.map(({ v }) => {
      const row = v & ROW_MASK;
      return {
        row,
        rank: v >>> ROW_BITS,
        ref: this.column(row, 3),
        coverage: Math.min(1, scores[2 * row]! / total),
        reading: 0,
      };
    });
    for (const v of touched) scores[2 * (v & ROW_MASK)] = 0;
    return picks;
  }

  /**
   * Per row of `rows` (postings) and per word with a column (`column[q]` for the q-th list of `lists`,
   * -1: none), the best value of the word's matches that the row holds, from the row's token list: a
   * table of `rows.length` x `columns`.
   */
  private confirmWords(
    rows: readonly number[],
    lists: readonly WordMatch[][],
    column: Int32Array,
    columns: number,
  ): Float32Array {
    const out = new Float32Array(rows.length * columns);
    // token -> its (column, value) entries, chained: a token may match more than one word.
    const { tokenEntry } = this;
    const entryColumn: number[] = [];
    const entryValue: number[] = [];
    const entryNext: number[] = [];
    const marked: number[] = [];
    for (const [q, matches] of lists.entries()) {
      const c = column[q]!;
      if (c < 0) continue;
      for (const m of matches) {
        entryColumn.push(c);
        entryValue.push(this.words.idf(m.token) * m.weight);
        entryNext.push(tokenEntry[m.token]! - 1);
        if (tokenEntry[m.token] === 0) marked.push(m.token);
        tokenEntry[m.token] = entryColumn.length;
      }
    }
    const { start, tokens } = this.rowTokens;
    for (let k = 0; k < rows.length; k++) {
      const row = rows[k]! & ROW_MASK;
      for (let t = start[row]!, end = start[row + 1]!; t < end; t++) {
        for (let e = tokenEntry[tokens[t]!]! - 1; e >= 0; e = entryNext[e]!) {
          const cell = k * columns + entryColumn[e]!;
          if (out[cell]! < entryValue[e]!) out[cell] = entryValue[e]!;
        }
      }
    }
    for (const token of marked) tokenEntry[token] = 0;
    return out;
  }

  /** Up to `n` of the touched postings with the highest scores, in no order. */
  private strongest(touched: number[], n: number): number[] {
    return touched.length <= n ? touched.slice() : this.strongestUnordered(touched, n);
  }

  /**
   * `n` of the postings with the highest scores, in no order: a selection around the n-th score (linear),
   * so a reading with hundreds of thousands of matches is not sorted. Ties at the n-th score: the first come.
   */
  private strongestUnordered(postings: number[], n: number): number[] {
    const { scores } = this;
    const values = Float32Array.from(postings, (v) => scores[2 * (v & ROW_MASK)]!);
    const threshold = nthLargest(values, n);
    const out: number[] = [];
    for (const v of postings) if (scores[2 * (v & ROW_MASK)]! > threshold) out.push(v);
    for (let k = 0; k < postings.length && out.length < n; k++)
      if (scores[2 * (postings[k]! & ROW_MASK)] === threshold) out.push(postings[k]!);
    return out;
  }

  private rarest(matches: WordMatch[]): number {
    let n = Number.POSITIVE_INFINITY;
    for (const m of matches) n = Math.min(n, this.words.df[m.token]!);
    return n;
  }

  /**
   * A test of a row against the filters, before "Maps to": a non-standard concept stays in the running
   * (whatever its vocabulary) when standard concepts are asked for, as it may map to one; invalid ones
   * and concepts outside the domains do not.
   */
  private rowFilter(options: SuggestOptions, standard: boolean): (posting: number) => boolean {
    const table = (wanted: readonly string[] | undefined, ids: string[]) => {
      if (!wanted || wanted.length === 0) return undefined;
      const t = new Uint8Array(ids.length + 1);
      for (const w of wanted) {
        const n = ids.indexOf(w);
        if (n >= 0) t[n] = 1;
      }
      return t;
    };
    const vocabularies = table(options.vocabularies, this.vocabularyIds);
    const domains = table(options.domains, this.domainIds);
    // The rank comes with the posting: without filters, no column is read.
    if (!vocabularies && !domains) return (v) => v >>> ROW_BITS !== 3;
    return (v) => {
      const facets = this.column(v & ROW_MASK, 2);
      const rank = v >>> ROW_BITS;
      if (rank === 3 || (domains && domains[facets >>> 16] !== 1)) return false;
      if (standard && rank !== 0) return true;
      return !vocabularies || vocabularies[facets & 0xffff] === 1;
    };
  }

  private column(row: number, k: number): number {
    return this.columns[row >>> this.shift]!.words[(row & this.mask) * COLUMN_WIDTH + k]!;
  }

  /** A word the index lacks that runs letters into digits (`5mg`, `covid19`) is read as its parts. */
  private split(word: string): string[] {
    if (this.words.find(word) >= 0 || !/\d/.test(word) || !/[^\d]/.test(word)) return [word];
    return word.match(/\d+|[^\d]+/g) ?? [word];
  }
}

const candidate = (c: Concept, score: number, match: CandidateMatch): Candidate => ({
  concept_id: c.concept_id,
  concept_name: c.concept_name,
  vocabulary_id: c.vocabulary_id,
  domain_id: c.domain_id,
  score,
  match,
});

/** How many of the scored concepts score more than `score`. */
function countAbove(scored: ReadonlyMap<number, Scored>, score: number): number {
  let n = 0;
  for (const s of scored.values()) if (s.score > score) n++;
  return n;
}

/** The first position in ascending `list[from, end)` whose value is >= `value` (gallop, then binary search). */
function seek(list: Uint32Array, from: number, end: number, value: number): number {
  let lo = from;
  let step = 1;
  while (lo + step < end && list[lo + step]! < value) {
    lo += step;
    step *= 2;
  }
  if (list[lo]! >= value) return lo;
  let hi = Math.min(end, lo + step + 1);
  lo++;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The n-th largest of `values` (1-based; the smallest when there are fewer), reordering them (quickselect). */
function nthLargest(values: Float32Array, n: number): number {
  let lo = 0;
  let hi = values.length - 1;
  const k = Math.min(n, values.length) - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >>> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! > pivot) i++;
      while (values[j]! < pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i++] = values[j]!;
        values[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return values[k]!;
  }
  return values[k]!;
}
