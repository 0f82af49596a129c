import { afterEach, describe, expect, it, vi } from "vitest";
import { CsvRows, delimiterOf } from "../../src/pipeline/csv-rows.js";

afterEach(() => vi.restoreAllMocks());

describe("CsvRows", () => {
  it("looks for quotes once per piece, not once per row to the end of the piece (a quote-free export is read in linear time)", () => {
    const row = "1000000000000,1,201826,2020-01-01,2020-01-01 10:11:12.5,,,32817,0,,,3,,E11.1,0,\n";
    const text = `a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p\n${row.repeat(2000)}`;
    let scanned = 0;
    const indexOf = String.prototype.indexOf;
    vi.spyOn(String.prototype, "indexOf").mockImplementation(function (
      this: string,
      s: string,
      from?: number,
    ) {
      if (s === '"') scanned += this.length - (from ?? 0);
      return indexOf.call(this, s, from);
    });
    const rows = new CsvRows({ maxRecordChars: 1 << 20, limitLabel: "1M" }).push(text);
    vi.restoreAllMocks();
    expect(rows).toHaveLength(2001);
    expect(rows[2000]?.cells[0]).toBe("1000000000000");
    // Once per piece: the whole text. Before, every row searched to its end: ~2000 x 80,000 characters.
    expect(scanned).toBeLessThanOrEqual(text.length);
  });

  it("still finds quotes after quote-free rows, and quote-free rows after quoted ones", () => {
    const r = new CsvRows({ maxRecordChars: 1 << 20, limitLabel: "1M" });
    const rows = r.push('a,b\n1,2\n3,"x,y"\n4,5\n"6\n7",8\n9,10\n');
    expect(rows.map((x) => x.cells)).toEqual([
      ["a", "b"],
      ["1", "2"],
      ["3", "x,y"],
      ["4", "5"],
      ["6\n7", "8"],
      ["9", "10"],
    ]);
  });
});

describe("delimiterOf", () => {
  it("tells comma, tab, pipe and semicolon exports by their header line", () => {
    const read = (text: string) => new CsvRows({ maxRecordChars: 1 << 20, limitLabel: "1M" }).push(text);
    for (const d of [",", "\t", "|", ";"]) {
      expect(read(`person_id${d}year_of_birth\n1${d}1970\n`).map((r) => r.cells)).toEqual([
        ["person_id", "year_of_birth"],
        ["1", "1970"],
      ]);
    }
    // A pipe inside a comma-separated row is text.
    expect(read("a,b,c\n1,x|y,2\n")[1]?.cells).toEqual(["1", "x|y", "2"]);
    expect(delimiterOf("a")).toBe(0x2c);
  });
});
