// DQD's verdict on each check: its threshold (evaluateThresholds.R), then "not applicable" where the table or
// field is missing or empty or the concept absent (calculateNotApplicableStatus.R), then passed.
import type { CheckInstance } from "./checks.js";

/** One check's result, with DQD's field names and 0/1 flags; absent fields are DQD's NA (left out of JSON). */
export interface CheckResult {
  numViolatedRows?: number;
  pctViolatedRows?: number;
  numDenominatorRows?: number;
  executionTime: string;
  queryText: string;
  checkName: string;
  checkLevel: string;
  checkDescription: string;
  cdmTableName: string;
  cdmFieldName?: string;
  conceptId?: string;
  unitConceptId?: string;
  sqlFile: string;
  category: string;
  subcategory?: string;
  context: string;
  warning?: string;
  error?: string;
  checkId: string;
  failed: 0 | 1;
  passed: 0 | 1;
  isError: 0 | 1;
  notApplicable: 0 | 1;
  notApplicableReason?: string;
  thresholdValue?: number;
  notesValue?: string;
}

/** What running one check's query gave: its three numbers, or the database's error. */
export type CheckOutcome =
  | { numViolatedRows: number; pctViolatedRows: number; numDenominatorRows: number; error?: undefined }
  | { error: string };

const MISSING =
  /does not exist|missing|not found|invalid object name|invalid column name|ORA-00942|no such table|no such column/i;

export function evaluateCheck(
  check: CheckInstance,
  outcome: CheckOutcome,
  queryText: string,
  seconds: number,
): CheckResult {
  const d = check.description;
  const threshold = numberOrUndefined(check.row[`${d.checkName}Threshold`]);
  const result: CheckResult = {
    executionTime: `${seconds.toFixed(6)} secs`,
    queryText,
    checkName: d.checkName,
    checkLevel: d.checkLevel,
    checkDescription: check.text,
    cdmTableName: check.cdmTableName,
    ...(check.cdmFieldName !== undefined ? { cdmFieldName: check.cdmFieldName } : {}),
    ...(check.conceptId !== undefined ? { conceptId: check.conceptId } : {}),
    ...(check.unitConceptId !== undefined ? { unitConceptId: check.unitConceptId } : {}),
    sqlFile: d.sqlFile,
    category: d.kahnCategory,
    ...(d.kahnSubcategory !== undefined ? { subcategory: d.kahnSubcategory } : {}),
    context: d.kahnContext,
    checkId: check.checkId,
    failed: 0,
    passed: 0,
    isError: 0,
    notApplicable: 0,
    ...(threshold !== undefined ? { thresholdValue: threshold } : {}),
    ...(check.row[`${d.checkName}Notes`] !== undefined
      ? { notesValue: check.row[`${d.checkName}Notes`] }
      : {}),
  };
  if (outcome.error !== undefined) {
    result.error = outcome.error;
    if (MISSING.test(outcome.error) && (d.checkName === "cdmField" || d.checkName === "cdmTable")) {
      result.failed = 1;
    } else {
      result.isError = 1;
    }
    return result;
  }
  result.numViolatedRows = outcome.numViolatedRows;
  result.pctViolatedRows = outcome.pctViolatedRows;
  result.numDenominatorRows = outcome.numDenominatorRows;
  if (threshold === undefined || threshold === 0) {
    if (outcome.numViolatedRows > 0) result.failed = 1;
  } else if (outcome.pctViolatedRows * 100 > threshold) {
    result.failed = 1;
  }
  return result;
}

/** Marks checks not applicable (only when the cdmTable, cdmField and measureValueCompleteness checks ran). */
export function applyNotApplicable(results: CheckResult[]): void {
  const names = new Set(results.map((r) => r.checkName));
  if (!names.has("cdmTable") || !names.has("cdmField") || !names.has("measureValueCompleteness")) {
    for (const r of results) r.passed = r.failed === 0 && r.isError === 0 ? 1 : 0;
    return;
  }
  const missingTable = new Map<string, boolean>();
  const missingField = new Map<string, boolean>();
  const emptyTable = new Map<string, boolean>();
  const emptyField = new Map<string, boolean>();
  const fieldKey = (r: CheckResult) => `${r.cdmTableName}\u0000${r.cdmFieldName ?? ""}`;
  for (const r of results) {
    if (r.checkName === "cdmTable") missingTable.set(r.cdmTableName, r.failed === 1);
    if (r.checkName === "cdmField") missingField.set(fieldKey(r), r.failed === 1);
    if (r.checkName === "measureValueCompleteness") {
      // R's comparison with NA (an errored query) is NA, which coalesce() turns into FALSE.
      if (r.numDenominatorRows !== undefined && !emptyTable.get(r.cdmTableName)) {
        emptyTable.set(r.cdmTableName, r.numDenominatorRows === 0);
      }
      emptyField.set(
        fieldKey(r),
        r.numDenominatorRows !== undefined && r.numDenominatorRows === r.numViolatedRows,
      );
    }
  }
  const conditionsAbsent =
    missingTable.get("CONDITION_OCCURRENCE") === true || emptyTable.get("CONDITION_OCCURRENCE") === true;
  for (const r of results) {
    const state = {
      tableIsMissing: missingTable.get(r.cdmTableName) ?? false,
      fieldIsMissing: missingField.get(fieldKey(r)) ?? false,
      tableIsEmpty: emptyTable.get(r.cdmTableName) ?? false,
      fieldIsEmpty: emptyField.get(fieldKey(r)) ?? false,
      conceptIsMissing:
        r.checkLevel === "CONCEPT" && r.unitConceptId === undefined && r.numDenominatorRows === 0,
      conceptAndUnitAreMissing:
        r.checkLevel === "CONCEPT" && r.unitConceptId !== undefined && r.numDenominatorRows === 0,
    };
    if (r.checkName === "measureConditionEraCompleteness") {
      r.notApplicable = conditionsAbsent ? 1 : 0;
      if (conditionsAbsent) r.notApplicableReason = "Table CONDITION_OCCURRENCE is empty.";
    } else {
      r.notApplicable = notApplicable(r, state) ? 1 : 0;
      if (r.notApplicable) r.notApplicableReason = reasonOf(r, state);
    }
    if (r.notApplicable) r.failed = 0;
    r.passed = r.failed === 0 && r.isError === 0 && r.notApplicable === 0 ? 1 : 0;
  }
}

interface ApplicabilityState {
  tableIsMissing: boolean;
  fieldIsMissing: boolean;
  tableIsEmpty: boolean;
  fieldIsEmpty: boolean;
  conceptIsMissing: boolean;
  conceptAndUnitAreMissing: boolean;
}

function notApplicable(r: CheckResult, s: ApplicabilityState): boolean {
  if (r.checkName === "measurePersonCompleteness") return s.tableIsMissing;
  if (r.checkName === "cdmTable") return false;
  if (r.checkName === "cdmField") return s.tableIsMissing;
  if (s.tableIsMissing || s.fieldIsMissing) return true;
  if (r.isError === 1) return false;
  if (s.tableIsEmpty) return true;
  if (r.checkName === "measureValueCompleteness") return false;
  return s.fieldIsEmpty || s.conceptIsMissing || s.conceptAndUnitAreMissing;
}

function reasonOf(r: CheckResult, s: ApplicabilityState): string | undefined {
  if (s.tableIsMissing) return `Table ${r.cdmTableName} does not exist.`;
  if (s.fieldIsMissing) return `Field ${r.cdmTableName}.${r.cdmFieldName} does not exist.`;
  if (s.tableIsEmpty) return `Table ${r.cdmTableName} is empty.`;
  if (s.fieldIsEmpty) return `Field ${r.cdmTableName}.${r.cdmFieldName} is not populated.`;
  if (s.conceptIsMissing)
    return `${r.cdmFieldName}=${r.conceptId} is missing from the ${r.cdmTableName} table.`;
  if (s.conceptAndUnitAreMissing) {
    return (
      `Combination of ${r.cdmFieldName}=${r.conceptId}, unitConceptId=${r.unitConceptId} and ` +
      `VALUE_AS_NUMBER IS NOT NULL is missing from the ${r.cdmTableName} table.`
    );
  }
  return undefined;
}

function numberOrUndefined(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}
