// Test support: the Synthea27Nj OMOP sample tables as records, the way a CSV reader hands them over
// (every value a string; an empty cell is an absent field).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Papa from "papaparse";

/** Test data inside the repository: nothing a test reads lives outside it. */
export const FIXTURES_DIR = new URL("../fixtures/", import.meta.url).pathname;
export const OMOP_SAMPLE_DIR = join(FIXTURES_DIR, "synthea27nj") + "/";

const cache = new Map<string, Record<string, string>[]>();

/** All rows of one sample table, e.g. omopRows("person") reads PERSON.csv. */
export function omopRows(table: string): Record<string, string>[] {
  const hit = cache.get(table);
  if (hit) return hit;
  const text = readFileSync(`${OMOP_SAMPLE_DIR}${table.toUpperCase()}.csv`, "utf8");
  const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true });
  const rows = parsed.data.map((row) => {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(row)) if (v !== "") out[k] = v;
    return out;
  });
  cache.set(table, rows);
  return rows;
}

/** Every string reachable in a JSON value, with its path, for "nothing empty, nothing null" checks. */
export function* leaves(v: unknown, path = ""): Generator<[string, unknown]> {
  if (v !== null && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) yield* leaves(x, path ? `${path}.${k}` : k);
  } else yield [path, v];
}

/** The sample tables' rows in slices of at most `size`, one test each, so no test runs for minutes. */
export function rowSlices(
  table: string,
  size = 2500,
): { label: string; start: number; rows: Record<string, string>[] }[] {
  const rows = omopRows(table);
  if (rows.length <= size) return [{ label: table, start: 0, rows }];
  const out = [];
  for (let start = 0; start < rows.length; start += size) {
    const end = Math.min(start + size, rows.length);
    out.push({ label: `${table} rows ${start + 1}-${end}`, start, rows: rows.slice(start, end) });
  }
  return out;
}
