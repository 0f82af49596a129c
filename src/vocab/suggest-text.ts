// The text side of suggestions: the character 2- and 3-gram vectors whose TF-IDF cosine measures how alike
// a source term and a concept name are (OHDSI Usagi's measure), and the abbreviation table that turns a
// site's `HGB` or `T2DM` into words a vocabulary uses. Pure functions; suggest.ts does the searching.
import { AppError } from "../errors.js";
import { foldText, tokensOf } from "./search-text.js";

/** N-gram buckets (a hash of the gram); collisions only blur the weights a little. */
export const GRAM_BUCKETS = 1 << 20;

/**
 * The hashed 2- and 3-grams of `#word#` into `out` (cleared first); `distinct`: each once. Grams are taken
 * per word, so word order does not change a text's grams ("serum glucose" = "glucose serum").
 */
export function gramCodes(word: string, out: number[], distinct = false): void {
  out.length = 0;
  const n = word.length + 2;
  const at = (i: number) => (i === 0 || i === n - 1 ? 35 : word.charCodeAt(i - 1));
  for (let i = 0; i + 2 <= n; i++) {
    const h = (Math.imul(at(i) + 0x9e37, 0x01000193) ^ Math.imul(at(i + 1), 0x85ebca6b)) >>> 0;
    push(out, h & (GRAM_BUCKETS - 1), distinct);
    if (i + 3 <= n) {
      const h3 = (Math.imul(h ^ at(i + 2), 0xc2b2ae35) ^ 0x5bd1e995) >>> 0;
      push(out, (h3 ^ (h3 >>> 15)) & (GRAM_BUCKETS - 1), distinct);
    }
  }
}

function push(out: number[], g: number, distinct: boolean): void {
  if (!distinct || !out.includes(g)) out.push(g);
}

/**
 * A text's n-gram vector: gram buckets and their TF-IDF weights (in order of first appearance), and its
 * length. Arrays, not a Map: a suggestion builds one per candidate name, and Maps cost most of that.
 */
export interface GramVector {
  grams: number[];
  weights: number[];
  norm: number;
}

const scratch: number[] = [];
/** Per bucket: a vector's position + 1 while it is built, then 0 again. */
const position = new Int32Array(GRAM_BUCKETS);
/** Per bucket: the larger vector's weight while a cosine is taken, then 0 again. */
const dense = new Float64Array(GRAM_BUCKETS);

export function gramVector(words: readonly string[], idf: Float32Array): GramVector {
  const grams: number[] = [];
  const weights: number[] = [];
  for (const w of words) {
    gramCodes(w, scratch);
    for (const g of scratch) {
      const at = position[g]!;
      if (at === 0) {
        position[g] = grams.push(g);
        weights.push(1);
      } else weights[at - 1]!++;
    }
  }
  let sum = 0;
  for (let k = 0; k < grams.length; k++) {
    const g = grams[k]!;
    position[g] = 0;
    const v = weights[k]! * idf[g]!;
    weights[k] = v;
    sum += v * v;
  }
  return { grams, weights, norm: Math.sqrt(sum) };
}

/** Cosine of two vectors, 0 .. 1. */
export function cosine(a: GramVector, b: GramVector): number {
  if (a.norm === 0 || b.norm === 0) return 0;
  const [small, large] = a.grams.length <= b.grams.length ? [a, b] : [b, a];
  for (let k = 0; k < large.grams.length; k++) dense[large.grams[k]!] = large.weights[k]!;
  let dot = 0;
  for (let k = 0; k < small.grams.length; k++) {
    const w = dense[small.grams[k]!]!;
    if (w !== 0) dot += small.weights[k]! * w;
  }
  for (let k = 0; k < large.grams.length; k++) dense[large.grams[k]!] = 0;
  return Math.min(1, dot / (a.norm * b.norm));
}

/** The words of a text as the index sees them (search-text.ts). */
export const wordsOf = (text: string): string[] => tokensOf(foldText(text));

/** Abbreviation (its words joined by a space) -> the texts it may stand for, as word lists. */
export type Abbreviations = ReadonlyMap<string, readonly (readonly string[])[]>;

/** Longest abbreviation, in words. */
const MAX_KEY_WORDS = 3;

/**
 * An abbreviation table: one abbreviation a line, TAB, then what it stands for (more TAB-separated
 * meanings when it has several, the most usual first). Blank lines and lines starting with # are skipped.
 * Case and accents never matter. `file` names the table in errors.
 */
export function parseAbbreviations(text: string, file: string): Map<string, string[][]> {
  const table = new Map<string, string[][]>();
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const [abbreviation, ...meanings] = raw.split("\t").map((p) => p.trim());
    const key = wordsOf(abbreviation ?? "");
    const expansions = meanings.filter((m) => m !== "").map(wordsOf);
    if (
      key.length === 0 ||
      key.length > MAX_KEY_WORDS ||
      expansions.length === 0 ||
      expansions.some((e) => e.length === 0)
    ) {
      throw new AppError(
        422,
        "bad_abbreviations",
        `${file}:${i + 1}: expected an abbreviation of 1 to ${MAX_KEY_WORDS} words, a TAB and what it stands for`,
      );
    }
    const k = key.join(" ");
    const known = table.get(k) ?? [];
    for (const e of expansions) if (!known.some((x) => x.join(" ") === e.join(" "))) known.push(e);
    table.set(k, known);
  }
  return table;
}

/**
 * The ways to read a term's words: as written, then with its abbreviations spelt out (the most usual
 * meaning of each, then each further meaning on its own), at most `max` readings. An abbreviation is
 * matched on whole words, longest first.
 */
export function readings(words: readonly string[], table: Abbreviations | undefined, max = 4): string[][] {
  const out: string[][] = [[...words]];
  if (!table || table.size === 0) return out;
  const found: { at: number; length: number; meanings: readonly (readonly string[])[] }[] = [];
  for (let i = 0; i < words.length; ) {
    let hit: (typeof found)[number] | undefined;
    for (let n = Math.min(MAX_KEY_WORDS, words.length - i); n >= 1 && !hit; n--) {
      const meanings = table.get(words.slice(i, i + n).join(" "));
      if (meanings) hit = { at: i, length: n, meanings };
    }
    if (hit) {
      found.push(hit);
      i += hit.length;
    } else i++;
  }
  if (found.length === 0) return out;
  const spell = (choice: (k: number) => number) => {
    const result: string[] = [];
    let i = 0;
    for (const [k, f] of found.entries()) {
      result.push(...words.slice(i, f.at), ...f.meanings[choice(k)]!);
      i = f.at + f.length;
    }
    result.push(...words.slice(i));
    return result;
  };
  const add = (r: string[]) => {
    if (out.length < max && !out.some((o) => o.join(" ") === r.join(" "))) out.push(r);
  };
  add(spell(() => 0));
  for (const [k, f] of found.entries()) {
    for (let m = 1; m < f.meanings.length; m++) add(spell((j) => (j === k ? m : 0)));
  }
  return out;
}
