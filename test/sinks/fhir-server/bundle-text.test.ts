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
});
