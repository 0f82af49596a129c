// Reading a mapping file to import (Usagi's export, or a SOURCE_TO_CONCEPT_MAP table): CSV rows with
// the line each starts on, so that every bad row is reported as file:line and the others still count.
// The rows are cut by the same reader, with the same rules, as `crossmap map` reads CSV input: a quote left
// open is reported on its line and the lines after it are read again; rows with more or fewer cells than
// the header, and bytes that are not UTF-8, are reported, never read as something else.
import { CsvRows } from "../pipeline/csv-rows.js";
import { decodeMarked, markedBytes } from "../pipeline/utf8.js";

export interface CsvRow {
  /** Column name (as in the header, trimmed) -> field. */
  fields: Record<string, string>;
  /** 1-based line the row starts on. */
  line: number;
}

export interface CsvTable {
  columns: string[];
  rows: CsvRow[];
  /** Rows that could not be read (a quote left open, a wrong number of cells, bytes that are not UTF-8). */
  broken: { line: number; message: string }[];
}

/** Longest row read, in characters: far beyond any row of valid fields (see item-fields.ts). */
export const MAX_ROW_CHARS = 1_048_576;

/**
 * Parses CSV (comma, tab, pipe or semicolon, RFC 4180 quoting, any line ending, an optional BOM). Bytes are checked as
 * UTF-8; text (already decoded) is taken as it is.
 */
export function readCsv(input: Uint8Array | string): CsvTable {
  const { text: decoded, marked } =
    typeof input === "string" ? { text: input, marked: false } : decodeMarked(input);
  const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
  const reader = new CsvRows({ maxRecordChars: MAX_ROW_CHARS, limitLabel: `${MAX_ROW_CHARS} characters` });
  const cut = [...reader.push(text), ...reader.end()];
  let columns: string[] | undefined;
  const rows: CsvRow[] = [];
  const broken: CsvTable["broken"] = [];
  for (const row of cut) {
    if (row.problem) {
      broken.push({ line: row.line, message: row.problem.message });
      continue;
    }
    if (columns === undefined) {
      columns = row.cells.map((c) => c.trim());
      const bad = marked ? columns.find((c) => markedBytes(c) !== undefined) : undefined;
      if (bad !== undefined) {
        broken.push({
          line: row.line,
          message: `invalid UTF-8 (${markedBytes(bad)}) in the header; the columns named with it are not read (the file must be UTF-8)`,
        });
      }
      continue;
    }
    const cells = row.cells;
    if (cells.every((c) => c.trim() === "")) continue;
    if (cells.length > columns.length) {
      broken.push({
        line: row.line,
        message: `the row has ${cells.length - columns.length} more cell(s) than the header; it is not read`,
      });
      continue;
    }
    if (cells.length < columns.length) {
      broken.push({
        line: row.line,
        message: `the row has ${cells.length} cell(s), the header ${columns.length}; it is not read`,
      });
      continue;
    }
    const fields: Record<string, string> = {};
    let invalid: string | undefined;
    for (let k = 0; k < columns.length; k++) {
      const cell = cells[k]!;
      const bytes = marked && invalid === undefined ? markedBytes(cell) : undefined;
      if (bytes !== undefined) invalid = `invalid UTF-8 (${bytes}) in column ${columns[k]}`;
      fields[columns[k]!] = cell;
    }
    if (invalid !== undefined) {
      broken.push({ line: row.line, message: `${invalid}; the row is not read (the file must be UTF-8)` });
      continue;
    }
    rows.push({ fields, line: row.line });
  }
  return { columns: columns ?? [], rows, broken };
}
