// Suggestion benchmark. (1) Quality: the labelled site-style terms of test/fixtures/suggest against the
// sample vocabulary vocab/, by description only (no code), as top-1, top-5 and MRR, beside the word search
// (`crossmap vocab search`) over the same terms in the same run. (2) Speed: 10,000 terms made from concept
// names of the generated vocabulary (bench/vocab-generate.ts; misspelt, reordered, cut) suggested against
// its index: `crossmap suggest --csv` as a user runs it (the goal's figures: 10,000 distinct terms against 5M
// concepts in <= 60 s, peak RSS <= 1 GB), then the same terms in process (the built modules, for the first
// term's time) and the word search over them, each in a child process for its own peak RSS.
// Usage: npx tsx bench/suggest.ts [--size full|small|tiny|none] [--terms N]   (default: full = 5M concepts)
import { execFileSync, spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildVocabulary } from "../src/vocab/build.js";
import { LAYOUT_VERSION } from "../src/vocab/layout.js";
import { indexLayout, openVocabulary } from "../src/vocab/lmdb-bridge.js";
import { foldText } from "../src/vocab/search-text.js";
import { loadAbbreviations } from "../src/vocab/suggest-table.js";
import { generateAthena } from "./vocab-generate.js";

const SIZES: Record<string, [number, number]> = {
  full: [5_000_000, 40_000_000],
  small: [500_000, 4_000_000],
  tiny: [50_000, 400_000],
};
const { values } = parseArgs({
  allowPositionals: true,
  options: {
    size: { type: "string", default: "full" },
    terms: { type: "string", default: "10000" },
    child: { type: "string" },
  },
});
const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);

/** A term as a site might write a concept name: a letter dropped, words swapped, a word cut short. */
function distort(name: string, i: number): string {
  const words = name.split(" ");
  if (i % 3 === 0 && words.length > 1) words.reverse();
  if (i % 3 === 1) {
    const k = words.findIndex((w) => w.length > 5);
    if (k >= 0) words[k] = words[k]!.slice(0, 1) + words[k]!.slice(2);
  }
  if (i % 3 === 2) {
    const k = words.findIndex((w) => w.length > 6);
    if (k >= 0) words[k] = words[k]!.slice(0, 4);
  }
  return words.join(" ");
}

/**
 * The speed terms: the first `n` distinct texts made from the generated vocabulary's standard concepts'
 * names, each with the concept it was made from.
 */
function speedTerms(dataDir: string, n: number): { id: number; text: string }[] {
  const fd = openSync(join(dataDir, "CONCEPT.csv"), "r");
  const buf = Buffer.alloc(8 << 20);
  const got = readSync(fd, buf, 0, buf.length, 0);
  closeSync(fd);
  const lines = buf.toString("utf8", 0, got).split("\n").slice(1, -1);
  const terms: { id: number; text: string }[] = [];
  const seen = new Set<string>();
  for (let i = 0; terms.length < n && i < lines.length; i++) {
    const f = lines[i]!.split("\t");
    if (f[5] !== "S") continue;
    const text = distort(f[1]!.replace(/"/g, ""), terms.length);
    // Distinct as the CLI counts them (pipeline/terms/collect.ts: by folded text).
    if (seen.has(foldText(text))) continue;
    seen.add(foldText(text));
    terms.push({ id: Number(f[0]), text });
  }
  return terms;
}

/**
 * Child: suggest (or search) each term in this process; one JSON line. It runs the built modules (dist/,
 * what `crossmap` runs), not the sources through tsx: tsx's transform wraps every function the code makes
 * in a naming helper (esbuild's keepNames), closures made per term included, which cost 19% more CPU at
 * 5M concepts (55.4 s against 46.5 s, same machine, back to back).
 */
async function speed(mode: string, dataDir: string, indexDir: string, n: number): Promise<void> {
  const terms = speedTerms(dataDir, n);
  const dist = (file: string) => new URL(`../dist/vocab/${file}`, import.meta.url).href;
  const { openVocabulary: open } = (await import(
    dist("lmdb-bridge.js")
  )) as typeof import("../src/vocab/lmdb-bridge.js");
  const { loadAbbreviations: abbreviations } = (await import(
    dist("suggest-table.js")
  )) as typeof import("../src/vocab/suggest-table.js");
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const bridge = open(indexDir);
  const table = abbreviations();
  let firstMs = 0;
  let top5 = 0;
  for (const [i, t] of terms.entries()) {
    const ids =
      mode === "suggest"
        ? bridge.suggest({ description: t.text }, { limit: 5 }, table).map((c) => c.concept_id)
        : bridge.search(t.text, { limit: 5, standard: true }).concepts.map((c) => c.concept_id);
    if (i === 0) firstMs = performance.now() - t0;
    if (ids.includes(t.id)) top5++;
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  console.log(
    JSON.stringify({
      terms: terms.length,
      ms: Math.round(ms),
      // CPU time (user + system) of the process from open on: what load on a shared machine distorts least.
      cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
      first_ms: Math.round(firstMs),
      top5: top5 / terms.length,
      rss_mb: peakRssMb(),
    }),
  );
}

/**
 * `crossmap suggest --csv` over the terms, as a user runs it (bin/crossmap.js, start-up, reading the CSV and
 * writing the NDJSON included), its CPU and peak RSS from bench/rss-hook.mjs.
 */
function cliSpeed(dataDir: string, indexDir: string, n: number) {
  const terms = speedTerms(dataDir, n);
  const dir = mkdtempSync(join(tmpdir(), "suggest-bench-cli-"));
  try {
    const csv = join(dir, "terms.csv");
    const quote = (t: string) => `"${t.replace(/"/g, '""')}"`;
    writeFileSync(csv, `term\n${terms.map((t) => quote(t.text)).join("\n")}\n`);
    const out = join(dir, "out.ndjson");
    const usageFile = join(dir, "usage.json");
    const cli = fileURLToPath(new URL("../bin/crossmap.js", import.meta.url));
    const hook = new URL("./rss-hook.mjs", import.meta.url).href;
    const args = ["suggest", "--vocab", indexDir, "--csv", csv, "--description-column", "term", "--out", out];
    const t0 = performance.now();
    const r = spawnSync(process.execPath, ["--import", hook, cli, ...args], {
      encoding: "utf8",
      env: { ...process.env, CROSSMAP_BENCH_RSS_FILE: usageFile },
    });
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new Error(`crossmap ${args.join(" ")} exited with ${r.status}:\n${r.stderr}`);
    const usage = JSON.parse(readFileSync(usageFile, "utf8")) as { maxRSS: number; cpu: number };
    const expected = new Map(terms.map((t) => [t.text, t.id]));
    let top5 = 0;
    let lines = 0;
    for (const line of readFileSync(out, "utf8").split("\n")) {
      if (!line) continue;
      lines++;
      const t = JSON.parse(line) as { source_description: string; candidates: { concept_id: number }[] };
      if (t.candidates.some((c) => c.concept_id === expected.get(t.source_description))) top5++;
    }
    if (lines !== terms.length) throw new Error(`crossmap suggest wrote ${lines} terms for ${terms.length}`);
    return {
      terms: lines,
      ms: Math.round(ms),
      cpu_ms: Math.round(usage.cpu / 1000),
      first_ms: Number.NaN,
      top5: top5 / lines,
      rss_mb: Math.round(usage.maxRSS / 1024),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (values.child) {
  const [dataDir, indexDir] = process.argv.slice(-2) as [string, string];
  await speed(values.child, dataDir, indexDir, Number(values.terms));
  process.exit(0);
}

// ---- quality over the labelled set ----
const dir = mkdtempSync(join(tmpdir(), "suggest-bench-"));
await buildVocabulary({ sourceDir: "vocab", outDir: join(dir, "index") });
const bridge = openVocabulary(join(dir, "index"));
const table = loadAbbreviations();
const rows = readFileSync("test/fixtures/suggest/labelled-terms.csv", "utf8").trim().split("\n").slice(1);
const labelled = rows.map((r) => {
  const m = /^(.*),(\d+),(\w+)$/.exec(r)!;
  return { text: m[1]!.replace(/^"|"$/g, "").replace(/""/g, '"'), id: Number(m[2]), kind: m[3]! };
});
type Ranker = (text: string) => number[];
const rankers: Record<string, Ranker> = {
  suggest: (t) => bridge.suggest({ description: t }, { limit: 50 }, table).map((c) => c.concept_id),
  "word search": (t) => bridge.search(t, { limit: 50, standard: true }).concepts.map((c) => c.concept_id),
};
const quality: Record<string, { top1: number; top5: number; mrr: number; byKind: Record<string, number> }> =
  {};
const misses: string[] = [];
for (const [name, rank] of Object.entries(rankers)) {
  let top1 = 0;
  let top5 = 0;
  let mrr = 0;
  const kindHits: Record<string, [number, number]> = {};
  for (const l of labelled) {
    const ids = rank(l.text);
    const at = ids.indexOf(l.id);
    if (at === 0) top1++;
    if (at >= 0 && at < 5) top5++;
    if (at >= 0) mrr += 1 / (at + 1);
    const k = kindHits[l.kind] ?? [0, 0];
    kindHits[l.kind] = k;
    k[1]++;
    if (at === 0) k[0]++;
    if (name === "suggest" && at !== 0)
      misses.push(`${l.kind}\t${l.text}\t${l.id}\tat ${at + 1 || "-"}\tgot ${ids[0] ?? "-"}`);
  }
  const n = labelled.length;
  quality[name] = {
    top1: top1 / n,
    top5: top5 / n,
    mrr: mrr / n,
    byKind: Object.fromEntries(Object.entries(kindHits).map(([k, [h, t]]) => [k, h / t])),
  };
}
await bridge.close();
rmSync(dir, { recursive: true, force: true });
const f = (x: number) => x.toFixed(3);
console.log(
  `labelled terms: ${labelled.length} (test/fixtures/suggest/labelled-terms.csv), vocabulary: vocab/, by description only`,
);
console.log("ranker        top-1  top-5  MRR    top-1 by kind");
for (const [name, q] of Object.entries(quality)) {
  const kinds = Object.entries(q.byKind)
    .map(([k, v]) => `${k} ${f(v)}`)
    .join(", ");
  console.log(`${name.padEnd(13)} ${f(q.top1)}  ${f(q.top5)}  ${f(q.mrr)}  ${kinds}`);
}
if (process.env.SUGGEST_MISSES) console.log(misses.join("\n"));

// ---- speed against the generated vocabulary ----
let speedResult: Record<string, unknown> = {};
if (values.size !== "none") {
  const preset = SIZES[values.size!];
  if (!preset) throw new Error(`--size must be one of ${Object.keys(SIZES).join(", ")}, none`);
  const [concepts, relationships] = preset;
  const dataDir = join("bench", "out", `athena-v2-${concepts}-${relationships}`);
  // An index of an older layout is kept (the base of a comparison may still read it); one of this layout
  // is built beside it, in a directory named by the layout, and kept for later runs.
  const plainDir = join("bench", "out", `index-${concepts}-${relationships}`);
  const indexDir =
    indexLayout(plainDir) === LAYOUT_VERSION
      ? plainDir
      : join("bench", "out", `index-${concepts}-${relationships}-layout${LAYOUT_VERSION}`);
  if (!existsSync(join(dataDir, "CONCEPT_RELATIONSHIP.csv"))) {
    process.stderr.write(`generating ${concepts} concepts in ${dataDir}\n`);
    generateAthena({ concepts, relationships, out: dataDir });
  }
  const layout = indexLayout(indexDir);
  if (layout !== LAYOUT_VERSION) {
    const older = indexLayout(plainDir);
    if (older !== undefined)
      process.stderr.write(`${plainDir} has layout ${older}, not ${LAYOUT_VERSION}: kept\n`);
    process.stderr.write(`building ${indexDir} (kept for later runs)\n`);
    await buildVocabulary({ sourceDir: dataDir, outDir: indexDir });
  }
  const child = (mode: string) =>
    JSON.parse(
      execFileSync(
        process.execPath,
        ["--import", "tsx", "bench/suggest.ts", "--child", mode, "--terms", values.terms!, dataDir, indexDir],
        {
          encoding: "utf8",
          stdio: ["ignore", "pipe", "inherit"],
        },
      )
        .trim()
        .split("\n")
        .pop()!,
    ) as { terms: number; ms: number; cpu_ms: number; first_ms: number; top5: number; rss_mb: number };
  const load = () => loadavg()[0]!.toFixed(1);
  const loadBefore = load();
  const c = cliSpeed(dataDir, indexDir, Number(values.terms));
  const s = child("suggest");
  const w = child("search");
  console.log(
    `\n${c.terms} distinct terms against ${concepts} generated concepts (own process each; open included)`,
  );
  console.log(
    `load average ${loadBefore} before, ${load()} after (${cpus().length} cores): wall time on a shared machine is stretched by the load, CPU time much less`,
  );
  console.log(
    "case                          total s  CPU s  CPU ms/term  first term ms  top-5 (own name)  peak RSS MB",
  );
  for (const [name, r] of [
    ["crossmap suggest --csv (CLI)", c],
    ["suggest, in process", s],
    ["word search, in process", w],
  ] as const) {
    const first = Number.isNaN(r.first_ms) ? "-" : String(r.first_ms);
    console.log(
      `${name.padEnd(29)} ${(r.ms / 1000).toFixed(1).padStart(7)}  ${(r.cpu_ms / 1000).toFixed(1).padStart(5)}  ${(r.cpu_ms / r.terms).toFixed(2).padStart(11)}  ${first.padStart(13)}  ${f(r.top5).padStart(16)}  ${String(r.rss_mb).padStart(11)}`,
    );
  }
  speedResult = {
    concepts,
    terms: c.terms,
    // The goal's figures: the CLI as a user runs it.
    suggest_s: c.ms / 1000,
    suggest_cpu_s: c.cpu_ms / 1000,
    suggest_rss_mb: c.rss_mb,
    in_process_s: s.ms / 1000,
    in_process_cpu_s: s.cpu_ms / 1000,
    in_process_rss_mb: s.rss_mb,
    search_s: w.ms / 1000,
    search_cpu_s: w.cpu_ms / 1000,
    time_ratio: s.ms / w.ms,
    cpu_ratio: s.cpu_ms / w.cpu_ms,
    load_average: Number(loadBefore),
    suggest_top5_generated: c.top5,
    search_top5_generated: w.top5,
  };
}
console.log(
  JSON.stringify({
    bench: "suggest",
    top1: quality.suggest!.top1,
    top5: quality.suggest!.top5,
    mrr: quality.suggest!.mrr,
    top1_ratio_to_search: quality.suggest!.top1 / quality["word search"]!.top1,
    ...speedResult,
  }),
);
