import { describe, expect, it } from "vitest";
import { locatedTransaction } from "../../../src/sinks/fhir-server/bundle-text.js";

const origin = (file: string, message: number) => `${file}#${message}`;
/** A located line as the HL7 v2 pipeline writes it (src/pipeline/hl7v2/stage.ts, `located`). */
const located = (file: string, message: number, bundle: unknown) =>
  `{"file":${JSON.stringify(file)},"message":${message},"bundle":${JSON.stringify(bundle)}}`;

describe("locatedTransaction", () => {
  it("takes each entry's text as it is written, escapes, nesting and numbers included", () => {
    const bundle = {
      resourceType: "Bundle",
      id: 'b "1"',
      type: "transaction",
      meta: { tag: [{ code: "]}{[" }] },
      entry: [
        {
          fullUrl: "urn:uuid:1",
          resource: { resourceType: "Patient", id: "1", name: [{ text: 'say "hi" \\ \u00e9 }' }], n: -1.5e3 },
          request: { method: "PUT", url: "Patient/1" },
        },
        {
          fullUrl: "urn:uuid:2",
          resource: { resourceType: "Encounter", active: true, x: null },
          request: { method: "POST", url: "Encounter", ifNoneExist: "identifier=a|b" },
        },
        { resource: { resourceType: "Basic" }, request: { method: "POST", url: "Basic" } },
      ],
    };
    const line = located('dir/"odd" \\ name.hl7', 7, bundle);
    const t = locatedTransaction(line, origin);
    expect(t.file).toBe('dir/"odd" \\ name.hl7');
    expect(t.message).toBe(7);
    expect(t.outgoing).toEqual({
      type: "transaction",
      id: 'b "1"',
      entries: bundle.entry.map((e) => JSON.stringify(e)),
      requests: ["PUT Patient/1", "POST Encounter", "POST Basic"],
      origins: Array(3).fill('dir/"odd" \\ name.hl7#7'),
      keys: ["Patient/1", "Encounter?identifier=a|b"],
    });
    expect(t.fullUrls).toEqual(["urn:uuid:1", "urn:uuid:2"]);
  });

  it("reads a Bundle without entries, and whitespace between tokens", () => {
    const t = locatedTransaction(
      ' { "file" : "f" , "message" : 2 , "bundle" : { "resourceType" : "Bundle" , "entry" : [ ] } } ',
      origin,
    );
    expect(t.outgoing).toEqual({ type: "transaction", entries: [], requests: [], origins: [], keys: [] });
  });

  it("throws a SyntaxError for a line of another shape, for the caller to parse it", () => {
    for (const line of [
      "",
      "[]",
      '{"file":"f","message":1}',
      '{"file":"f","message":1,"bundle":{"entry":[1]}}',
      '{"file":"f","message":1,"bundle":{"entry":[{"a":"unterminated}]}}',
      '{"file":"f","message":1,"bundle":{}} trailing',
    ]) {
      expect(() => locatedTransaction(line, origin), line).toThrow(SyntaxError);
    }
  });

  // Found by bundle-text.fuzz.test.ts: the scan only counted brackets in what it skipped, and took any run of
  // characters for a number or literal, so these were read, and their entries sent as they are.
  it("throws a SyntaxError for a line JSON.parse refuses, wherever its fault is", () => {
    const line = (bundle: string) => `{"file":"f","message":1,"bundle":${bundle}}`;
    for (const text of [
      line('{"entry":[{"resource":{"a":1]}]}'), // a bracket closing a brace
      line('{"entry":[{"resource":{"a" 1}}]}'), // no colon
      line('{"entry":[{"resource":{"a":1,}}]}'), // a trailing comma
      line('{"entry":[{"resource":{"active":tru}}]}'), // not a literal
      line('{"entry":[{"resource":{"n":01}}]}'), // not JSON numbers
      line('{"entry":[{"resource":{"n":1.}}]}'),
      line('{"entry":[{"resource":{"n":+1}}]}'),
      line('{"entry":[{"resource":{"n":.5}}]}'),
      line('{"entry":[{"resource":{"n":1e}}]}'),
      line('{"entry":[{"resource":{"n":-}}]}'),
      line('{"entry":[{"resource":{"text":"a\tb"}}]}'), // a raw control character in a string
      line('{"entry":[{"resource":{"text":"\\x"}}]}'), // not a JSON escape
      line('{"entry":[{"resource":{"text":"\\u12G4"}}]}'),
      line('{"entry":[{"resource\n":{}}]}'), // in a key
      line('{"entry":[]}\f'), // whitespace JSON does not allow
      line('{"entry":[\u000b]}'),
      line('{"entry":[]\u0000}'),
      '{"file":"f","message":0x10,"bundle":{}}', // Number() read these
      '{"file":"f","message":Infinity,"bundle":{}}',
      '{"file":"f","message":1_0,"bundle":{}}',
    ]) {
      expect(() => JSON.parse(text), text).toThrow(SyntaxError);
      expect(() => locatedTransaction(text, origin), text).toThrow(SyntaxError);
    }
  });

  // Also found by the fuzz test: each of these was read otherwise than the full parse reads it.
  it("leaves to the full parse a line it would read otherwise: a key it reads twice, a message that is no number", () => {
    for (const [text, error] of [
      // JSON.parse keeps the last; the scan took both entry arrays, both fullUrls, the first id and request
      // (and the last file, message and Bundle, as JSON.parse does: these throw too, for one rule).
      ['{"file":"f","message":1,"bundle":{"entry":[{}],"entry":[{}]}}', '"entry" twice in one object'],
      ['{"file":"f","message":1,"bundle":{"id":"a","id":1}}', '"id" twice in one object'],
      [
        '{"file":"f","message":1,"bundle":{"entry":[{"fullUrl":"a","fullUrl":"b"}]}}',
        '"fullUrl" twice in one object',
      ],
      [
        '{"file":"f","message":1,"bundle":{"entry":[{"request":{"method":"PUT","url":"A/1"},"request":null}]}}',
        '"request" twice in one object',
      ],
      ['{"file":"f","file":"g","message":1,"bundle":{}}', '"file" twice in one object'],
      ['{"file":"f","message":1,"message":2,"bundle":{}}', '"message" twice in one object'],
      ['{"file":"f","message":1,"bundle":{},"bundle":{}}', '"bundle" twice in one object'],
      // The scan made these NaN, and 9007199254740992 (parseJson: the bigint 9007199254740993).
      ['{"file":"f","message":"7","bundle":{}}', "expected a digit"],
      ['{"file":"f","message":null,"bundle":{}}', "expected a digit"],
      ['{"file":"f","message":9007199254740993,"bundle":{}}', "a message number beyond 2^53"],
    ]) {
      expect(() => JSON.parse(text as string), text).not.toThrow();
      expect(() => locatedTransaction(text as string, origin), text).toThrow(new SyntaxError(error));
    }
  });

  it("reads a request's integers beyond 2^53 as the full parse does (parseJson), not rounded", () => {
    const t = locatedTransaction(
      '{"file":"f","message":1,"bundle":{"entry":[{"request":{"method":"PUT","url":9007199254740993}}]}}',
      origin,
    );
    // JSON.parse made it "PUT 9007199254740992".
    expect(t.outgoing.requests).toEqual(["PUT 9007199254740993"]);
    expect(t.outgoing.keys).toEqual([9007199254740993n]);
  });

  it("reads keys written with escapes, JSON's whitespace and values nested deeper than the call stack", () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    const line =
      '\t{"fil\\u0065":"f\\u00e9\\/\\uD83D\\uDE00","message":-0,\r\n"bundle":{"\\u0069d":"b","entr\\u0079":' +
      `[{"r\\u0065quest":{"method":"POST","url":"A"},"resource":{"x":${deep}},"full\\u0055rl":"u"}]}} `;
    const t = locatedTransaction(line, origin);
    expect(t.file).toBe("f\u00e9/\u{1F600}");
    expect(Object.is(t.message, -0)).toBe(true);
    expect(t.outgoing).toEqual({
      type: "transaction",
      id: "b",
      entries: [`{"r\\u0065quest":{"method":"POST","url":"A"},"resource":{"x":${deep}},"full\\u0055rl":"u"}`],
      requests: ["POST A"],
      origins: ["f\u00e9/\u{1F600}#0"],
      keys: [],
    });
    expect(t.fullUrls).toEqual(["u"]);
  });
});
