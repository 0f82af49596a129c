import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { cellValue, csvBatches } from "../../src/pipeline/csv.js";
import type { ParsedRecord } from "../../src/pipeline/types.js";

async function rows(text: string, batchRecords = 100): Promise<ParsedRecord[][]> {
  const out: ParsedRecord[][] = [];
  for await (const b of csvBatches(Readable.from([text]), {
    file: "t.csv",
    entity: "person",
    batchRecords,
  })) {
    out.push(b.records);
  }
  return out;
}

describe("cellValue", () => {
  it("turns canonical numbers into numbers and keeps every other text as it is", () => {
    expect(cellValue("8507")).toBe(8507);
    expect(cellValue("-3")).toBe(-3);
    expect(cellValue("1741351032930224901")).toBe(1741351032930224901n);
    expect(cellValue("1.5")).toBe(1.5);
    for (const s of ["007", "1.50", "1e3", "1998-04-09", "+1", "1.", " 1", "0.10000000000000000001"]) {
      expect(cellValue(s)).toBe(s);
    }
  });
});

describe("csvBatches", () => {
  it("reads a comma-separated OMOP table: empty cells are absent, lines are counted from the header", async () => {
    const text =
      "person_id,gender_concept_id,birth_datetime,location_id\n1,8507,1998-04-09 00:00:00,\n\n1741351032930224901,8532,,3\n";
    expect(await rows(text)).toEqual([
      [
        { record: { person_id: 1, gender_concept_id: 8507, birth_datetime: "1998-04-09 00:00:00" }, line: 2 },
        { record: { person_id: 1741351032930224901n, gender_concept_id: 8532, location_id: 3 }, line: 4 },
      ],
    ]);
  });

  it("reads tab-separated files, keeps quoted newlines in line counts and flags rows with extra cells", async () => {
    const text = 'a\tb\n"x\ny"\t2\n3\t4\t5\n6\t7';
    const batches = await rows(text, 2);
    expect(batches).toEqual([
      [
        { record: { a: "x\ny", b: 2 }, line: 2 },
        { record: { a: 3, b: 4 }, line: 4, problem: "the row has 1 more cell(s) than the header" },
      ],
      [{ record: { a: 6, b: 7 }, line: 5 }],
    ]);
  });
});
