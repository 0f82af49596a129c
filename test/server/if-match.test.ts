import { expect, it } from "vitest";
import { checkIfMatch, etagOf, type IfMatch, parseIfMatch } from "../../src/server/if-match.js";

const parsed = (header: string | undefined): IfMatch => {
  const r = parseIfMatch(header);
  if (r !== undefined && "problem" in r) throw new Error(r.problem.message);
  return r;
};

it("accepts absent, *, the current version in any common spelling, and lists", () => {
  expect(etagOf(7)).toBe('"7"');
  for (const header of [undefined, "", "*", '"7"', "7", 'W/"7"', '"3", "7"']) {
    expect(() => checkIfMatch(parsed(header), 7, "Item x")).not.toThrow();
  }
});

it("refuses a stale tag, or a well-formed tag that is no version of ours, with 412", () => {
  for (const header of ['"6"', '"abc"', '"8", "9"']) {
    expect(() => checkIfMatch(parsed(header), 7, "Item x")).toThrow(
      expect.objectContaining({
        status: 412,
        message: `Item x is at version 7; If-Match ${header} is stale, fetch the item and review again`,
      }),
    );
  }
});

it("a header that is not entity tags at all is a 422 entry, not a stale version", () => {
  for (const header of ["banana", '"7', '7"', "W/7", '"7", banana', '"a"b"']) {
    expect(parseIfMatch(header)).toEqual({
      problem: {
        path: ["header", "if-match"],
        message: `If-Match must be * or entity tags such as "3" (the item's version, as its ETag shows it); got ${JSON.stringify(header)}`,
        code: "value_error.if_match",
      },
    });
  }
});
