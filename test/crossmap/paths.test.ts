import { describe, expect, it } from "vitest";
import {
  compileGetter,
  compileSetter,
  FIELD_AT,
  headField,
  PathError,
  parseSourcePath,
  parseTargetPath,
  SoftIndexResolver,
} from "../../src/crossmap/paths.js";

describe("paths", () => {
  it("read numbered keys through a record's FIELD_AT method when it has one, else as keys", () => {
    const calls: number[] = [];
    // The method's answers differ from the keys' so that the test sees which one the getter used.
    const record = {
      "3": "by key",
      "0": "zero by key",
      [FIELD_AT](n: number) {
        calls.push(n);
        return n === 3 ? { "1": "by FIELD_AT", "2": ["a", "b"] } : undefined;
      },
    };
    const get = (path: string) => compileGetter(parseSourcePath(path))(record as never);
    expect(get("3.1")).toBe("by FIELD_AT");
    expect(get("3.2[1]")).toBe("b");
    expect(get("12")).toBeUndefined();
    expect(calls).toEqual([3, 3, 12]);
    // "0" is no field number: read as a key.
    expect(get("0")).toBe("zero by key");
    expect(compileGetter(parseSourcePath("a.3"))({ a: { "3": "plain" } } as never)).toBe("plain");
    expect(compileGetter(parseSourcePath("a[1]"))({ a: ["x", "y"] } as never)).toBe("y");
  });

  it("parses source paths with indexes and numeric HL7 positions", () => {
    expect(parseSourcePath("code.coding[0].code")).toEqual(["code", "coding", 0, "code"]);
    expect(parseSourcePath("PID.3.1")).toEqual(["PID", "3", "1"]);
    expect(parseSourcePath("a[1][2]")).toEqual(["a", 1, 2]);
    expect(() => parseSourcePath("a[+]")).toThrow(PathError);
    expect(() => parseSourcePath("")).toThrow("empty path");
  });
  it("reads a quoted name (a JSON string) as one field, whatever it holds", () => {
    expect(parseSourcePath('"a: b"')).toEqual(["a: b"]);
    expect(parseSourcePath('"a.b"[0].c')).toEqual(["a.b", 0, "c"]);
    expect(parseSourcePath('x."Patient ID"."#c"')).toEqual(["x", "Patient ID", "#c"]);
    expect(parseSourcePath('"say \\"hi\\""')).toEqual(['say "hi"']);
    expect(headField('"a.b"[0].c')).toBe("a.b");
    expect(() => parseSourcePath('"a')).toThrow('malformed path ""a": a quoted name is not closed');
    expect(() => parseSourcePath('"a"b')).toThrow('malformed path ""a"b": expected "." at "b"');
    expect(() => parseSourcePath('""')).toThrow("a quoted name must be non-empty");
    expect(() => parseSourcePath('"__proto__"')).toThrow('"__proto__" cannot be used as a name');
  });
  it("parses target paths with soft indexes", () => {
    expect(parseTargetPath("identifier[+].value")).toEqual([
      { name: "identifier", index: "+" },
      { name: "value" },
    ]);
    expect(parseTargetPath("x[=]")).toEqual([{ name: "x", index: "=" }]);
    expect(() => parseTargetPath("x[1][2]")).toThrow('bad segment "x[1][2]"');
  });
  it("resolves soft indexes per array in declaration order", () => {
    const r = new SoftIndexResolver();
    expect(r.resolve("", parseTargetPath("name[+].given[+]"))).toEqual(["name", 0, "given", 0]);
    expect(r.resolve("", parseTargetPath("name[=].given[+]"))).toEqual(["name", 0, "given", 1]);
    expect(r.resolve("", parseTargetPath("name[+].given[+]"))).toEqual(["name", 1, "given", 0]);
    expect(r.resolve("", parseTargetPath("name[5]"))).toEqual(["name", 5]);
    expect(r.resolve("", parseTargetPath("name[+]"))).toEqual(["name", 6]);
  });
  it("setters create arrays and objects as the path says", () => {
    const out: Record<string, unknown> = {};
    expect(compileSetter(["a", 0, "b"])(out, 1)).toBe(true);
    expect(compileSetter(["a", 0, "c"])(out, 2)).toBe(true);
    expect(out).toEqual({ a: [{ b: 1, c: 2 }] });
    expect(compileSetter(["a", 0, "b", "x"])(out, 3)).toBe(false);
  });
});
