// One measured step of the vocabulary benchmark, run in its own process so that peak RSS and
// open-to-first-lookup belong to that step alone. Prints one JSON line. Driven by bench/vocab.ts.
import { closeSync, createReadStream, existsSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import Papa from "papaparse";

// The built modules (dist/, what `crossmap` runs; `npm run bench` builds first), not the sources through
// tsx: tsx's transform wraps every function made at run time in a naming helper (esbuild's keepNames),
// which cost the suggester 19% more CPU (bench/suggest.ts).
const dist = (file: string) => new URL(`../dist/vocab/${file}`, import.meta.url).href;
const { detectForm, parseConfig } = (await import(
  dist("athena-files.js")
)) as typeof import("../src/vocab/athena-files.js");
const { buildVocabulary } = (await import(dist("build.js"))) as typeof import("../src/vocab/build.js");
const { openVocabulary } = (await import(
  dist("lmdb-bridge.js")
)) as typeof import("../src/vocab/lmdb-bridge.js");

const [mode, a, b] = process.argv.slice(2);
const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);

/** papaparse over the same files with the same settings, rows counted and dropped: the baseline. */
async function parseOnly(dir: string): Promise<number> {
  let rows = 0;
  for (const name of ["CONCEPT.csv", "CONCEPT_RELATIONSHIP.csv", "CONCEPT_SYNONYM.csv"]) {
    const file = join(dir, name);
    if (!existsSync(file)) continue;
    await new Promise<void>((resolve, reject) =>
      Papa.parse<string[]>(createReadStream(file, { highWaterMark: 1 << 20 }), {
        ...parseConfig(detectForm(file)),
        chunk: (r) => {
          rows += r.data.length;
        },
        complete: () => resolve(),
        error: reject,
      }),
    );
  }
  return rows;
}

/** The first `n` data lines of a TAB file (the generator scrambles rows: these are spread over it). */
function firstLines(file: string, n: number): string[][] {
  const fd = openSync(file, "r");
  const buf = Buffer.alloc(32 << 20);
  const got = readSync(fd, buf, 0, buf.length, 0);
  closeSync(fd);
  const lines = buf
    .toString("utf8", 0, got)
    .split("\n")
    .slice(1, n + 1);
  lines.pop(); // possibly cut short
  return lines.map((l) => l.split("\t"));
}

function readSample(dir: string, n: number): { id: number; vocab: string; code: string }[] {
  return firstLines(join(dir, "CONCEPT.csv"), n).map((f) => ({
    id: Number(f[0]),
    vocab: f[3]!,
    code: f[6]!,
  }));
}

function lookups(dir: string, source: string): Record<string, number> {
  const t0 = performance.now();
  const bridge = openVocabulary(dir);
  bridge.getConcept(0);
  const openMs = performance.now() - t0;
  // Real ids and codes to look up: the first 100k rows of CONCEPT.csv (scrambled order), shuffled again.
  const sample = readSample(source, 100_000);
  for (let i = sample.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [sample[i], sample[j]] = [sample[j]!, sample[i]!];
  }
  // Lookups per second (wall) and CPU microseconds per lookup: the CPU figure holds when other processes
  // compete for the cores, the wall figure does not. Two samples: 100k distinct concepts spread over the
  // index (their slots and records do not fit in the CPU caches: every read is a trip to memory), and a
  // working set of 10k (like the distinct concepts of one hospital's export), which stays cached.
  const out: Record<string, number> = { open_to_first_lookup_ms: Math.round(openMs * 100) / 100 };
  const rate = (name: string, set: typeof sample, fn: (s: (typeof sample)[number]) => unknown) => {
    for (const s of set) fn(s); // warm
    const n = 1_000_000;
    let sink = 0;
    const cpu0 = process.cpuUsage();
    const t = performance.now();
    for (let i = 0; i < n; i++) if (fn(set[i % set.length]!)) sink++;
    const perSec = n / ((performance.now() - t) / 1000);
    const cpu = process.cpuUsage(cpu0);
    out[`${name}_per_s`] = sink >= 0 ? Math.round(perSec) : 0;
    out[`${name}_cpu_us`] = Math.round(((cpu.user + cpu.system) / n) * 1000) / 1000;
  };
  for (const [suffix, set] of [
    ["", sample],
    ["_10k", sample.slice(0, 10_000)],
  ] as const) {
    rate(`getConcept${suffix}`, set, (s) => bridge.getConcept(s.id));
    rate(`lookupCode${suffix}`, set, (s) => bridge.lookupCode(s.vocab, s.code));
    rate(`mapConcept${suffix}`, set, (s) => bridge.mapConcept(s.id));
    rate(`standardConcept${suffix}`, set, (s) => bridge.standardConcept(s.vocab, s.code));
  }
  return out;
}

/**
 * Concept search latency on one core: ~1,300 queries of the kinds a reviewer types (whole names, a word
 * and the start of the next, three letters, one common word, codes, ids, synonyms, capitals and accents,
 * with and without filters), each timed alone after a warm-up pass over all of them.
 */
function searches(dir: string, source: string): Record<string, number> {
  const bridge = openVocabulary(dir);
  const concepts = firstLines(join(source, "CONCEPT.csv"), 20_000);
  const synonymFile = join(source, "CONCEPT_SYNONYM.csv");
  const synonyms = existsSync(synonymFile) ? firstLines(synonymFile, 2_000) : [];
  let seed = 7;
  const pick = <T>(list: T[]): T => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return list[seed % list.length]!;
  };
  const named = concepts.filter((f) => f[1] !== "NA" && f[1]!.split(" ").length >= 2);
  const words = (f: string[]) =>
    f[1]!
      .replace(/[^A-Za-z0-9 ]/g, " ")
      .split(/\s+/)
      .filter(Boolean);
  type Q = { kind: string; text: string; options?: Parameters<typeof bridge.search>[1] };
  const queries: Q[] = [];
  const add = (kind: string, text: string, options?: Q["options"]) =>
    queries.push({ kind, text, ...(options ? { options } : {}) });
  for (let i = 0; i < 200; i++) add("whole name", pick(named)[1]!);
  for (let i = 0; i < 200; i++) {
    const w = words(pick(named));
    add("word + 3 letters", `${w[0]} ${(w[1] ?? "").slice(0, 3)}`);
  }
  for (let i = 0; i < 200; i++) add("3 letters", words(pick(named))[0]!.slice(0, 3));
  for (const w of ["of", "disorder", "tablet", "oral", "serum", "left", "chronic", "mg", "type", "a", "b"]) {
    add("common word", w);
    add("common word, standard", w, { standard: true });
  }
  for (let i = 0; i < 150; i++) add("code", pick(concepts)[6]!);
  for (let i = 0; i < 150; i++) add("id", pick(concepts)[0]!);
  for (let i = 0; i < 100 && synonyms.length > 0; i++) {
    add("synonym", pick(synonyms)[1]!.split(" ").slice(0, 2).join(" "));
  }
  for (let i = 0; i < 100; i++) add("capitals", pick(named)[1]!.toUpperCase().slice(0, 12));
  for (const w of ["Ménière", "sjogren", "guillain barre", "CAFÉ AU"]) add("accents", w);
  for (let i = 0; i < 100; i++) {
    const f = pick(named);
    add("word, vocabulary, standard", words(f)[0]!, { vocabularies: [f[3]!], standard: true, limit: 50 });
  }
  for (let i = 0; i < 50; i++)
    add("two words, domain", words(pick(named)).slice(0, 2).join(" "), { domains: ["Drug"] });
  let found = 0;
  for (const q of queries) found += bridge.search(q.text, q.options).concepts.length; // warm
  const ms: number[] = [];
  const timed: { ms: number; q: Q }[] = [];
  const cpu0 = process.cpuUsage();
  // CPU time per query too: the wall figure includes whatever else the shared machine runs meanwhile.
  const cpuMs: number[] = [];
  for (const q of queries) {
    const c = process.cpuUsage();
    const t = performance.now();
    found += bridge.search(q.text, q.options).concepts.length;
    const took = performance.now() - t;
    const used = process.cpuUsage(c);
    cpuMs.push((used.user + used.system) / 1000);
    ms.push(took);
    timed.push({ ms: took, q });
  }
  cpuMs.sort((a, b) => a - b);
  const cpu = process.cpuUsage(cpu0);
  ms.sort((a, b) => a - b);
  // The tail, on stderr: which kinds of query are slow, and the slowest queries.
  const kinds = new Map<string, number[]>();
  for (const { ms: took, q } of timed) kinds.set(q.kind, [...(kinds.get(q.kind) ?? []), took]);
  for (const [kind, list] of kinds) {
    list.sort((a, b) => a - b);
    const p95 = list[Math.min(list.length - 1, Math.floor(0.95 * list.length))]!;
    process.stderr.write(
      `  ${kind.padEnd(28)} n=${String(list.length).padStart(3)} p95 ${p95.toFixed(2)} ms, max ${list[list.length - 1]!.toFixed(2)} ms\n`,
    );
  }
  timed.sort((a, b) => b.ms - a.ms);
  for (const { ms: took, q } of timed.slice(0, Number(process.env.BENCH_SEARCH_SLOWEST ?? 10))) {
    process.stderr.write(
      `  slow ${took.toFixed(1)} ms: ${JSON.stringify(q.text)} ${JSON.stringify(q.options ?? {})}\n`,
    );
  }
  const at = (p: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]! * 100) / 100;
  return {
    search_queries: queries.length,
    search_p50_ms: at(0.5),
    search_p95_ms: at(0.95),
    search_p99_ms: at(0.99),
    search_max_ms: at(1),
    search_cpu_p50_ms: Math.round(cpuMs[Math.floor(0.5 * cpuMs.length)]! * 100) / 100,
    search_cpu_p95_ms: Math.round(cpuMs[Math.floor(0.95 * cpuMs.length)]! * 100) / 100,
    search_cpu_ms_per_query: Math.round(((cpu.user + cpu.system) / 1000 / queries.length) * 100) / 100,
    search_found: found,
  };
}

let out: Record<string, unknown>;
const t = performance.now();
if (mode === "parse") out = { rows: await parseOnly(a!) };
else if (mode === "build") {
  const r = await buildVocabulary({ sourceDir: a!, outDir: b! });
  out = { concepts: r.info.concepts, relationships: r.info.relationships, malformed: r.malformedRows };
} else if (mode === "build-without-search") {
  // the same build without the concept search index: the baseline for what the index costs
  const r = await buildVocabulary({ sourceDir: a!, outDir: b!, search: false });
  out = { concepts: r.info.concepts };
} else if (mode === "lookup") out = lookups(b!, a!);
else if (mode === "search") out = searches(b!, a!);
else throw new Error(`unknown mode ${mode}`);
const cpu = process.cpuUsage(); // all threads of the process, the build's worker included
const cpuMs = Math.round((cpu.user + cpu.system) / 1000);
const ms = Math.round(performance.now() - t);
process.stdout.write(`${JSON.stringify({ ...out, ms, cpu_ms: cpuMs, peak_rss_mb: peakRssMb() })}\n`);
