// Reads OMOP-style table exports (header row, comma or tab, empty cell = absent) with papaparse, in
// batches of records, keeping each row's line number.
import type { Readable } from "node:stream";
import Papa from "papaparse";
import type { SourceRecord } from "../crossmap/types.js";
import type { ParsedRecord, RecordsBatch } from "./types.js";

export interface CsvBatchOptions {
  file: string;
  entity: string | undefined;
  batchRecords: number;
}

const INTEGER = /^-?(?:0|[1-9]\d*)$/;
const DECIMAL = /^-?(?:0|[1-9]\d*)\.\d*[1-9]$/;

/**
 * A cell as a JSON value: canonical integers become numbers (bigint beyond 2^53) and canonical decimals
 * numbers, so CSV and NDJSON inputs reach the crossmap alike; anything whose text a number would not
 * reproduce exactly ("007", "1.50", "1e3", dates) stays a string.
 */
export function cellValue(cell: string): unknown {
  if (INTEGER.test(cell)) {
    const n = Number(cell);
    return Number.isSafeInteger(n) ? n : BigInt(cell);
  }
  if (DECIMAL.test(cell)) {
    const n = Number(cell);
    if (String(n) === cell) return n;
  }
  return cell;
}

export async function* csvBatches(input: Readable, options: CsvBatchOptions): AsyncGenerator<RecordsBatch> {
  const { file, entity, batchRecords } = options;
  const rows = input.pipe(
    Papa.parse(Papa.NODE_STREAM_INPUT, {
      header: true,
      // Blank lines come through as empty rows, so that line numbers stay true; they are dropped below.
      skipEmptyLines: false,
      delimitersToGuess: [",", "\t"],
    }),
  );
  let records: ParsedRecord[] = [];
  // Line 1 is the header; quoted cells that span lines move the next row down.
  let nextLine = 2;
  for await (const row of rows as AsyncIterable<Record<string, string | string[] | undefined>>) {
    const line = nextLine;
    nextLine++;
    const record: SourceRecord = {};
    let problem: string | undefined;
    for (const key in row) {
      const cell = row[key];
      if (key === "__parsed_extra") {
        problem = `the row has ${(cell as string[]).length} more cell(s) than the header`;
      } else if (typeof cell === "string" && cell !== "") {
        record[key] = cellValue(cell);
        if (cell.includes("\n")) nextLine += cell.split("\n").length - 1;
      }
    }
    if (problem === undefined && isEmptyRow(row)) continue;
    const parsed: ParsedRecord = { record, line };
    if (problem !== undefined) parsed.problem = problem;
    records.push(parsed);
    if (records.length >= batchRecords) {
      yield { kind: "records", file, entity, records };
      records = [];
    }
  }
  if (records.length > 0) yield { kind: "records", file, entity, records };
}

function isEmptyRow(row: Record<string, unknown>): boolean {
  for (const key in row) {
    const cell = row[key];
    if (typeof cell === "string" && cell.trim() !== "") return false;
  }
  return true;
}
