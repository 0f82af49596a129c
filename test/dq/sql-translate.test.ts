import { describe, expect, it } from "vitest";
import { translateSql } from "../../src/dq/sql-translate.js";

describe("translateSql: the OHDSI SQL of DQD's checks in PostgreSQL and DuckDB", () => {
  it("COUNT_BIG, DATEADD with nested arguments, GETDATE and YEAR", () => {
    const sql =
      "SELECT COUNT_BIG(*) WHERE d > DATEADD(day, 60, CAST(de.death_date AS DATE)) AND y > YEAR(GETDATE())+1";
    const expected =
      "SELECT COUNT(*) WHERE d > (CAST(CAST(de.death_date AS DATE) AS DATE) + CAST(60 AS INTEGER)) " +
      "AND y > CAST(EXTRACT(YEAR FROM CURRENT_DATE) AS INTEGER)+1";
    expect(translateSql(sql, "postgresql")).toBe(expected);
    expect(translateSql(sql, "duckdb")).toBe(expected);
  });

  it("string + concatenation, ISNUMERIC and CHARINDEX", () => {
    const sql =
      "RIGHT('0' + CAST(m AS VARCHAR), 2) WHERE ISNUMERIC(x) = 0 OR CHARINDEX('.', CAST(ABS(x) AS varchar)) != 0";
    expect(translateSql(sql, "postgresql")).toBe(
      "RIGHT('0' || CAST(m AS VARCHAR), 2) WHERE (CASE WHEN CAST(x AS VARCHAR) ~ '^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)$' " +
        "THEN 1 ELSE 0 END) = 0 OR STRPOS(CAST(ABS(x) AS varchar), '.') != 0",
    );
    expect(translateSql("ISNUMERIC(x)", "duckdb")).toBe(
      "(CASE WHEN regexp_full_match(CAST(x AS VARCHAR), '^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)$') THEN 1 ELSE 0 END)",
    );
  });

  it("DuckDB reads YYYYMMDD dates with a format", () => {
    expect(
      translateSql("CAST(CONCAT(y, COALESCE(m, '01'), '01') AS DATE) < cast('19500101' as date)", "duckdb"),
    ).toBe(
      "CAST(STRPTIME(CONCAT(y, COALESCE(m, '01'), '01'), '%Y%m%d') AS DATE) < CAST(STRPTIME('19500101', '%Y%m%d') AS DATE)",
    );
    expect(translateSql("cast('19500101' as date)", "postgresql")).toBe("cast('19500101' as date)");
  });

  it("refuses OHDSI SQL it does not translate instead of sending it", () => {
    expect(() => translateSql("DATEADD(month, 1, d)", "postgresql")).toThrow(
      "DATEADD(month, ...) is not translated",
    );
    expect(() => translateSql("DATEDIFF(day, a, b)", "duckdb")).toThrow("DATEDIFF is not translated");
  });
});

describe("every check DQD runs renders and translates for both dialects", () => {
  it.each(["postgresql", "duckdb"] as const)(
    "%s: no parameter, conditional block or untranslated function left",
    async (dialect) => {
      const { listChecks } = await import("../../src/dq/checks.js");
      const { loadDefinitions } = await import("../../src/dq/definitions.js");
      const { checkSql } = await import("../../src/dq/run.js");
      const defs = loadDefinitions();
      const leftovers = new Set<string>();
      for (const check of listChecks(defs, { cdm: "cdm", vocab: "cdm" })) {
        const sql = checkSql(check, defs, { cdm: "cdm", vocab: "cdm" }, dialect);
        const body = sql.replace(/\/\*[\s\S]*?\*\//g, "");
        for (const m of body.matchAll(/@\w+|[{}]|\bCOUNT_BIG\b|\bDATEADD\b|\bGETDATE\b|\bISNUMERIC\b/g))
          leftovers.add(m[0]);
      }
      expect([...leftovers]).toEqual([]);
    },
  );
});
