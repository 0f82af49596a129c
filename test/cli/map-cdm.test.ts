// The OMOP CDM sinks' lines for stderr: the progress note on a terminal and the per-table summary.
import { describe, expect, it } from "vitest";
import { formatTables, rowsNote } from "../../src/cli/map-cdm.js";
import type { LoadedTable } from "../../src/sinks/cdm/db-sink.js";

const table = (name: string, committed: number, duplicates: number): LoadedTable => ({
  table: name,
  written: committed,
  committed,
  duplicates,
  conflicting: 0,
  rejected: 0,
});

describe("map --db progress note", () => {
  it("counts rows committed over every table, and copies left out only when there are some", () => {
    expect(rowsNote([])).toBe("0 rows written");
    expect(rowsNote([table("person", 1200, 0), table("visit_occurrence", 11345, 0)])).toBe(
      "12,545 rows written",
    );
    expect(rowsNote([table("person", 6, 0), table("care_site", 40, 1003)])).toBe(
      "46 rows written, 1,003 copies left out",
    );
  });

  it("summary lines name each table", () => {
    expect(formatTables([table("person", 6, 2)], "into cdm.duckdb")).toEqual([
      "crossmap map: rows into cdm.duckdb: 6 written, 2 copies of rows already written left out",
      "table     written     copies  conflicts   rejected",
      "person          6          2          0          0",
    ]);
  });
});
