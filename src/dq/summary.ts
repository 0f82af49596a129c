// DQD's Overview of a run (summarizeResults.R) and the text summary `crossmap dq` prints: the dashboard's
// Kahn category x context table, counts per check, and each failure with its share and threshold.
import type { CheckResult } from "./evaluate.js";
import type { DqRun } from "./run.js";

export interface Overview {
  countTotal: number;
  countPassed: number;
  countErrorFailed: number;
  countThresholdFailed: number;
  countOverallFailed: number;
  percentPassed: number;
  percentFailed: number;
  countTotalPlausibility: number;
  countTotalConformance: number;
  countTotalCompleteness: number;
  countFailedPlausibility: number;
  countFailedConformance: number;
  countFailedCompleteness: number;
  countPassedPlausibility: number;
  countPassedConformance: number;
  countPassedCompleteness: number;
}

const CATEGORIES = ["Plausibility", "Conformance", "Completeness"] as const;

/** As DQD computes it: "passed" there is every check that did not fail (not applicable and errors included). */
export function summarize(results: readonly CheckResult[]): Overview {
  const count = (keep: (r: CheckResult) => boolean) => results.reduce((n, r) => (keep(r) ? n + 1 : n), 0);
  const countTotal = results.length;
  const countOverallFailed = count((r) => r.failed === 1);
  const countPassed = countTotal - countOverallFailed;
  const round2 = (x: number) => Math.round(x * 100) / 100;
  const of = (category: string, flag: "failed" | "passed" | undefined) =>
    count((r) => r.category === category && (flag === undefined || r[flag] === 1));
  return {
    countTotal,
    countPassed,
    countErrorFailed: count((r) => r.error !== undefined),
    countThresholdFailed: count((r) => r.failed === 1 && r.error === undefined),
    countOverallFailed,
    percentPassed: countTotal === 0 ? 0 : round2((countPassed / countTotal) * 100),
    percentFailed: countTotal === 0 ? 0 : round2((countOverallFailed / countTotal) * 100),
    countTotalPlausibility: of("Plausibility", undefined),
    countTotalConformance: of("Conformance", undefined),
    countTotalCompleteness: of("Completeness", undefined),
    countFailedPlausibility: of("Plausibility", "failed"),
    countFailedConformance: of("Conformance", "failed"),
    countFailedCompleteness: of("Completeness", "failed"),
    countPassedPlausibility: of("Plausibility", "passed"),
    countPassedConformance: of("Conformance", "passed"),
    countPassedCompleteness: of("Completeness", "passed"),
  };
}

/** A check the dashboard shows as a pass (passed or not applicable) or a failure (failed or an error). */
const dashboardPass = (r: CheckResult) => r.passed === 1 || r.notApplicable === 1;
const dashboardFail = (r: CheckResult) => r.failed === 1 || r.isError === 1;

/** What `crossmap dq` prints: which database, then the summary. */
export function formatReport(run: DqRun, display: string): string[] {
  const source = run.Metadata[0]?.cdmSourceName;
  return [
    `crossmap dq: ${display}${source ? ` (${source})` : " (no cdm_source row)"}`,
    ...formatSummary(run.CheckResults, run.Overview),
  ];
}

/** The summary lines: the category table, the totals, counts per check and every failure. */
export function formatSummary(results: readonly CheckResult[], overview: Overview): string[] {
  const lines: string[] = [];
  const n = (x: number) => x.toLocaleString("en-US");
  const pct = (pass: number, total: number) => (total === 0 ? "-" : `${floor1((pass / total) * 100)}%`);
  const cells = (rows: readonly CheckResult[]) => {
    const pass = rows.filter(dashboardPass).length;
    const fail = rows.filter(dashboardFail).length;
    return [n(pass), n(fail), n(rows.length), pct(pass, rows.length)];
  };
  const contexts = ["Verification", "Validation"] as const;
  const table: string[][] = [
    ["", ...contexts.flatMap((c) => [c, "", "", ""]), "Total", "", "", ""],
    ["", ...Array(3).fill(["Pass", "Fail", "Total", "% Pass"]).flat()],
  ];
  for (const category of [...CATEGORIES, "Total"]) {
    const inCategory = results.filter((r) => category === "Total" || r.category === category);
    table.push([
      category,
      ...contexts.flatMap((c) => cells(inCategory.filter((r) => r.context === c))),
      ...cells(inCategory),
    ]);
  }
  lines.push(...alignColumns(table));
  const notApplicable = results.filter((r) => r.notApplicable === 1).length;
  const errors = results.filter((r) => r.isError === 1).length;
  const passed = results.filter((r) => r.passed === 1).length;
  lines.push(
    "",
    `${n(overview.countTotal)} checks: ${n(passed)} passed, ${n(overview.countOverallFailed)} failed, ` +
      `${n(notApplicable)} not applicable, ${n(errors)} errors; ${overview.percentPassed}% passed as DQD counts ` +
      "(not applicable and errors count as passed there)",
    "",
  );
  const byName = new Map<string, CheckResult[]>();
  for (const r of results) byName.set(r.checkName, [...(byName.get(r.checkName) ?? []), r]);
  const perCheck: string[][] = [["check", "category", "run", "passed", "failed", "not applicable", "errors"]];
  for (const [name, rows] of byName) {
    perCheck.push([
      name,
      rows[0]?.category ?? "",
      n(rows.length),
      n(rows.filter((r) => r.passed === 1).length),
      n(rows.filter((r) => r.failed === 1).length),
      n(rows.filter((r) => r.notApplicable === 1).length),
      n(rows.filter((r) => r.isError === 1).length),
    ]);
  }
  lines.push(...alignColumns(perCheck));
  const failures = results.filter((r) => r.failed === 1 || r.isError === 1);
  if (failures.length > 0) lines.push("", `${failures.length === 1 ? "Failure" : "Failures"}:`);
  for (const r of failures) lines.push(`  ${describeFailure(r)}`);
  return lines;
}

/** `isForeignKey MEASUREMENT.UNIT_CONCEPT_ID: 12 of 10,040 rows (0.12%) violate it, threshold 0%`. */
export function describeFailure(r: CheckResult): string {
  const where = [r.cdmTableName, r.cdmFieldName].filter(Boolean).join(".");
  const concept = r.conceptId
    ? ` concept ${r.conceptId}${r.unitConceptId ? ` unit ${r.unitConceptId}` : ""}`
    : "";
  if (r.isError === 1) return `${r.checkName} ${where}${concept}: error: ${r.error}`;
  if (r.error !== undefined) return `${r.checkName} ${where}${concept}: ${r.error}`;
  const share = ((r.pctViolatedRows ?? 0) * 100).toFixed(2);
  return (
    `${r.checkName} ${where}${concept}: ${(r.numViolatedRows ?? 0).toLocaleString("en-US")} of ` +
    `${(r.numDenominatorRows ?? 0).toLocaleString("en-US")} rows (${share}%) violate it, ` +
    `threshold ${r.thresholdValue ?? 0}%`
  );
}

/** One decimal, rounded down, so that 99.96% never shows as 100%. */
const floor1 = (x: number) => (Math.floor(x * 10) / 10).toFixed(1);

function alignColumns(rows: readonly string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows.map((row) =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}
