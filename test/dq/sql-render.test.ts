import { describe, expect, it } from "vitest";
import { evaluateCondition, renderSql } from "../../src/dq/sql-render.js";

describe("renderSql (SqlRender's render, as DQD's queries use it)", () => {
  it("substitutes parameters and leaves unknown ones as written", () => {
    expect(
      renderSql("SELECT * FROM @schema.@cdmTableName WHERE x = @other", {
        schema: "cdm",
        cdmTableName: "PERSON",
      }),
    ).toBe("SELECT * FROM cdm.PERSON WHERE x = @other");
  });

  it("keeps the then-branch or the else-branch, blanks around ? and : allowed, nested blocks resolved", () => {
    const sql =
      "A {@cohort & '@run' == 'Yes'} ? {JOIN c {@x == 1}?{ON 1}} : {NOJOIN {@x == 1}?{one}:{other}} B";
    expect(renderSql(sql, { cohort: "FALSE", run: "Yes", x: "1" })).toBe("A NOJOIN one B");
    expect(renderSql(sql, { cohort: "TRUE", run: "Yes", x: "2" })).toBe("A JOIN c  B");
  });

  it("keeps braces that start no conditional block", () => {
    expect(renderSql("SELECT '{a}' AS b", {})).toBe("SELECT '{a}' AS b");
  });
});

describe("evaluateCondition", () => {
  it.each([
    ["'CONCEPT' IN ('CONCEPT','DOMAIN')", true],
    ["'PERSON' IN ('CONCEPT','DOMAIN')", false],
    ["CAUSE_CONCEPT_ID == 'CAUSE_CONCEPT_ID' | CAUSE_CONCEPT_ID == 'X'", true],
    ['integer == "datetime" | integer == "date"', false],
    ["PROVIDER != 'DOSE_ERA' & (UNIT_CONCEPT_ID == 'UNIT_CONCEPT_ID' | A == 'B')", true],
    ["cdm.PERSON != cdm.PERSON", false],
    ["!FALSE", true],
    ["TRUE", true],
    ["FALSE & 'Yes' == 'Yes'", false],
  ])("%s is %s", (condition, value) => {
    expect(evaluateCondition(condition)).toBe(value);
  });

  it("refuses what it cannot read", () => {
    expect(() => evaluateCondition("a == ")).toThrow("expected a value in condition {a == }");
  });
});
