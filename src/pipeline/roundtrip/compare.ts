// How `crossmap roundtrip` judges a value that came back: by the column's type in the source standard's
// definition (an integer by its digits, a float by its number, a datetime by its wall-clock text), so that a
// CSV cell "0" and a mapped 0, or "48.1" and 48.1, count as the same value and "1.0" and "1" do not (a
// *_source_value is text).
import { scalarKey } from "../../transforms/describe.js";

export type ColumnType = string | undefined;

const absent = (v: unknown): boolean => v === undefined || v === null || v === "";

/** The canonical text of a value of a column type, or undefined for an absent value. */
export function canonical(value: unknown, type: ColumnType): string | undefined {
  if (absent(value)) return undefined;
  if (value !== null && typeof value === "object") return JSON.stringify(value);
  const text = scalarKey(value);
  if (text === undefined) return String(value);
  switch (type) {
    case "integer":
    case "Integer":
      return /^[+-]?\d+$/.test(text.trim()) ? BigInt(text.trim()).toString() : text;
    case "float": {
      const n = Number(text);
      return Number.isFinite(n) && text.trim() !== "" ? String(n) : text;
    }
    case "datetime":
      // "2013-05-17T00:00:00" and "2013-05-17 00:00:00" are the same wall-clock time; a bare date is midnight.
      return /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text} 00:00:00` : text.replace("T", " ");
    default:
      return text;
  }
}

/** One column that did not survive, with the first row that shows it. */
export interface LostColumn {
  column: string;
  rows: number;
  example: { key: string; before: string; after: string | null };
}

export interface TableTally {
  table: string;
  /** Rows read. */
  rows: number;
  /** Rows that came back in their own table under their own key. */
  rowsBack: number;
  /** Non-empty values of the rows read. */
  values: number;
  /** Of those, values that came back identical. */
  valuesBack: number;
  lost: Map<string, LostColumn>;
  /** Columns that came back with a value where the row had none (defaults such as concept id 0). */
  added: Map<string, number>;
  /** Rows made from this table's rows that are not the row itself: table -> count. */
  otherRows: Map<string, number>;
}

export function newTally(table: string): TableTally {
  return {
    table,
    rows: 0,
    rowsBack: 0,
    values: 0,
    valuesBack: 0,
    lost: new Map(),
    added: new Map(),
    otherRows: new Map(),
  };
}

/** Compares one row with what came back for it (undefined when nothing did) and counts the result. */
export function tallyRow(
  tally: TableTally,
  key: string,
  row: Record<string, unknown>,
  back: Record<string, unknown> | undefined,
  typeOf: (column: string) => ColumnType,
): void {
  tally.rows++;
  if (back) tally.rowsBack++;
  for (const [column, value] of Object.entries(row)) {
    const type = typeOf(column);
    const before = canonical(value, type);
    if (before === undefined) continue;
    tally.values++;
    const after = back ? canonical(back[column], type) : undefined;
    if (after === before) {
      tally.valuesBack++;
      continue;
    }
    const lost = tally.lost.get(column);
    if (lost) lost.rows++;
    else tally.lost.set(column, { column, rows: 1, example: { key, before, after: after ?? null } });
  }
  if (!back) return;
  for (const [column, value] of Object.entries(back)) {
    if (
      canonical(value, typeOf(column)) !== undefined &&
      canonical(row[column], typeOf(column)) === undefined
    ) {
      tally.added.set(column, (tally.added.get(column) ?? 0) + 1);
    }
  }
}
