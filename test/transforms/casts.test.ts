import { describe, expect, it } from "vitest";
import { codes, transformer } from "../helpers.js";

const BIG = 1741351032930224901n;

describe("passthrough", () => {
  const t = transformer("passthrough");
  it("copies any present value unchanged", () => {
    expect(t("x").out).toBe("x");
    expect(t(0).out).toBe(0);
    expect(t(false).out).toBe(false);
    expect(t({ a: 1 }).out).toEqual({ a: 1 });
    expect(t(BIG).out).toBe(BIG);
  });
  it("writes nothing for null, undefined and the empty string, without an issue", () => {
    for (const v of [null, undefined, ""]) expect(t(v)).toEqual({ out: undefined, issues: [] });
  });
  it("is the default when an entry names no transform", async () => {
    const { parseCrossmap } = await import("../../src/crossmap/load.js");
    const cm = parseCrossmap("source: s\ntarget: t\nentity_map: {e: T}\nfield_map: {e.a: {target: T.b}}");
    expect(cm.mapper("e").map({ a: 7 }).value).toEqual({ b: 7 });
  });
});

describe("str", () => {
  const t = transformer("str");
  it("converts numbers, booleans and strings", () => {
    expect(t(12345).out).toBe("12345");
    expect(t(1.5).out).toBe("1.5");
    expect(t(true).out).toBe("true");
    expect(t("a").out).toBe("a");
  });
  it("keeps a 64-bit bigint digit for digit", () => {
    expect(t(BIG).out).toBe("1741351032930224901");
  });
  it("reports objects and non-finite numbers instead of passing them through", () => {
    const r = t({ a: 1 });
    expect(r.out).toBeUndefined();
    expect(r.issues).toEqual([
      {
        field: "e.in",
        target: "T.out",
        code: "invalid_value",
        severity: "error",
        message: "cannot convert an object to a string",
        value: { a: 1 },
      },
    ]);
    expect(codes(t(Number.NaN))).toEqual(["invalid_value"]);
  });
});

describe("int", () => {
  const t = transformer("int");
  it("accepts integers and integral strings", () => {
    expect(t(42).out).toBe(42);
    expect(t(" 42 ").out).toBe(42);
    expect(t("-7").out).toBe(-7);
    expect(t("12.0").out).toBe(12);
    expect(t("1e3").out).toBe(1000);
  });
  it("keeps integers beyond 2^53 exact as bigint", () => {
    expect(t(BIG).out).toBe(BIG);
    expect(t("1741351032930224901").out).toBe(BIG);
    expect(t("9007199254740993").out).toBe(9007199254740993n);
  });
  it("gives a plain number for a bigint that fits", () => {
    expect(t(12n).out).toBe(12);
  });
  it("never truncates: fractions, words and booleans are issues naming the value", () => {
    const r = t("abc");
    expect(r.out).toBeUndefined();
    expect(r.issues[0]?.message).toBe('"abc" is not an integer');
    expect(r.issues[0]?.value).toBe("abc");
    expect(codes(t(3.7))).toEqual(["invalid_value"]);
    expect(codes(t("3.7"))).toEqual(["invalid_value"]);
    expect(codes(t(true))).toEqual(["invalid_value"]);
    expect(codes(t([1]))).toEqual(["invalid_value"]);
  });
});

describe("float", () => {
  const t = transformer("float");
  it("converts numbers and numeric strings", () => {
    expect(t(1.25).out).toBe(1.25);
    expect(t("98.6").out).toBe(98.6);
    expect(t(".5").out).toBe(0.5);
    expect(t("-1e-3").out).toBe(-0.001);
    expect(t(3n).out).toBe(3);
  });
  it("rejects words, NaN and Infinity", () => {
    for (const v of ["abc", "NaN", "Infinity", "1,5", Number.POSITIVE_INFINITY]) {
      expect(codes(t(v))).toEqual(["invalid_value"]);
    }
  });
});

describe("bool", () => {
  const t = transformer("bool");
  it("accepts the usual spellings in any case", () => {
    for (const v of [true, "true", "TRUE", "t", "Yes", "y", "1", 1]) expect(t(v).out).toBe(true);
    for (const v of [false, "false", "F", "no", "N", "0", 0]) expect(t(v).out).toBe(false);
  });
  it("reports anything else", () => {
    for (const v of ["maybe", 2, {}]) expect(codes(t(v))).toEqual(["invalid_value"]);
  });
});
