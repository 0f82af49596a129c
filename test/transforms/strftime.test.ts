import { describe, expect, it } from "vitest";
import { type DateParts, normalizeOffset, validParts } from "../../src/transforms/dates.js";
import { compileDateParser, MAX_INPUT_FORMAT_LENGTH } from "../../src/transforms/strftime.js";

// The parser as it was: one anchored, case-insensitive regex per input_format. It is the reference the
// scanner must agree with, on patterns small enough for its backtracking to stay quick.
const MONTHS = "January February March April May June July August September October November December".split(
  " ",
);
type Setter = (p: DateParts, s: string) => boolean;
const num =
  (k: "year" | "month" | "day" | "hour" | "minute" | "second"): Setter =>
  (p, s) => {
    p[k] = Number(s);
    return true;
  };
const monthOf =
  (names: string[]): Setter =>
  (p, s) => {
    p.month = names.findIndex((m) => m.toLowerCase() === s.toLowerCase()) + 1;
    return true;
  };
const REGEX: Record<string, [string, Setter]> = {
  Y: ["(\\d{4})", num("year")],
  y: [
    "(\\d{2})",
    (p, s) => {
      p.year = Number(s) + (Number(s) >= 69 ? 1900 : 2000);
      return true;
    },
  ],
  m: ["(\\d{1,2})", num("month")],
  d: ["(\\d{1,2})", num("day")],
  H: ["(\\d{1,2})", num("hour")],
  M: ["(\\d{2})", num("minute")],
  S: ["(\\d{2})", num("second")],
  f: [
    "(\\d{1,9})",
    (p, s) => {
      p.fraction = s;
      return true;
    },
  ],
  z: [
    "(Z|[+-]\\d{2}:?\\d{2})",
    (p, s) => {
      const o = normalizeOffset(s);
      if (!o) return false;
      p.offset = o;
      return true;
    },
  ],
  b: [`(${MONTHS.map((m) => m.slice(0, 3)).join("|")})`, monthOf(MONTHS.map((m) => m.slice(0, 3)))],
  B: [`(${MONTHS.join("|")})`, monthOf(MONTHS)],
};

function referenceParser(pattern: string): (s: string) => DateParts | undefined {
  let re = "^";
  const sets: Setter[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "%" && pattern[i + 1] === "%") {
      re += "%";
      i++;
    } else if (c === "%") {
      const [src, set] = REGEX[pattern[++i] as string] as [string, Setter];
      re += src;
      sets.push(set);
    } else re += c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }
  const regex = new RegExp(`${re}$`, "i");
  return (s) => {
    const m = regex.exec(s.trim());
    if (!m) return undefined;
    const p: DateParts = { year: 0 };
    for (let i = 0; i < sets.length; i++) if (!sets[i]?.(p, m[i + 1] ?? "")) return undefined;
    return validParts(p);
  };
}

/** A small deterministic PRNG (mulberry32), so a failure names a reproducible case. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  "%Y",
  "%y",
  "%m",
  "%d",
  "%H",
  "%M",
  "%S",
  "%f",
  "%z",
  "%b",
  "%B",
  "%%",
  "/",
  "-",
  ":",
  " ",
  "T",
  "t",
  ".",
  "1",
  "é",
];
const CHARS = [
  "0",
  "1",
  "2",
  "3",
  "5",
  "9",
  "/",
  "-",
  ":",
  " ",
  "T",
  "t",
  ".",
  "+",
  "Z",
  "z",
  "%",
  "é",
  "É",
  "a",
];
const WORDS = [
  "Jan",
  "jan",
  "MAY",
  "March",
  "september",
  "Sept",
  "Dec",
  "2020",
  "1969",
  "+01:00",
  "-0530",
  "Z",
  "z",
];

describe("input_format parsers", () => {
  it("accept and read exactly what the regex they replace accepted", () => {
    const rnd = random(13);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
    const mismatches: object[] = [];
    let compared = 0;
    let accepted = 0;
    for (let p = 0; p < 400; p++) {
      let pattern = "%Y";
      const extra = 1 + Math.floor(rnd() * 5);
      for (let k = 0; k < extra; k++) {
        const piece = pick(PIECES);
        pattern = rnd() < 0.5 ? pattern + piece : piece + pattern;
      }
      const scanner = compileDateParser(pattern);
      const reference = referenceParser(pattern);
      // Inputs: the pattern filled with plausible values, then mutated; and random text.
      for (let k = 0; k < 60; k++) {
        let s = pattern.replace(/%([A-Za-z%])/g, (_, d: string) =>
          d === "%"
            ? "%"
            : rnd() < 0.7
              ? String(Math.floor(rnd() * 10 ** (1 + Math.floor(rnd() * 4))))
              : pick(WORDS),
        );
        const edits = Math.floor(rnd() * 3);
        for (let e = 0; e < edits; e++) {
          const at = Math.floor(rnd() * (s.length + 1));
          s = rnd() < 0.5 ? s.slice(0, at) + pick(CHARS) + s.slice(at) : s.slice(0, at) + s.slice(at + 1);
        }
        if (rnd() < 0.2) s = ` ${s}\t`;
        const want = reference(s);
        const got = scanner(s);
        if (JSON.stringify(got) !== JSON.stringify(want)) mismatches.push({ pattern, s, got, want });
        compared++;
        if (want) accepted++;
      }
    }
    expect(mismatches).toEqual([]);
    // The comparison covers both answers, not only refusals.
    expect(compared).toBe(24_000);
    expect(accepted).toBeGreaterThan(500);
  });

  it("read ambiguous patterns the way a backtracking match does: earlier directives take the most digits", () => {
    const p = compileDateParser("%Y%m%d%H");
    // %m takes "11", %d "1", then %H has nothing: back up until every directive has a digit.
    expect(p("2020111")).toEqual({ year: 2020, month: 1, day: 1, hour: 1 });
    expect(p("20201112")).toEqual({ year: 2020, month: 11, day: 1, hour: 2 });
    expect(compileDateParser("%Y%m%d")("2020111")).toEqual({ year: 2020, month: 11, day: 1 });
    expect(compileDateParser("%f%Y")("1234562020")).toEqual({ year: 2020, fraction: "123456" });
  });

  it("take time proportional to the input, even for the patterns that made the regex backtrack for minutes", () => {
    // F1 of issue 13: ten variable-width directives in a row; the regex tried every split of the digits.
    const parse = compileDateParser("%f%f%f%f%f%f%f%f%f%Y");
    const adversarial = `${"1".repeat(80)}x`;
    const answers = new Set<unknown>();
    for (let i = 0; i < 1000; i++) answers.add(parse(adversarial));
    expect([...answers]).toEqual([undefined]);
    expect(parse("1234567892020")).toEqual({ year: 2020, fraction: "9" });
  });

  it("refuse patterns longer than the limit", () => {
    const long = "%Y".padEnd(MAX_INPUT_FORMAT_LENGTH + 1, "-");
    expect(() => compileDateParser(long)).toThrow(
      `input_format "%Y------------------..." is 65 characters long; the limit is 64`,
    );
    expect(() => compileDateParser("%Y".padEnd(MAX_INPUT_FORMAT_LENGTH, "-"))).not.toThrow();
  });
});
