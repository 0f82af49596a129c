import { describe, expect, it } from "vitest";
import { freshCopy } from "../../src/transforms/fresh-copy.js";

describe("freshCopy", () => {
  it("answers a scalar as it is", () => {
    expect(freshCopy("male")()).toBe("male");
    expect(freshCopy(8507)()).toBe(8507);
    expect(freshCopy(false)()).toBe(false);
    expect(freshCopy(null)()).toBe(null);
  });

  it("answers an equal object with no part shared, on every call", () => {
    const value = {
      coding: [{ system: "http://loinc.org", code: "8867-4", display: "Heart rate \u2028" }],
      n: -1.5e-7,
    };
    const copy = freshCopy(value);
    const a = copy() as typeof value;
    const b = copy() as typeof value;
    expect(a).toEqual(value);
    expect(b).toEqual(value);
    expect(a).not.toBe(b);
    expect(a.coding).not.toBe(b.coding);
    expect(a.coding[0]).not.toBe(b.coding[0]);
    expect(a.coding).not.toBe(value.coding);
    a.coding[0]!.code = "changed";
    expect((copy() as typeof value).coding[0]!.code).toBe("8867-4");
  });

  it("keeps a __proto__ key as a member, not as the prototype", () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": [1]}') as object;
    const a = freshCopy(value)() as Record<string, unknown>;
    expect(Object.getPrototypeOf(a)).toBe(Object.prototype);
    expect(Object.hasOwn(a, "__proto__")).toBe(true);
    expect(a.polluted).toBeUndefined();
    expect(a).toEqual(value);
  });

  it("copies a list value", () => {
    const copy = freshCopy([{ a: 1 }, "b"]);
    const a = copy() as unknown[];
    expect(a).toEqual([{ a: 1 }, "b"]);
    expect(a).not.toBe(copy());
  });
});
