import { describe, expect, it } from "vitest";
import { listChecks } from "../../src/dq/checks.js";
import { loadDefinitions } from "../../src/dq/definitions.js";
import { applyNotApplicable, type CheckResult, evaluateCheck } from "../../src/dq/evaluate.js";
import { checkStatus, describeFailure, formatSummary, isFailure, summarize } from "../../src/dq/summary.js";

const checks = listChecks(loadDefinitions(), { cdm: "cdm", vocab: "cdm" });
const find = (name: string, table: string, field?: string) => {
  const c = checks.find(
    (x) => x.description.checkName === name && x.cdmTableName === table && x.cdmFieldName === field,
  );
  if (!c) throw new Error(`no check ${name} ${table}.${field}`);
  return c;
};
const counts = (violated: number, denominator: number) => ({
  numViolatedRows: violated,
  pctViolatedRows: denominator === 0 ? 0 : violated / denominator,
  numDenominatorRows: denominator,
});

describe("evaluateCheck: DQD's thresholds", () => {
  it("fails a check with no threshold or a 0% threshold at the first violating row", () => {
    const r = evaluateCheck(find("isPrimaryKey", "PERSON", "PERSON_ID"), counts(1, 1000), "q", 0.5);
    expect([r.failed, r.passed, r.isError, r.thresholdValue, r.executionTime]).toEqual([
      1,
      0,
      0,
      0,
      "0.500000 secs",
    ]);
    expect(describeFailure(r)).toBe(
      "isPrimaryKey PERSON.PERSON_ID: 1 of 1,000 rows (0.10%) violate it, threshold 0%",
    );
  });

  it("fails only above a non-zero threshold", () => {
    const check = find("standardConceptRecordCompleteness", "MEASUREMENT", "UNIT_CONCEPT_ID");
    expect(evaluateCheck(check, counts(5, 100), "q", 0).failed).toBe(0);
    expect(evaluateCheck(check, counts(6, 100), "q", 0).failed).toBe(1);
  });

  it("a query error is an error, except a missing table or field for cdmTable and cdmField, which fails", () => {
    const missing = 'relation "cdm.note_nlp" does not exist';
    expect(evaluateCheck(find("cdmTable", "NOTE_NLP"), { error: missing }, "q", 0)).toMatchObject({
      failed: 1,
      isError: 0,
    });
    expect(
      evaluateCheck(find("isRequired", "PERSON", "PERSON_ID"), { error: missing }, "q", 0),
    ).toMatchObject({
      failed: 0,
      isError: 1,
      error: missing,
    });
  });
});

describe("applyNotApplicable: DQD's not-applicable rules", () => {
  const run = (...pairs: [CheckResult, boolean][]) => {
    const results = pairs.map(([r]) => r);
    applyNotApplicable(results);
    return results;
  };
  it("an empty table makes its field checks (measureValueCompleteness too) not applicable; a missing table its cdmField checks", () => {
    const tableOk = evaluateCheck(find("cdmTable", "SPECIMEN"), counts(0, 1), "q", 0);
    const field = evaluateCheck(find("cdmField", "SPECIMEN", "SPECIMEN_ID"), counts(0, 1), "q", 0);
    const completeness = evaluateCheck(
      find("measureValueCompleteness", "SPECIMEN", "SPECIMEN_ID"),
      counts(0, 0),
      "q",
      0,
    );
    const pk = evaluateCheck(find("isPrimaryKey", "SPECIMEN", "SPECIMEN_ID"), counts(0, 0), "q", 0);
    const noTable = evaluateCheck(find("cdmTable", "NOTE_NLP"), { error: "relation does not exist" }, "q", 0);
    const noTableField = evaluateCheck(
      find("cdmField", "NOTE_NLP", "NOTE_NLP_ID"),
      { error: "does not exist" },
      "q",
      0,
    );
    const [t, f, c, p, nt, ntf] = run(
      [tableOk, true],
      [field, true],
      [completeness, true],
      [pk, true],
      [noTable, true],
      [noTableField, true],
    );
    expect([t?.passed, t?.notApplicable]).toEqual([1, 0]);
    expect([f?.passed, f?.notApplicable]).toEqual([1, 0]);
    expect([c?.passed, c?.notApplicable]).toEqual([0, 1]);
    expect([p?.passed, p?.notApplicable, p?.notApplicableReason]).toEqual([0, 1, "Table SPECIMEN is empty."]);
    expect([nt?.failed, nt?.notApplicable]).toEqual([1, 0]);
    expect([ntf?.failed, ntf?.notApplicable, ntf?.notApplicableReason]).toEqual([
      0,
      1,
      "Table NOTE_NLP does not exist.",
    ]);
    expect(summarize([t, f, c, p, nt, ntf] as CheckResult[])).toMatchObject({
      countTotal: 6,
      countOverallFailed: 1,
      countPassed: 5,
      countErrorFailed: 2,
      countThresholdFailed: 0,
      percentPassed: 83.33,
    });
  });

  it("counts a check on a missing table once, as not applicable, though its query erred", () => {
    const noTable = evaluateCheck(find("cdmTable", "NOTE_NLP"), { error: "relation does not exist" }, "q", 0);
    const noTableField = evaluateCheck(
      find("cdmField", "NOTE_NLP", "NOTE_NLP_ID"),
      { error: "does not exist" },
      "q",
      0,
    );
    const completeness = evaluateCheck(
      find("measureValueCompleteness", "NOTE_NLP", "NOTE_NLP_ID"),
      { error: 'relation "note_nlp" does not exist' },
      "q",
      0,
    );
    const pk = evaluateCheck(
      find("isPrimaryKey", "NOTE_NLP", "NOTE_NLP_ID"),
      { error: 'relation "note_nlp" does not exist' },
      "q",
      0,
    );
    const results = run([noTable, true], [noTableField, true], [completeness, true], [pk, true]);
    const erredNotApplicable = results.filter((r) => r.isError === 1 && r.notApplicable === 1);
    expect(erredNotApplicable.length).toBe(2);
    expect(results.map(checkStatus)).toEqual([
      "failed",
      "not applicable",
      "not applicable",
      "not applicable",
    ]);
    expect(results.filter(isFailure)).toEqual([noTable]);
    const lines = formatSummary(results, summarize(results));
    expect(lines).toContain(
      "4 checks: 0 passed, 1 failed, 3 not applicable, 0 errors; 75% passed as DQD counts (not applicable and errors count as passed there)",
    );
    expect(lines.slice(lines.indexOf("Failure:") + 1)).toEqual([
      "  cdmTable NOTE_NLP: relation does not exist",
    ]);
    // The category table's Pass and Fail add up to its Total.
    expect(
      lines
        .find((l) => l.startsWith("Total"))
        ?.split(/\s+/)
        .slice(-4),
    ).toEqual(["3", "1", "4", "75.0%"]);
  });
});
