// Ranks target table.column candidates for a profiled source column: by name (the column's words and
// what sites mean by them, against the target column's words weighted by how rare they are), by table
// (the source table's words against the target table's), and by how well its values fit the target
// column's type (schema-types.yaml). Score = 0.5 name + 0.25 table + 0.25 values, from 0 to 1.
import type { ColumnProfile } from "./profile.js";
import { type FitRule, nameWords, type SchemaWords, type TargetColumn } from "./rules.js";

export interface SchemaCandidate {
  target_table: string;
  target_column: string;
  score: number;
}

interface Target {
  column: TargetColumn;
  /** Words of the column's name and alias, and of its table. */
  words: Set<string>;
  tableWords: Set<string>;
  /** A word a source name may say instead of one of `words` -> that word (FHIR subject: patient). */
  instead: Map<string, string>;
  /** The fit of each kind of value. */
  fit: (kind: ColumnProfile["kind"]) => number;
}

const WEIGHTS = { name: 0.5, table: 0.25, values: 0.25 };

/** The share of the target table's words the source table's words (or their readings) say. */
function tableShare(forms: readonly string[], words: ReadonlySet<string>): number {
  if (words.size === 0) return 0;
  let n = 0;
  for (const w of words) if (forms.includes(w)) n++;
  return n / words.size;
}

export class SchemaRanker {
  private readonly targets: Target[];

  constructor(
    columns: readonly TargetColumn[],
    rules: readonly FitRule[],
    private readonly words: SchemaWords,
    /** Source field aliases by `TABLE.field` (HL7 v2 `PID.7` -> `date_time_of_birth`). */
    private readonly aliases: ReadonlyMap<string, string> = new Map(),
    /** Target word -> words a source name may say instead (schema-types.yaml `names`). */
    targetNames: ReadonlyMap<string, readonly string[]> = new Map(),
  ) {
    this.targets = columns.map((c) => {
      const rule = rules.find(
        (r) =>
          (r.column !== undefined &&
            (r.column.test(c.column) || (c.alias !== undefined && r.column.test(c.alias)))) ||
          (r.type !== undefined && c.type !== undefined && r.type.test(c.type)),
      );
      const words = new Set([...nameWords(c.column), ...(c.alias === undefined ? [] : nameWords(c.alias))]);
      const instead = new Map<string, string>();
      for (const w of words) for (const other of targetNames.get(w) ?? []) instead.set(other, w);
      return {
        column: c,
        words,
        instead,
        tableWords: new Set(nameWords(c.table)),
        fit: (kind) => (kind === "empty" ? 0.5 : rule ? (rule.fits[kind] ?? rule.other) : 0.5),
      };
    });
  }

  /** A word and what sites mean by it: [the word itself, then each reading's words]. */
  private forms(word: string): string[][] {
    return [[word], ...(this.words.get(word) ?? [])];
  }

  /** The `limit` best target columns for a source column, best first (ties in definition order). */
  rank(p: ColumnProfile, limit: number): SchemaCandidate[] {
    const alias = this.aliases.get(p.column);
    const own = nameWords(alias ?? p.column);
    const tableForms = nameWords(p.table).flatMap((w) => this.forms(w).flat());
    const scored = this.targets.map((t, i) => {
      const score =
        WEIGHTS.name * this.nameScore(own, tableForms, t) +
        WEIGHTS.table * tableShare(tableForms, t.tableWords) +
        WEIGHTS.values * t.fit(p.kind);
      return { i, score };
    });
    scored.sort((a, b) => b.score - a.score || a.i - b.i);
    return scored.slice(0, limit).map(({ i, score }) => ({
      target_table: this.targets[i]!.column.table,
      target_column: this.targets[i]!.column.column,
      score: Math.round(score * 1000) / 1000,
    }));
  }

  /**
   * The F-measure of how much of the source name the target column says (each source word: 1 as written,
   * 0.9 through a reading, 0.6 as a prefix of a target word or the other way round) and how much of the
   * target column's words (weighted by rarity) the source name or its table says.
   */
  private nameScore(own: string[], tableForms: string[], t: Target): number {
    if (own.length === 0 || t.words.size === 0) return 0;
    const covered = new Set<string>();
    let said = 0;
    for (const w of own) {
      const forms = this.forms(w);
      let best = 0;
      forms.forEach((reading, k) => {
        for (const f of reading) {
          if (t.words.has(f)) {
            best = Math.max(best, k === 0 ? 1 : 0.9);
            covered.add(f);
          } else if (t.instead.has(f)) {
            best = Math.max(best, 0.9);
            covered.add(t.instead.get(f)!);
          } else if (f.length >= 3) {
            for (const x of t.words) {
              if (x.length >= 3 && (x.startsWith(f) || f.startsWith(x))) {
                best = Math.max(best, 0.6);
                covered.add(x);
              }
            }
          }
        }
      });
      said += best;
    }
    for (const f of tableForms) {
      if (t.words.has(f)) covered.add(f);
      else if (t.instead.has(f)) covered.add(t.instead.get(f)!);
    }
    const precision = said / own.length;
    let got = 0;
    for (const x of t.words) if (covered.has(x)) got++;
    const recall = got / t.words.size;
    return precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  }
}
