// Reads OMOP-style table exports (header row, comma, tab, pipe or semicolon, empty cell = absent) in
// batches of records, keeping each row's line number. Rows it cannot read whole (a quote left open, a
// row with more or fewer cells than the header, invalid UTF-8, a row over the per-record limit) are
// issues; the rows around them are read as usual.
import type { SourceRecord } from "../crossmap/types.js";
import { CsvRows } from "./csv-rows.js";
import type { ParsedRecord, RecordsBatch } from "./types.js";
import { type DecodedChunk, Utf8Stream, utf8Message } from "./utf8.js";

export interface CsvBatchOptions {
  file: string;
  entity: string | undefined;
  batchRecords: number;
  /** Rows longer than this (in characters) are issues, not records. */
  maxRecordChars: number;
  limitLabel: string;
  /**
   * Asked once the input has ended: true when it ended in an error (corrupt gzip, a read error). Its last
   * row, if no line end closed it, may be cut short ("1,8507,19" of "1,8507,1970"): it is an issue.
   */
  failed?: () => boolean;
  /** The fields the crossmap reads of `entity`: header names spelled in another case are read as them. */
  readFields?: ReadonlySet<string> | undefined;
  /** Cells holding exactly one of these texts (`\N`, `NULL`) are absent, as empty ones are. */
  nulls?: ReadonlySet<string>;
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

/**
 * The header with each name the crossmap does not read, but one of its fields in another case, spelled as
 * that field: databases fold unquoted names (Oracle and Snowflake export PERSON_ID, SQL Server keeps how
 * the DDL wrote it), so a column is the same whatever its case. A name is kept as it is when a field is
 * spelled so already, when two fields differ only in case, or when the header has the field's own
 * spelling too.
 */
export function headerInFieldCase(header: string[], read: ReadonlySet<string> | undefined): string[] {
  if (read === undefined || header.every((name) => read.has(name))) return header;
  const byLower = new Map<string, string | null>();
  for (const field of read) {
    const lower = field.toLowerCase();
    byLower.set(lower, byLower.has(lower) ? null : field);
  }
  const given = new Set(header);
  return header.map((name) => {
    if (read.has(name)) return name;
    const field = byLower.get(name.toLowerCase());
    return field && !given.has(field) ? field : name;
  });
}

export async function* csvBatches(
  input: AsyncIterable<Uint8Array>,
  options: CsvBatchOptions,
): AsyncGenerator<RecordsBatch> {
  const { file, entity, batchRecords, nulls } = options;
  const rows = new CsvRows({ maxRecordChars: options.maxRecordChars, limitLabel: options.limitLabel });
  const utf8 = new Utf8Stream();
  /** Text offsets (in the whole input) of bytes that were not UTF-8, not yet matched to a row. */
  let faults: { at: number; message: string }[] = [];
  let offset = 0;
  let first = true;
  let header: string[] | undefined;
  let records: ParsedRecord[] = [];
  const ready: ParsedRecord[][] = [];

  const take = (decoded: DecodedChunk): string => {
    let text = decoded.text;
    let shift = 0;
    if (first && text.length > 0) {
      first = false;
      if (text.charCodeAt(0) === 0xfeff) {
        text = text.slice(1);
        shift = 1;
      }
    }
    for (const f of decoded.faults) faults.push({ at: offset + f.at - shift, message: f.fault.bytes });
    offset += text.length;
    return text;
  };

  const add = (row: ReturnType<CsvRows["push"]>[number]): void => {
    const fault = faultIn(row.start, row.end);
    if (header === undefined && row.problem === undefined) {
      // Spaces around a name (`person_id, gender_concept_id`, as some tools write a header) are never
      // part of it: " gender_concept_id" would be a column no crossmap reads. Cells are read as written.
      header = headerInFieldCase(
        row.cells.map((name) => name.trim()),
        options.readFields,
      );
      // Column names with U+FFFD in them would match no field: every row would map without them.
      if (fault !== undefined) {
        records.push({
          record: {},
          line: row.line,
          problem: `invalid UTF-8 (${fault}) in the header row; the columns named with it are not read (the input must be UTF-8)`,
          problemCode: "invalid_utf8",
        });
      }
      return;
    }
    const parsed: ParsedRecord = { record: {}, line: row.line };
    if (row.problem) {
      parsed.problem = row.problem.message;
      parsed.problemCode = row.problem.code;
    } else if (fault !== undefined) {
      parsed.problem = utf8Message(fault, "in the row");
      parsed.problemCode = "invalid_utf8";
    } else {
      const names = header ?? [];
      const cells = row.cells;
      if (cells.length === 1 && cells[0]!.trim() === "" && names.length > 1) return;
      const record: SourceRecord = {};
      let blank = true;
      const n = Math.min(cells.length, names.length);
      for (let i = 0; i < n; i++) {
        const cell = cells[i]!;
        if (cell === "" || nulls?.has(cell)) continue;
        if (blank && cell.trim() !== "") blank = false;
        record[names[i]!] = cellValue(cell);
      }
      if (cells.length > names.length) {
        parsed.problem = `the row has ${cells.length - names.length} more cell(s) than the header`;
      } else if (cells.length < names.length) {
        if (blank) return;
        parsed.problem = `the row has ${cells.length} cell(s), the header ${names.length}`;
      } else if (blank) {
        return;
      }
      parsed.record = record;
    }
    records.push(parsed);
    if (records.length >= batchRecords) {
      ready.push(records);
      records = [];
    }
  };

  /** The bytes of the first fault inside [start, end), dropping faults before `end`. */
  const faultIn = (start: number, end: number): string | undefined => {
    if (faults.length === 0) return undefined;
    let found: string | undefined;
    let keep = 0;
    for (const f of faults) {
      if (f.at < end) {
        if (f.at >= start && found === undefined) found = f.message;
      } else faults[keep++] = f;
    }
    faults = faults.slice(0, keep);
    return found;
  };

  for await (const chunk of input) {
    for (const row of rows.push(take(utf8.decode(chunk)))) add(row);
    for (const batch of ready.splice(0)) yield { kind: "records", file, entity, records: batch };
  }
  const rest = take(utf8.decode(new Uint8Array(0), true));
  for (const row of rows.push(rest)) add(row);
  const cut = options.failed?.() === true;
  for (const row of rows.end()) {
    if (cut && row.problem === undefined) {
      row.problem = {
        code: "cut_short",
        message:
          "the input ended in an error inside this row (no line end closed it): it may be cut short, so it is not read",
      };
    }
    add(row);
  }
  for (const batch of ready.splice(0)) yield { kind: "records", file, entity, records: batch };
  if (records.length > 0) yield { kind: "records", file, entity, records };
}
