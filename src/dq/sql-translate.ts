// Translates the OHDSI SQL (SQL Server-like) that the DQD check queries are written in into PostgreSQL or
// DuckDB: only the constructs those queries use, each rewritten as SqlRender does for the two dialects.
import type { Dialect } from "../sinks/db/client.js";

/** The query for `dialect`; throws on an OHDSI SQL function this translator does not know. */
export function translateSql(sql: string, dialect: Dialect): string {
  let out = sql.replace(/\bCOUNT_BIG\s*\(/gi, "COUNT(").replace(/\bGETDATE\s*\(\s*\)/gi, "CURRENT_DATE");
  // SQL Server concatenates strings with `+`; only a quoted literal followed by `+` occurs.
  out = out.replace(/('[^']*')\s*\+\s*/g, "$1 || ");
  out = rewriteCalls(out, "DATEADD", ([unit, amount, date]) => {
    if (!unit || !amount || !date || !/^(day|dd|d)$/i.test(unit.trim())) {
      throw new Error(`DATEADD(${unit}, ...) is not translated: only days are`);
    }
    // date + integer is a date in both dialects.
    return `(CAST(${date} AS DATE) + CAST(${amount} AS INTEGER))`;
  });
  out = rewriteCalls(out, "ISNUMERIC", ([value]) => {
    const text = `CAST(${value} AS VARCHAR)`;
    const pattern = "'^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)$'";
    const test = dialect === "postgresql" ? `${text} ~ ${pattern}` : `regexp_full_match(${text}, ${pattern})`;
    return `(CASE WHEN ${test} THEN 1 ELSE 0 END)`;
  });
  out = rewriteCalls(out, "YEAR", ([date]) => `CAST(EXTRACT(YEAR FROM ${date}) AS INTEGER)`);
  out = rewriteCalls(out, "CHARINDEX", ([needle, haystack]) => `STRPOS(${haystack}, ${needle})`);
  if (dialect === "duckdb") {
    // PostgreSQL reads 'YYYYMMDD' as a date; DuckDB needs the format.
    out = out.replace(/CAST\(\s*CONCAT\(/gi, "CAST(STRPTIME(CONCAT(");
    out = closeStrptime(out);
    // The threshold files give date bounds as 'YYYYMMDD' literals.
    out = out.replace(/\bCAST\(\s*'(\d{8})'\s+AS\s+DATE\s*\)/gi, "CAST(STRPTIME('$1', '%Y%m%d') AS DATE)");
  }
  const unknown = /\b(DATEDIFF|EOMONTH|DATEFROMPARTS|ISNULL|LEN|TOP)\s*\(/i.exec(out);
  if (unknown) throw new Error(`${unknown[1]} is not translated`);
  return out;
}

/** Replaces every `NAME(args)` call (case-insensitive) by `rewrite(args)`, innermost calls first. */
function rewriteCalls(sql: string, name: string, rewrite: (args: string[]) => string): string {
  const pattern = new RegExp(`\\b${name}\\s*\\(`, "i");
  let out = sql;
  for (let match = pattern.exec(out); match; match = pattern.exec(out)) {
    const open = match.index + match[0].length - 1;
    const close = closingParen(out, open);
    if (close < 0) throw new Error(`unbalanced ${name}( in a check query`);
    const inner = rewriteCalls(out.slice(open + 1, close), name, rewrite);
    out = out.slice(0, match.index) + rewrite(splitArgs(inner)) + out.slice(close + 1);
  }
  return out;
}

/** `CAST(STRPTIME(CONCAT(...) AS DATE)` -> `CAST(STRPTIME(CONCAT(...), '%Y%m%d') AS DATE)`. */
function closeStrptime(sql: string): string {
  let out = sql;
  let from = 0;
  for (;;) {
    const at = out.indexOf("STRPTIME(CONCAT(", from);
    if (at < 0) return out;
    const concatOpen = at + "STRPTIME(CONCAT".length;
    const concatClose = closingParen(out, concatOpen);
    if (concatClose < 0) throw new Error("unbalanced CONCAT( in a check query");
    out = `${out.slice(0, concatClose + 1)}, '%Y%m%d')${out.slice(concatClose + 1)}`;
    from = concatClose;
  }
}

function closingParen(text: string, open: number): number {
  let depth = 0;
  let quoted = false;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === "'") quoted = !quoted;
    if (quoted) continue;
    if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  return -1;
}

/** Top-level comma-separated arguments, trimmed. */
function splitArgs(inner: string): string[] {
  const args: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === "'") quoted = !quoted;
    if (quoted) continue;
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) {
      args.push(inner.slice(start, i).trim());
      start = i + 1;
    }
  }
  args.push(inner.slice(start).trim());
  return args;
}
