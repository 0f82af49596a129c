// strftime-style date patterns: `input_format` parsers and output formatters. Parsers scan the text
// directive by directive, with no regular expression whose time could grow with the pattern or the input.
import { type DateParts, normalizeOffset, pad, validParts } from "./dates.js";

/** Longest `input_format`: real date forms are under 30 characters; the cap bounds the cost of a parse. */
export const MAX_INPUT_FORMAT_LENGTH = 64;

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const ABBREVIATIONS = MONTHS.map((m) => m.slice(0, 3));

type Part = keyof DateParts;

/**
 * What a directive reads at position i of s: the end positions of every way it can match, in the order a
 * backtracking matcher would try them (longest digit run first), so the first overall match is the same.
 */
type Scan = (s: string, i: number, ends: number[]) => void;

interface Directive {
  scan: Scan;
  /** Fewest and most characters it can match. */
  min: number;
  max: number;
  set: (p: DateParts, s: string) => boolean;
  needs: Part;
  format: (p: DateParts) => string;
}

const isDigit = (s: string, i: number): boolean => {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
};

/** `min` to `max` ASCII digits, greedy. */
function digitsScan(min: number, max: number): Scan {
  return (s, i, ends) => {
    let run = 0;
    while (run < max && isDigit(s, i + run)) run++;
    for (let w = run; w >= min; w--) ends.push(i + w);
  };
}

/** ASCII case-insensitive match of `word` at i (the `i` flag of a non-Unicode regex, for ASCII words). */
function matchesWord(s: string, i: number, word: string): boolean {
  if (i + word.length > s.length) return false;
  for (let k = 0; k < word.length; k++) {
    let c = s.charCodeAt(i + k);
    if (c >= 65 && c <= 90) c += 32;
    if (c !== (word.charCodeAt(k) | 0x20)) return false;
  }
  return true;
}

/** One of `words`, each tried in order. */
function wordsScan(words: readonly string[]): Scan {
  return (s, i, ends) => {
    for (const w of words) if (matchesWord(s, i, w)) ends.push(i + w.length);
  };
}

/** `Z` (either case), `+hh:mm` or `+hhmm`. */
const offsetScan: Scan = (s, i, ends) => {
  const c = s.charCodeAt(i);
  if (c === 90 || c === 122) {
    ends.push(i + 1);
    return;
  }
  if (c !== 43 && c !== 45) return;
  if (!isDigit(s, i + 1) || !isDigit(s, i + 2)) return;
  if (s.charCodeAt(i + 3) === 58 && isDigit(s, i + 4) && isDigit(s, i + 5)) ends.push(i + 6);
  else if (isDigit(s, i + 3) && isDigit(s, i + 4)) ends.push(i + 5);
};

const monthNamed = (names: readonly string[]) => (p: DateParts, s: string) => {
  p.month = names.findIndex((m) => m.toLowerCase() === s.toLowerCase()) + 1;
  return true;
};

const DIRECTIVES: Record<string, Directive> = {
  Y: {
    scan: digitsScan(4, 4),
    min: 4,
    max: 4,
    set: (p, s) => {
      p.year = Number(s);
      return true;
    },
    needs: "year",
    format: (p) => pad(p.year, 4),
  },
  // Python's pivot for two-digit years: 69-99 -> 19xx, 00-68 -> 20xx. Only used when the format says %y.
  y: {
    scan: digitsScan(2, 2),
    min: 2,
    max: 2,
    set: (p, s) => {
      p.year = Number(s) + (Number(s) >= 69 ? 1900 : 2000);
      return true;
    },
    needs: "year",
    format: (p) => pad(p.year % 100),
  },
  m: {
    scan: digitsScan(1, 2),
    min: 1,
    max: 2,
    set: (p, s) => {
      p.month = Number(s);
      return true;
    },
    needs: "month",
    format: (p) => pad(p.month ?? 0),
  },
  d: {
    scan: digitsScan(1, 2),
    min: 1,
    max: 2,
    set: (p, s) => {
      p.day = Number(s);
      return true;
    },
    needs: "day",
    format: (p) => pad(p.day ?? 0),
  },
  H: {
    scan: digitsScan(1, 2),
    min: 1,
    max: 2,
    set: (p, s) => {
      p.hour = Number(s);
      return true;
    },
    needs: "hour",
    format: (p) => pad(p.hour ?? 0),
  },
  M: {
    scan: digitsScan(2, 2),
    min: 2,
    max: 2,
    set: (p, s) => {
      p.minute = Number(s);
      return true;
    },
    needs: "minute",
    format: (p) => pad(p.minute ?? 0),
  },
  S: {
    scan: digitsScan(2, 2),
    min: 2,
    max: 2,
    set: (p, s) => {
      p.second = Number(s);
      return true;
    },
    needs: "second",
    format: (p) => pad(p.second ?? 0),
  },
  f: {
    scan: digitsScan(1, 9),
    min: 1,
    max: 9,
    set: (p, s) => {
      p.fraction = s;
      return true;
    },
    needs: "second",
    format: (p) => (p.fraction ?? "").padEnd(6, "0").slice(0, 6),
  },
  z: {
    scan: offsetScan,
    min: 1,
    max: 6,
    set: (p, s) => {
      const o = normalizeOffset(s);
      if (!o) return false;
      p.offset = o;
      return true;
    },
    needs: "offset",
    format: (p) => (p.offset === "Z" ? "+0000" : (p.offset ?? "").replace(":", "")),
  },
  b: {
    scan: wordsScan(ABBREVIATIONS),
    min: 3,
    max: 3,
    set: monthNamed(ABBREVIATIONS),
    needs: "month",
    format: (p) => (MONTHS[(p.month ?? 1) - 1] ?? "").slice(0, 3),
  },
  B: {
    scan: wordsScan(MONTHS),
    min: 3,
    max: 9,
    set: monthNamed(MONTHS),
    needs: "month",
    format: (p) => MONTHS[(p.month ?? 1) - 1] ?? "",
  },
};

/** Splits a strftime pattern into literals and directives; throws on an unknown directive. */
function tokenize(pattern: string): (string | Directive)[] {
  const out: (string | Directive)[] = [];
  let lit = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c !== "%") {
      lit += c;
      continue;
    }
    const d = pattern[++i];
    if (d === "%") {
      lit += "%";
      continue;
    }
    const directive = d === undefined ? undefined : DIRECTIVES[d];
    if (!directive) {
      throw new Error(
        `unsupported directive "%${d ?? ""}" in "${pattern}" (supported: %${Object.keys(DIRECTIVES).join(" %")} %%)`,
      );
    }
    if (lit) out.push(lit);
    lit = "";
    out.push(directive);
  }
  if (lit) out.push(lit);
  return out;
}

export const hasDirective = (pattern: string): boolean => /%[^%]/.test(pattern.replaceAll("%%", ""));

/**
 * Literal text, matched case-insensitively as the `i` flag does (a sticky regex of the escaped literal:
 * no quantifier, so its time is the literal's length).
 */
function literalScan(text: string): Scan {
  const re = new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "iy");
  return (s, i, ends) => {
    re.lastIndex = i;
    if (re.test(s)) ends.push(i + text.length);
  };
}

interface Step {
  scan: Scan;
  /** The directive, or undefined for a literal. */
  directive: Directive | undefined;
}

/**
 * Compiles an input format such as "%d/%m/%Y" into a parser; throws on a bad pattern. The parser accepts
 * exactly what the anchored, case-insensitive regex of the directives accepts, and reads the same fields
 * (the first match in backtracking order), but it remembers which (directive, position) pairs cannot
 * lead to a match, so its time is at most directives x characters x 9, never exponential.
 */
export function compileDateParser(pattern: string): (s: string) => DateParts | undefined {
  if (pattern.length > MAX_INPUT_FORMAT_LENGTH) {
    throw new Error(
      `input_format "${pattern.slice(0, 20)}..." is ${pattern.length} characters long; the limit is ${MAX_INPUT_FORMAT_LENGTH}`,
    );
  }
  const tokens = tokenize(pattern);
  const steps: Step[] = [];
  let minLength = 0;
  let maxLength = 0;
  for (const t of tokens) {
    if (typeof t === "string") {
      steps.push({ scan: literalScan(t), directive: undefined });
      minLength += t.length;
      maxLength += t.length;
    } else {
      steps.push({ scan: t.scan, directive: t });
      minLength += t.min;
      maxLength += t.max;
    }
  }
  if (!steps.some((st) => st.directive?.needs === "year"))
    throw new Error(`input_format "${pattern}" has no year (%Y or %y)`);
  const n = steps.length;
  // failed[k * (maxLength + 1) + i] === generation: steps k.. cannot match the text from i to its end.
  const failed = new Uint32Array((n + 1) * (maxLength + 1));
  let generation = 0;
  const starts = new Int32Array(n);
  const stops = new Int32Array(n);
  const ends: number[][] = Array.from({ length: n }, () => []);

  const match = (s: string, k: number, i: number): boolean => {
    if (k === n) return i === s.length;
    const slot = k * (maxLength + 1) + i;
    if (failed[slot] === generation) return false;
    const options = ends[k] as number[];
    options.length = 0;
    (steps[k] as Step).scan(s, i, options);
    // Deeper steps fill their own arrays, so this one stays as it is during the loop.
    for (const end of options) {
      if (match(s, k + 1, end)) {
        starts[k] = i;
        stops[k] = end;
        return true;
      }
    }
    failed[slot] = generation;
    return false;
  };

  return (raw) => {
    const s = raw.trim();
    if (s.length < minLength || s.length > maxLength) return undefined;
    generation++;
    if (generation === 0xffffffff) {
      failed.fill(0);
      generation = 1;
    }
    if (!match(s, 0, 0)) return undefined;
    const p: DateParts = { year: 0 };
    for (let k = 0; k < n; k++) {
      const d = (steps[k] as Step).directive;
      if (d && !d.set(p, s.slice(starts[k], stops[k]))) return undefined;
    }
    return validParts(p);
  };
}

/** Compiles an output pattern such as "%Y%m%d" into a formatter; fails when the value lacks a needed part. */
export function compileDateFormatter(pattern: string): (p: DateParts) => string | { missing: string } {
  const tokens = tokenize(pattern);
  return (p) => {
    let out = "";
    for (const t of tokens) {
      if (typeof t === "string") out += t;
      else {
        if (p[t.needs] === undefined) return { missing: t.needs };
        out += t.format(p);
      }
    }
    return out;
  };
}
