import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { cellValue, csvBatches, headerInFieldCase } from "../../src/pipeline/csv.js";
import type { ParsedRecord } from "../../src/pipeline/types.js";

async function rows(
  text: string | Buffer | (string | Buffer)[],
  batchRecords = 100,
  maxRecordChars = 1 << 20,
  failed?: () => boolean,
): Promise<ParsedRecord[][]> {
  const out: ParsedRecord[][] = [];
  const chunks = (Array.isArray(text) ? text : [text]).map((c) =>
    typeof c === "string" ? Buffer.from(c) : c,
  );
  for await (const b of csvBatches(Readable.from(chunks), {
    file: "t.csv",
    entity: "person",
    batchRecords,
    maxRecordChars,
    limitLabel: "L",
    ...(failed ? { failed } : {}),
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
  it("refuses the last row of an input that ended in an error when no line end closed it: it may be cut short", async () => {
    const text = "person_id,year_of_birth\n1,1970\n2,19";
    expect((await rows(text, 100, 1 << 20, () => true)).flat()).toEqual([
      { record: { person_id: 1, year_of_birth: 1970 }, line: 2 },
      {
        record: {},
        line: 3,
        problem:
          "the input ended in an error inside this row (no line end closed it): it may be cut short, so it is not read",
        problemCode: "cut_short",
      },
    ]);
    // Closed by its line end, it is whole; an input that ended well keeps its last row either way.
    expect((await rows(`${text}70\n`, 100, 1 << 20, () => true)).flat().at(-1)).toEqual({
      record: { person_id: 2, year_of_birth: 1970 },
      line: 3,
    });
    expect((await rows(text, 100, 1 << 20, () => false)).flat().at(-1)).toEqual({
      record: { person_id: 2, year_of_birth: 19 },
      line: 3,
    });
  });
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

  it("reports a quote left open at the line it opened on, and reads the rows after it again", async () => {
    const text =
      'person_id,gender_concept_id,person_source_value\n1,8507,"abc\n2,8532,def\n3,8507,ghi\n4,8532,jkl\n';
    expect(await rows(text)).toEqual([
      [
        {
          record: {},
          line: 2,
          problem:
            "the quote that opens a cell on line 2 is not closed where its row should end; that row is not read, and the lines after line 2 are read again",
          problemCode: "unterminated_quote",
        },
        { record: { person_id: 2, gender_concept_id: 8532, person_source_value: "def" }, line: 3 },
        { record: { person_id: 3, gender_concept_id: 8507, person_source_value: "ghi" }, line: 4 },
        { record: { person_id: 4, gender_concept_id: 8532, person_source_value: "jkl" }, line: 5 },
      ],
    ]);
  });

  it("takes a quote that closes lines later, leaving its row with the wrong cells, as left open", async () => {
    // Row 2's quote would run to row 4's `"z"`, taking in a stray quote on the way.
    const text = 'a,b,c\n1,"x,2\n2,y,3\n3,"z",4\n';
    expect(await rows(text)).toEqual([
      [
        expect.objectContaining({ line: 2, problemCode: "unterminated_quote" }),
        { record: { a: 2, b: "y", c: 3 }, line: 3 },
        { record: { a: 3, b: "z", c: 4 }, line: 4 },
      ],
    ]);
  });

  it("keeps quoted cells with line breaks, doubled quotes and delimiters, across reads and CRLF", async () => {
    const text = ['a,b,c\r\n1,"say ""hi"",\r\nthen', ' go",x\r\n2,', '"",y\r\n'];
    expect(await rows(text)).toEqual([
      [
        { record: { a: 1, b: 'say "hi",\r\nthen go', c: "x" }, line: 2 },
        { record: { a: 2, c: "y" }, line: 4 },
      ],
    ]);
  });

  it("reports a row with fewer cells than the header, and skips blank rows", async () => {
    expect(await rows("a,b,c\n1,2\n\n,,\n4,5,6\n")).toEqual([
      [
        { record: { a: 1, b: 2 }, line: 2, problem: "the row has 2 cell(s), the header 3" },
        { record: { a: 4, b: 5, c: 6 }, line: 5 },
      ],
    ]);
  });

  it("reports a row that is not UTF-8, and reads the rows around it", async () => {
    const bad = Buffer.concat([Buffer.from("a,b\n1,x\n2,caf"), Buffer.from([0xe9]), Buffer.from("\n3,z\n")]);
    expect(await rows(bad)).toEqual([
      [
        { record: { a: 1, b: "x" }, line: 2 },
        {
          record: {},
          line: 3,
          problem: "invalid UTF-8 (0xe9) in the row; the record is not read (the input must be UTF-8)",
          problemCode: "invalid_utf8",
        },
        { record: { a: 3, b: "z" }, line: 4 },
      ],
    ]);
  });

  it("reports a header that is not UTF-8, once", async () => {
    const bad = Buffer.concat([Buffer.from("a,caf"), Buffer.from([0xe9]), Buffer.from("\n1,2\n")]);
    expect(await rows(bad)).toEqual([
      [
        {
          record: {},
          line: 1,
          problem:
            "invalid UTF-8 (0xe9) in the header row; the columns named with it are not read (the input must be UTF-8)",
          problemCode: "invalid_utf8",
        },
        { record: { a: 1, "caf\ufffd": 2 }, line: 2 },
      ],
    ]);
  });

  it("reports a row over the per-record limit and goes on", async () => {
    const long = "x".repeat(50);
    expect(
      await rows(["a,b\n1,", long.slice(0, 30), `${long.slice(30)}\n2,y\n3,"${long}"\n4,z\n`], 100, 20),
    ).toEqual([
      [
        {
          record: {},
          line: 2,
          problem: "the row is 52 characters long, over the limit of L per record; it is not read",
          problemCode: "record_too_large",
        },
        { record: { a: 2, b: "y" }, line: 3 },
        {
          record: {},
          line: 4,
          problem: "the row is 54 characters long, over the limit of L per record; it is not read",
          problemCode: "record_too_large",
        },
        { record: { a: 4, b: "z" }, line: 5 },
      ],
    ]);
  });
});

describe("headerInFieldCase", () => {
  const read = new Set(["person_id", "year_of_birth"]);

  it("reads upper-case header names (Oracle, Snowflake exports) as the fields the crossmap reads", async () => {
    expect(headerInFieldCase(["PERSON_ID", "Year_Of_Birth", "SITE_X"], read)).toEqual([
      "person_id",
      "year_of_birth",
      "SITE_X",
    ]);
    const batches = csvBatches(Readable.from([Buffer.from("PERSON_ID,YEAR_OF_BIRTH\n1,1970\n")]), {
      file: "PERSON.csv",
      entity: "person",
      batchRecords: 10,
      maxRecordChars: 1 << 20,
      limitLabel: "L",
      readFields: read,
    });
    const out: unknown[] = [];
    for await (const b of batches) out.push(...b.records.map((r) => r.record));
    expect(out).toEqual([{ person_id: 1, year_of_birth: 1970 }]);
  });

  it("reads header names without the spaces around them (`person_id, year_of_birth`)", async () => {
    const batches = csvBatches(Readable.from([Buffer.from("person_id, year_of_birth \n1,1970\n")]), {
      file: "person.csv",
      entity: "person",
      batchRecords: 10,
      maxRecordChars: 1 << 20,
      limitLabel: "L",
    });
    const out: unknown[] = [];
    for await (const b of batches) out.push(...b.records.map((r) => r.record));
    expect(out).toEqual([{ person_id: 1, year_of_birth: 1970 }]);
  });

  it("keeps a name when the field's own spelling is in the header too, or when fields differ only in case", () => {
    expect(headerInFieldCase(["person_id", "PERSON_ID"], read)).toEqual(["person_id", "PERSON_ID"]);
    expect(headerInFieldCase(["ID"], new Set(["id", "Id"]))).toEqual(["ID"]);
    expect(headerInFieldCase(["PERSON_ID"], undefined)).toEqual(["PERSON_ID"]);
  });
});

describe("csvBatches nulls (--null)", () => {
  it("reads cells holding exactly a null text (\\N, NULL) as absent, as empty ones are", async () => {
    const batches = csvBatches(
      Readable.from([Buffer.from("person_id,a,b\n1,\\N,NULL\n2,NULLS,x\n\\N,\\N,NULL\n")]),
      {
        file: "PERSON.csv",
        entity: "person",
        batchRecords: 10,
        maxRecordChars: 1 << 20,
        limitLabel: "L",
        nulls: new Set(["\\N", "NULL"]),
      },
    );
    const out: unknown[] = [];
    for await (const b of batches) out.push(...b.records.map((r) => r.record));
    // A row of nulls only is skipped as a blank one is.
    expect(out).toEqual([{ person_id: 1 }, { person_id: 2, a: "NULLS", b: "x" }]);
  });
});
