import { describe, expect, it } from "vitest";
import {
  MAX_REGEX_INPUT,
  MAX_REGEX_PATTERN,
  safeRegex,
  UnsafeRegexError,
} from "../../src/transforms/safe-regex.js";

const refusal = (pattern: string, flags?: string): { offset: number; message: string } => {
  try {
    safeRegex(pattern, flags);
  } catch (err) {
    if (err instanceof UnsafeRegexError) return { offset: err.offset, message: err.message };
    throw err;
  }
  throw new Error(`accepted ${pattern}`);
};

describe("safeRegex", () => {
  it("accepts the patterns conditions are written with, and matches like RegExp", () => {
    const cases: [string, string, string, boolean][] = [
      ["^C\\d{2}(\\.\\d+)?$", "", "C50.9", true],
      ["^[A-Z]{3}-\\d+$", "", "ABC-12", true],
      ["cancer", "i", "Lung CANCER, stage II", true],
      ["^(mg|g|kg)$", "", "kg", true],
      ["^(?:male|female|other|unknown)$", "", "femal", false],
      ["^https?://loinc\\.org$", "", "http://loinc.org", true],
      ["^\\s*\\d+\\s*$", "", " 42 ", true],
      ["^[^,]*,", "", "a,b", true],
      ["\\bfoo\\b", "", "a foo b", true],
      ["^\\d{4}-\\d{2}-\\d{2}$", "", "2020-01-02", true],
      ["^(\\d+)?$", "", "", true],
      ["^[\\u0041-\\u005A]\\x41\\cJ?$", "", "BA", true],
      ["^\\p{Lu}\\d$", "u", "Ä1", true],
      ["^[\\]a-]+;$", "", "]a-;", true],
      ["a{2,}b", "", "xaaab", true],
      ["^(?<year>\\d{4})$", "", "1999", true],
    ];
    for (const [pattern, flags, input, want] of cases) {
      const re = safeRegex(pattern, flags);
      expect([pattern, re.test(input)]).toEqual([pattern, want]);
      expect([pattern, re.test(input)]).toEqual([pattern, new RegExp(pattern, flags).test(input)]);
    }
  });

  it("refuses patterns whose matching can backtrack without bound, naming the character", () => {
    expect(refusal("^(a+)+$")).toEqual({
      offset: 5,
      message:
        "the quantifier at character 6 repeats a part that has its own quantifier (nested quantifiers)",
    });
    expect(refusal("(a|a)*")).toEqual({
      offset: 2,
      message:
        'the alternatives of the "|" at character 3 can start with the same character; make each start differently (e.g. "ab|ac" as "a(b|c)")',
    });
    expect(refusal("^.*foo$")).toEqual({
      offset: 2,
      message:
        'the part repeated by the quantifier at character 3 can match the same character as what follows it; make them differ (e.g. "[^,]*," rather than ".*,")',
    });
    expect(refusal("(a)\\1")).toEqual({ offset: 3, message: "backreference at character 4 is not allowed" });
    expect(refusal("(?<n>a)\\k<n>").message).toBe("backreference at character 8 is not allowed");
    expect(refusal("a(?=b)")).toEqual({ offset: 1, message: "lookaround at character 2 is not allowed" });
    expect(refusal("(?<!a)b").message).toBe("lookaround at character 1 is not allowed");
    expect(refusal("(|a|)").message).toBe(
      'more than one alternative of the "|" at character 2 can match nothing',
    );
    expect(refusal("(").message).toMatch(/^not a regular expression: Invalid regular expression: /);
    expect(refusal("a", "g").message).toBe('flags may be i, m, s and u, got "g"');
    expect(refusal("x".repeat(MAX_REGEX_PATTERN + 1)).message).toBe(
      "the pattern is 501 characters long; the limit is 500",
    );
    for (const evil of [
      "(a|aa)+$",
      "(.*a){12}",
      "\\d{1,9}\\d{1,9}\\d{4}", // the shape of issue 13's F1, written as a regex
      "a?a?a?aaa",
      "(\\w+\\s?)*$",
      "^(([a-z])+.)+[A-Z]([a-z])+$",
      "^(a|A)$x",
      "\\s*\\s+",
      "[a-c]+b",
      "^(x+x+)+y$",
    ]) {
      expect(() => safeRegex(evil, "i"), evil).toThrow(UnsafeRegexError);
    }
  });

  it("the i flag counts both cases as the same character", () => {
    expect(() => safeRegex("^(a|B)$", "i")).not.toThrow();
    expect(() => safeRegex("^(a|A)$", "i")).toThrow(UnsafeRegexError);
    expect(() => safeRegex("^(a|A)$")).not.toThrow();
    expect(() => safeRegex("^s+\u017f", "iu")).toThrow(UnsafeRegexError);
  });

  it("tests inputs up to the cap and says when one is longer", () => {
    const re = safeRegex("^[^,]*,");
    expect(re.test(`${"a".repeat(MAX_REGEX_INPUT - 1)},`)).toBe(true);
    expect(re.test(`${"a".repeat(MAX_REGEX_INPUT)},`)).toBe("too_long");
    // The worst inputs for accepted patterns stay quick: a failing scan from every start position.
    const slow = safeRegex("a[^c]*c");
    expect(slow.test("a".repeat(MAX_REGEX_INPUT))).toBe(false);
  });
});
