// Reading a mapping file to import (Usagi's export, or a SOURCE_TO_CONCEPT_MAP table): CSV rows with
// the line each starts on, so that every bad row is reported as file:line and the others still count.
import Papa from "papaparse";

export interface CsvRow {
  /** Column name (as in the header, trimmed) -> field. */
  fields: Record<string, string>;
  /** 1-based line the row starts on. */
  line: number;
}

export interface CsvTable {
  columns: string[];
  rows: CsvRow[];
  /** Rows the CSV parser itself could not read (e.g. an unterminated quote). */
  broken: { line: number; message: string }[];
}

/** Parses CSV text (comma, RFC 4180 quoting, any line ending, an optional BOM). */
export function readCsv(text: string): CsvTable {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const parsed = Papa.parse<string[]>(body, { delimiter: ",", quoteChar: '"', skipEmptyLines: false });
  const badRows = new Map<number, string>();
  for (const e of parsed.errors) if (typeof e.row === "number") badRows.set(e.row, e.message);
  const columns = (parsed.data[0] ?? []).map((c) => c.trim());
  const rows: CsvRow[] = [];
  const broken: CsvTable["broken"] = [];
  let line = 1;
  for (let i = 0; i < parsed.data.length; i++) {
    const values = parsed.data[i]!;
    const start = line;
    // A quoted field may span lines: the next row starts after them.
    for (const v of values) for (let at = v.indexOf("\n"); at >= 0; at = v.indexOf("\n", at + 1)) line++;
    line++;
    if (i === 0 || (values.length === 1 && values[0] === "")) continue;
    const bad = badRows.get(i);
    if (bad !== undefined) {
      broken.push({ line: start, message: bad });
      continue;
    }
    const fields: Record<string, string> = {};
    columns.forEach((c, k) => {
      fields[c] = values[k] ?? "";
    });
    rows.push({ fields, line: start });
  }
  return { columns, rows, broken };
}
