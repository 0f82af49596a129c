// Schema suggestion benchmark: the labelled columns of test/fixtures/schema-suggest (a site's extract
// tables with each column's correct target column, per target standard) ranked by `crossmap suggest
// --schema`'s ranker, as top-1, top-3 and MRR, beside a baseline in the same run: the same ranker with the
// column names as written only (no site readings of the words, no value fit).
// Usage: npx tsx bench/schema-suggest.ts   (SCHEMA_MISSES=1 lists the misses)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Papa from "papaparse";
import { ColumnProfiler } from "../src/pipeline/schema/profile.js";
import { SchemaRanker } from "../src/pipeline/schema/rank.js";
import {
  loadFitRules,
  loadSchemaWords,
  loadTargetNames,
  targetColumns,
} from "../src/pipeline/schema/rules.js";
import { expandInputs, readTerms } from "../src/pipeline/terms/read.js";

const FIXTURES = join(import.meta.dirname, "..", "test", "fixtures", "schema-suggest");
const labels = Papa.parse<Record<string, string>>(readFileSync(join(FIXTURES, "labels.csv"), "utf8"), {
  header: true,
  skipEmptyLines: true,
}).data;

const profiler = new ColumnProfiler();
await readTerms(await expandInputs([join(FIXTURES, "site")]), profiler, {
  problem: (p) => {
    throw new Error(`${p.file}:${p.line}: ${p.message}`);
  },
});
const profiles = new Map(profiler.profiles().map((p) => [`${p.table}.${p.column}`, p]));

interface Quality {
  n: number;
  top1: number;
  top3: number;
  mrr: number;
  msPerColumn: number;
}
const misses: string[] = [];

function measure(target: string, ranker: SchemaRanker, name: string): Quality {
  const rows = labels.filter((l) => l.target === target);
  let top1 = 0;
  let top3 = 0;
  let mrr = 0;
  const started = performance.now();
  for (const l of rows) {
    const p = profiles.get(`${l.source_table}.${l.source_column}`);
    if (!p) throw new Error(`labels.csv names ${l.source_table}.${l.source_column}, which no table has`);
    const ranked = ranker.rank(p, 50);
    const at = ranked.findIndex(
      (c) => c.target_table === l.target_table && c.target_column === l.target_column,
    );
    if (at === 0) top1++;
    if (at >= 0 && at < 3) top3++;
    if (at >= 0) mrr += 1 / (at + 1);
    if (at !== 0 && name === "suggest") {
      const got = ranked.slice(0, 3).map((c) => `${c.target_table}.${c.target_column} ${c.score}`);
      misses.push(
        `${target} ${l.source_table}.${l.source_column} -> ${l.target_table}.${l.target_column} at ${at + 1}: ${got.join(", ")}`,
      );
    }
  }
  const n = rows.length;
  return { n, top1: top1 / n, top3: top3 / n, mrr: mrr / n, msPerColumn: (performance.now() - started) / n };
}

const results: Record<string, Record<string, Quality>> = {};
for (const target of [...new Set(labels.map((l) => l.target!))]) {
  const columns = targetColumns(target);
  results[target] = {
    suggest: measure(
      target,
      new SchemaRanker(columns, loadFitRules(target), loadSchemaWords(), new Map(), loadTargetNames(target)),
      "suggest",
    ),
    "names as written": measure(target, new SchemaRanker(columns, [], new Map()), "names"),
  };
}

const f = (x: number) => x.toFixed(3);
console.log("target         ranker            columns  top-1  top-3  MRR    ms/column");
for (const [target, byRanker] of Object.entries(results)) {
  for (const [name, q] of Object.entries(byRanker)) {
    console.log(
      `${target.padEnd(14)} ${name.padEnd(17)} ${String(q.n).padStart(7)}  ${f(q.top1)}  ${f(q.top3)}  ${f(q.mrr)}  ${q.msPerColumn.toFixed(2)}`,
    );
  }
}
if (process.env.SCHEMA_MISSES) console.log(misses.join("\n"));
console.log(
  JSON.stringify({
    bench: "schema-suggest",
    ...Object.fromEntries(
      Object.entries(results).map(([target, r]) => [
        target,
        {
          columns: r.suggest!.n,
          top1: Number(f(r.suggest!.top1)),
          top3: Number(f(r.suggest!.top3)),
          mrr: Number(f(r.suggest!.mrr)),
          baseline_top1: Number(f(r["names as written"]!.top1)),
          baseline_top3: Number(f(r["names as written"]!.top3)),
          // Against a baseline that finds none, a ratio says nothing: null.
          top1_ratio:
            r["names as written"]!.top1 === 0
              ? null
              : Number((r.suggest!.top1 / r["names as written"]!.top1).toFixed(2)),
        },
      ]),
    ),
  }),
);
