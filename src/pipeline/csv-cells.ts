// CSV cells written for spreadsheets: RFC 4180 quoting, and text a spreadsheet would run as a formula made
// inert (the review exports and `crossmap suggest --usagi` write them; the importer reads them back).

/**
 * What a spreadsheet would take for a formula at the start of a cell (OWASP's CSV injection rule): `=`,
 * `+`, `-`, `@`, a tab or a carriage return.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A text cell a spreadsheet would run as a formula (`=cmd|' /C calc'!A0`), written with a leading `'` so
 * that it shows as text; the importer takes that `'` off again (import-mappings.ts).
 */
export const neutralise = (text: string): string => (FORMULA_START.test(text) ? `'${text}` : text);

const NEUTRALISED = /^'[=+\-@\t\r]/;

/** A cell `neutralise` wrote, as it was before. */
export const unneutralise = (text: string): string => (NEUTRALISED.test(text) ? text.slice(1) : text);

/**
 * RFC 4180 CSV with a header; null is an empty field. Text cells are neutralised (see `neutralise`);
 * numbers are written as they are.
 */
export function toCsv(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  const field = (v: unknown): string => {
    if (v === null || v === undefined) return "";
    const s = typeof v === "string" ? neutralise(v) : String(v);
    return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  const lines = [columns.join(",")];
  for (const row of rows) lines.push(columns.map((c) => field(row[c])).join(","));
  return `${lines.join("\r\n")}\r\n`;
}
