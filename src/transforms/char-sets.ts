// Sets of characters as sorted ranges, for the safe-regex check: which characters a part of a pattern can
// match, and whether two parts can match the same one.

/** Flat, sorted, non-overlapping inclusive ranges: [lo0, hi0, lo1, hi1, ...]. */
export type CharSet = readonly number[];

const MAX = 0x10ffff;
export const EMPTY: CharSet = [];

export function union(a: CharSet, b: CharSet): CharSet {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const pairs: [number, number][] = [];
  for (const s of [a, b])
    for (let i = 0; i < s.length; i += 2) pairs.push([s[i] as number, s[i + 1] as number]);
  pairs.sort((x, y) => x[0] - y[0]);
  const out: number[] = [];
  for (const [lo, hi] of pairs) {
    const last = out.length - 1;
    if (last > 0 && lo <= (out[last] as number) + 1) out[last] = Math.max(out[last] as number, hi);
    else out.push(lo, hi);
  }
  return out;
}

export function intersects(a: CharSet, b: CharSet): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const alo = a[i] as number;
    const ahi = a[i + 1] as number;
    const blo = b[j] as number;
    const bhi = b[j + 1] as number;
    if (alo <= bhi && blo <= ahi) return true;
    if (ahi < bhi) i += 2;
    else j += 2;
  }
  return false;
}

const contains = (s: CharSet, code: number): boolean => intersects(s, [code, code]);

function complement(s: CharSet): CharSet {
  const out: number[] = [];
  let next = 0;
  for (let i = 0; i < s.length; i += 2) {
    if ((s[i] as number) > next) out.push(next, (s[i] as number) - 1);
    next = (s[i + 1] as number) + 1;
  }
  if (next <= MAX) out.push(next, MAX);
  return out;
}

const WORD: CharSet = [48, 57, 65, 90, 95, 95, 97, 122];
const DIGIT: CharSet = [48, 57];
const SPACE: CharSet = union(
  [9, 13, 32, 32, 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x202f],
  [0x205f, 0x205f, 0x3000, 0x3000, 0xfeff, 0xfeff],
);
const LINE_TERMINATORS: CharSet = [10, 10, 13, 13, 0x2028, 0x2029];

export const charSetOf = {
  single: (code: number): CharSet => (code < 0 ? [0, MAX] : [code, code]),
  range: (lo: number, hi: number): CharSet => [lo, hi],
  all: (): CharSet => [0, MAX],
  dot: (dotAll: boolean): CharSet => (dotAll ? [0, MAX] : complement(LINE_TERMINATORS)),
  complement,
  /** `\d \D \w \W \s \S`, or undefined for any other escape letter. */
  escapeClass(c: string): CharSet | undefined {
    switch (c) {
      case "d":
        return DIGIT;
      case "D":
        return complement(DIGIT);
      case "w":
        return WORD;
      case "W":
        return complement(WORD);
      case "s":
        return SPACE;
      case "S":
        return complement(SPACE);
      default:
        return undefined;
    }
  },
  /**
   * What a set matches under the `i` flag, over-approximated where that is simpler: ASCII letters in both
   * cases, the two non-ASCII letters that fold to ASCII ones (long s, Kelvin sign), and any non-ASCII
   * character once the set holds one.
   */
  caseFolded(s: CharSet): CharSet {
    let out = s;
    for (let c = 65; c <= 90; c++) {
      if (contains(s, c) || contains(s, c + 32)) out = union(out, [c, c, c + 32, c + 32]);
    }
    if (contains(out, 115) || contains(out, 107)) out = union(out, [0x17f, 0x17f, 0x212a, 0x212a]);
    if (intersects(s, [0x80, MAX])) out = union(out, [0x80, MAX, 75, 75, 83, 83, 107, 107, 115, 115]);
    return out;
  },
};
