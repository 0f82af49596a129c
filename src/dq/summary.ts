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

export type CheckStatus = "passed" | "failed" | "not applicable" | "error";

/**
 * One status per check, for the counts `crossmap dq` prints and its exit code: not applicable first (DQD
 * marks a check on a missing table or field not applicable, and its query errs for the same reason: the
 * error is the missing table's, which the cdmTable or cdmField check already fails), then an error, then
 * failed. Counted this way every check is in one column and the columns add up to the checks run.
 */
export function checkStatus(r: CheckResult): CheckStatus {
  if (r.notApplicable === 1) return "not applicable";
  if (r.isError === 1) return "error";
  return r.failed === 1 ? "failed" : "passed";
}

/** A check that makes `crossmap dq` exit 1: failed, or errs while applicable. */
export const isFailure = (r: CheckResult): boolean => {
  const s = checkStatus(r);
  return s === "failed" || s === "error";
};

/** A check the dashboard shows as a pass (passed or not applicable) or a failure (failed or an error). */
const dashboardPass = (r: CheckResult) => !isFailure(r);
const dashboardFail = isFailure;

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
  const counted = (rows: readonly CheckResult[], status: CheckStatus) =>
    rows.reduce((k, r) => (checkStatus(r) === status ? k + 1 : k), 0);
  const notApplicable = counted(results, "not applicable");
  const errors = counted(results, "error");
  const passed = counted(results, "passed");
  lines.push(
    "",
    `${n(overview.countTotal)} checks: ${n(passed)} passed, ${n(counted(results, "failed"))} failed, ` +
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
      n(counted(rows, "passed")),
      n(counted(rows, "failed")),
      n(counted(rows, "not applicable")),
      n(counted(rows, "error")),
    ]);
  }
  lines.push(...alignColumns(perCheck));
  const failures = results.filter(isFailure);
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
