import { describe, expect, it } from "vitest";
import { looksLikeCsvHeader } from "../../src/pipeline/sniff.js";

describe("looksLikeCsvHeader", () => {
  it("knows a header row by any delimiter the CSV reader reads", () => {
    for (const d of [",", "\t", "|", ";"])
      expect(looksLikeCsvHeader(`person_id${d}year_of_birth`)).toBe(true);
    expect(looksLikeCsvHeader('{"person_id": 1}')).toBe(false);
  });
});
