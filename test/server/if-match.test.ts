import { expect, it } from "vitest";
import { checkIfMatch, etagOf, parseIfMatch } from "../../src/server/if-match.js";

it("accepts absent, *, the current version in any common spelling, and lists", () => {
  expect(etagOf(7)).toBe('"7"');
  for (const header of [undefined, "", "*", '"7"', "7", 'W/"7"', '"3", "7"']) {
    expect(() => checkIfMatch(parseIfMatch(header), 7, "Item x")).not.toThrow();
  }
});

it("refuses a stale or unparseable tag with 412", () => {
  for (const header of ['"6"', '"abc"', '"8", "9"']) {
    expect(() => checkIfMatch(parseIfMatch(header), 7, "Item x")).toThrow(
      expect.objectContaining({
        status: 412,
        message: `Item x is at version 7; If-Match ${header} is stale, fetch the item and review again`,
      }),
    );
  }
});
