// The JSON walker under the located-line scanner: where each value ends, and a SyntaxError naming what is
// wrong wherever JSON.parse would throw.
import { describe, expect, it } from "vitest";
import { JsonScan } from "../../../src/sinks/fhir-server/json-scan.js";

const end = (text: string, at = 0) => new JsonScan(text).valueEnd(at);
const error = (text: string) => {
  try {
    end(text);
  } catch (err) {
    return err instanceof SyntaxError ? err.message : `not a SyntaxError: ${String(err)}`;
  }
  return "no error";
};

describe("JsonScan.valueEnd", () => {
  it("ends each kind of value where JSON.parse would, leaving what follows", () => {
    for (const v of [
      '"a\\"b\\\\"',
      '"\\u00e9\\uD83D\\uDE00\\/\\b\\f\\n\\r\\t"',
      "0",
      "-0",
      "-12.5e+3",
      "1E-3",
      "true",
      "false",
      "null",
      "{}",
      "[]",
      '{ "a" : [ 1 , { "b" : "}" } ] , "c" : null }',
      '[[[]],{"":{"":[]}}]',
    ]) {
      expect(end(`${v},"rest"`), v).toBe(v.length);
      expect(() => JSON.parse(v), v).not.toThrow();
    }
  });

  it("names what is wrong wherever JSON.parse throws", () => {
    expect(error("01")).toBe("no error"); // the value is 0; what follows is for the caller to judge
    expect(end("01")).toBe(1);
    expect(error("1.")).toBe("expected a digit");
    expect(error("-")).toBe("expected a digit");
    expect(error("1e")).toBe("expected a digit");
    expect(error("tru")).toBe("expected a value");
    expect(error("+1")).toBe("expected a value");
    expect(error('"a')).toBe("unterminated string");
    expect(error('"a\tb"')).toBe("a control character in a string");
    expect(error('"\\x"')).toBe("a bad escape");
    expect(error('"\\u12G4"')).toBe("a bad \\u escape");
    expect(error('{"a" 1}')).toBe("expected :");
    expect(error('{"a":1]')).toBe("expected , or the end of an object or array");
    expect(error("[1,]")).toBe("expected a value");
    expect(error("{a:1}")).toBe("expected a string");
    expect(error("[1\f]")).toBe("expected , or the end of an object or array");
  });

  it("walks nesting far deeper than the call stack allows", () => {
    const depth = 200_000;
    const text = `${"[".repeat(depth)}${"]".repeat(depth)}`;
    expect(end(text)).toBe(text.length);
    expect(() => end(`${"[".repeat(depth)}${"]".repeat(depth - 1)}`)).toThrow(SyntaxError);
  });
});

describe("JsonScan.members", () => {
  it("gives each key, escapes decoded, and where its value starts", () => {
    const text = '{ "a" : 1 , "b\\u0063" :\t"x" }';
    const scan = new JsonScan(text);
    const seen: [string, string][] = [];
    const e = scan.members(0, (key, at) => {
      const valueEnd = scan.valueEnd(at);
      seen.push([key, text.slice(at, valueEnd)]);
      return valueEnd;
    });
    expect(e).toBe(text.length);
    expect(seen).toEqual([
      ["a", "1"],
      ["bc", '"x"'],
    ]);
  });
});
