// DQD's evaluation filters (`isForeignKey=='Yes' & fkDomain!= ''`): R comparisons joined by `&`, read with
// R's rule that a comparison with NA (an empty cell) keeps no row.
import type { DefinitionRow } from "./definitions.js";

const TERM = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(==|!=)\s*'([^']*)'\s*$/;

/** Compiles a filter into a row predicate; throws on a form DQD's v5.4 files do not use. */
export function compileFilter(filter: string): (row: DefinitionRow) => boolean {
  const terms = filter.split("&").map((part) => {
    const m = TERM.exec(part);
    if (!m) throw new Error(`evaluation filter not understood: ${filter}`);
    const [, column, op, literal] = m as unknown as [string, string, string, string];
    return (row: DefinitionRow) => {
      const value = row[column];
      if (value === undefined) return false;
      return op === "==" ? value === literal : value !== literal;
    };
  });
  return (row) => terms.every((t) => t(row));
}
