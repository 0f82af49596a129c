// The round trip's findings as a user reads them: a table per source table (rows back, values back, columns that
// did not survive, with an example each), and the same as JSON for scripts.
import type { TableTally } from "./compare.js";
import type { RoundtripResult } from "./run.js";

export interface TableReport {
  table: string;
  rows: number;
  rows_back: number;
  rows_back_pct: number;
  values: number;
  values_back: number;
  values_back_pct: number;
  /** Columns whose values did not all come back, most rows first. */
  lost_columns: {
    column: string;
    rows: number;
    example: { key: string; before: string; after: string | null };
  }[];
  /** Columns that came back filled where the row had none (e.g. a concept id 0 by convention). */
  added_columns: Record<string, number>;
  /** Rows in other tables (or other rows of this one) made from this table's rows. */
  other_rows: Record<string, number>;
}

export interface RoundtripReport {
  from: string;
  via: string;
  vocabulary: boolean;
  tables: TableReport[];
  total: Omit<TableReport, "table" | "lost_columns" | "added_columns" | "other_rows">;
  issues: {
    errors: number;
    warnings: number;
    by_code: Record<string, number>;
    examples: RoundtripResult["issues"]["examples"];
  };
  not_read_back: Record<string, number>;
  unreadable_records: number;
}

/** A share in percent, rounded down to two decimals so that 99.999 % never shows as 100 %. */
export const percent = (part: number, whole: number): number =>
  whole === 0 ? 100 : Math.floor((part / whole) * 10000) / 100;

const sorted = (m: Map<string, number>): Record<string, number> =>
  Object.fromEntries([...m.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])));

function tableReport(t: TableTally): TableReport {
  return {
    table: t.table,
    rows: t.rows,
    rows_back: t.rowsBack,
    rows_back_pct: percent(t.rowsBack, t.rows),
    values: t.values,
    values_back: t.valuesBack,
    values_back_pct: percent(t.valuesBack, t.values),
    lost_columns: [...t.lost.values()].sort((a, b) => b.rows - a.rows || a.column.localeCompare(b.column)),
    added_columns: sorted(t.added),
    other_rows: sorted(t.otherRows),
  };
}

export function roundtripReport(
  result: RoundtripResult,
  context: { from: string; via: string; vocabulary: boolean },
): RoundtripReport {
  const tables = result.tallies.map(tableReport);
  const sum = (k: "rows" | "rows_back" | "values" | "values_back") => tables.reduce((n, t) => n + t[k], 0);
  const rows = sum("rows");
  const values = sum("values");
  return {
    ...context,
    tables,
    total: {
      rows,
      rows_back: sum("rows_back"),
      rows_back_pct: percent(sum("rows_back"), rows),
      values,
      values_back: sum("values_back"),
      values_back_pct: percent(sum("values_back"), values),
    },
    issues: {
      errors: result.issues.errors,
      warnings: result.issues.warnings,
      by_code: sorted(result.issues.byCode),
      examples: result.issues.examples,
    },
    not_read_back: sorted(result.notReadBack),
    unreadable_records: result.unreadable,
  };
}

const pad = (s: string, n: number, right = false) => (right ? s.padStart(n) : s.padEnd(n));

/** The human form: one line per table, then the columns that did not survive. */
export function formatRoundtrip(report: RoundtripReport): string {
  const rows = [
    ["table", "rows", "rows back", "values", "values back"],
    ...report.tables.map((t) => [
      t.table,
      String(t.rows),
      `${t.rows_back} (${t.rows_back_pct.toFixed(2)} %)`,
      String(t.values),
      `${t.values_back} (${t.values_back_pct.toFixed(2)} %)`,
    ]),
    [
      "total",
      String(report.total.rows),
      `${report.total.rows_back} (${report.total.rows_back_pct.toFixed(2)} %)`,
      String(report.total.values),
      `${report.total.values_back} (${report.total.values_back_pct.toFixed(2)} %)`,
    ],
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
  const lines = [
    `${report.from} -> ${report.via} -> ${report.from}${report.vocabulary ? "" : " (no vocabulary)"}`,
    ...rows.map((r) =>
      r
        .map((c, i) => pad(c, widths[i] ?? 0, i > 0))
        .join("  ")
        .trimEnd(),
    ),
  ];
  const lost = report.tables.flatMap((t) => t.lost_columns.map((c) => ({ table: t.table, ...c })));
  if (lost.length === 0) lines.push("", "every value came back");
  else {
    lines.push("", "columns that did not survive (rows; first example: key, value before -> after):");
    for (const c of lost) {
      const after = c.example.after === null ? "(absent)" : JSON.stringify(c.example.after);
      lines.push(
        `  ${c.table}.${c.column}: ${c.rows} (${c.example.key}: ${JSON.stringify(c.example.before)} -> ${after})`,
      );
    }
  }
  const elsewhere = report.tables.filter((t) => Object.keys(t.other_rows).length > 0);
  if (elsewhere.length > 0) {
    lines.push("", "rows made besides the row itself:");
    for (const t of elsewhere) {
      lines.push(
        `  from ${t.table}: ${Object.entries(t.other_rows)
          .map(([k, n]) => `${k} ${n}`)
          .join(", ")}`,
      );
    }
  }
  if (Object.keys(report.not_read_back).length > 0) {
    lines.push(
      "",
      `not read back (no mapping from ${report.via}): ${Object.entries(report.not_read_back)
        .map(([k, n]) => `${k} ${n}`)
        .join(", ")}`,
    );
  }
  if (report.issues.errors + report.issues.warnings > 0) {
    const codes = Object.entries(report.issues.by_code)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ");
    lines.push("", `issues: ${report.issues.errors} errors, ${report.issues.warnings} warnings (${codes})`);
  }
  if (report.unreadable_records > 0) lines.push("", `unreadable records: ${report.unreadable_records}`);
  return `${lines.join("\n")}\n`;
}
