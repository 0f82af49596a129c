import { describe, expect, it } from "vitest";
import { jsonSyntaxMessage, parseJson, stringifyJson } from "../../src/pipeline/json.js";

describe("parseJson", () => {
  it("keeps integers beyond 2^53 digit for digit, as bigint", () => {
    const v = parseJson(
      '{"person_id": 1741351032930224901, "n": -9223372036854775808, "ok": 9007199254740991}',
    );
    expect(v).toEqual({ person_id: 1741351032930224901n, n: -9223372036854775808n, ok: 9007199254740991 });
  });

  it("leaves long digit runs inside strings, decimals and exponents alone", () => {
    const text =
      '{"code": "1741351032930224901", "x": 12345678901234567.5, "e": 1234567890123456789e2, "a": [1, "\\u00e9\\"", null, true, false, {}]}';
    expect(parseJson(text)).toEqual(JSON.parse(text));
  });

  it("reads escaped keys exactly after a key holding a backslash (V8's key cache in Node 24, nodejs/node#63785)", () => {
    // On Node 24 JSON.parse itself gives `\\` for the second and third keys after the first object; Node 20
    // and 22 read them right, and parseJson must on every version.
    expect(Object.keys(parseJson('{"h": [], "\\\\": 0}') as object)).toEqual(["h", "\\"]);
    expect(Object.keys(parseJson('{"h": 1, "\\"": 2}') as object)).toEqual(["h", '"']);
    expect(Object.keys(parseJson('{"h": 1, "\\/": 2}') as object)).toEqual(["h", "/"]);
    expect(parseJson('{"h": 1, "\\u002c": 12345678901234567890}')).toEqual({
      h: 1,
      ",": 12345678901234567890n,
    });
  });

  it("rejects what JSON.parse rejects, on both paths", () => {
    expect(() => parseJson('{"a": 1,}')).toThrow(SyntaxError);
    expect(() => parseJson('{"a": 12345678901234567890,}')).toThrow(SyntaxError);
    expect(() => parseJson('{"a": 12345678901234567890} x')).toThrow(
      "Unexpected non-whitespace character after JSON at position 28",
    );
    expect(() => parseJson('{"a": 012345678901234567890}')).toThrow(SyntaxError);
    expect(() => parseJson('{"a": "12345678901234567890')).toThrow(
      "Unterminated string in JSON at position 27",
    );
  });

  it("treats __proto__ as an ordinary key, as JSON.parse does", () => {
    const v = parseJson('{"__proto__": {"x": 1}, "id": 12345678901234567890}') as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(["__proto__", "id"]);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe("jsonSyntaxMessage", () => {
  it("says the same on every Node version: Node 22's line and column within the text are dropped", () => {
    const node20 = new SyntaxError("Expected ',' or '}' after property value in JSON at position 74");
    const node22 = new SyntaxError(
      "Expected ',' or '}' after property value in JSON at position 74 (line 1 column 75)",
    );
    expect(jsonSyntaxMessage(node22)).toBe(node20.message);
    expect(jsonSyntaxMessage(node20)).toBe(node20.message);
    expect(jsonSyntaxMessage(new SyntaxError("Unexpected end of JSON input"))).toBe(
      "Unexpected end of JSON input",
    );
  });

  it("names the line and column of a multi-line document, counted from its text", () => {
    const text = '{\n  "a": 1,\n  "b": 2 "c"\n}';
    let err: unknown;
    try {
      JSON.parse(text);
    } catch (e) {
      err = e;
    }
    expect(jsonSyntaxMessage(err, text)).toBe(
      "Expected ',' or '}' after property value in JSON at position 21 (line 3 column 10)",
    );
    expect(jsonSyntaxMessage(err, '{"a": 1 "b": 2}')).toBe(jsonSyntaxMessage(err));
  });
});

describe("stringifyJson", () => {
  it("writes bigint as bare digits, nested anywhere", () => {
    expect(
      stringifyJson({ id: "1", n: 1741351032930224901n, a: [1n, undefined, { b: 2n }], u: undefined }),
    ).toBe('{"id":"1","n":1741351032930224901,"a":[1,null,{"b":2}]}');
  });

  it("round-trips a big integer through parse and stringify", () => {
    const line = '{"person_id":1741351032930224901,"year":1998}';
    expect(stringifyJson(parseJson(line))).toBe(line);
  });
});
