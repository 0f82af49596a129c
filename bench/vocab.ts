// Vocabulary benchmark: build rate against papaparse parse-only of the same files (baseline measured in
// the same run), peak RSS of the build, index size, open-to-first-lookup time and lookups per second.
// Usage: npx tsx bench/vocab.ts [--size full|small|tiny] [--concepts N --relationships M] [--keep]
// full = 5M concepts / 40M relationships (Athena scale; needs ~4 GB disk and several minutes).
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { generateAthena } from "./vocab-generate.js";

const SIZES: Record<string, [number, number]> = {
  full: [5_000_000, 40_000_000],
  small: [500_000, 4_000_000],
  tiny: [50_000, 400_000],
};

const { values } = parseArgs({
  options: {
    size: { type: "string", default: "small" },
    concepts: { type: "string" },
    relationships: { type: "string" },
    keep: { type: "boolean", default: false },
  },
});
const preset = SIZES[values.size!];
if (!preset) throw new Error(`--size must be one of ${Object.keys(SIZES).join(", ")}`);
const concepts = Number(values.concepts ?? preset[0]);
const relationships = Number(values.relationships ?? preset[1]);
// "v2": names and synonyms made for the concept search; data generated before them is not reused.
const dataDir = join("bench", "out", `athena-v2-${concepts}-${relationships}`);
const indexDir = join("bench", "out", `index-${concepts}-${relationships}`);

function step(mode: string, ...args: string[]): Record<string, number> {
  const out = execFileSync(process.execPath, ["--import", "tsx", "bench/vocab-child.ts", mode, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split("\n").pop()!);
}

const dirBytes = (dir: string) => readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);

if (!existsSync(join(dataDir, "CONCEPT_RELATIONSHIP.csv"))) {
  process.stderr.write(`generating ${concepts} concepts / ${relationships} relationships in ${dataDir}\n`);
  generateAthena({ concepts, relationships, out: dataDir });
}
const inputMb = dirBytes(dataDir) / 1e6;
process.stderr.write("parse-only baseline...\n");
const parse = step("parse", dataDir);
process.stderr.write("build without the search index (baseline)...\n");
const bare = step("build-without-search", dataDir, `${indexDir}-without-search`);
rmSync(`${indexDir}-without-search`, { recursive: true, force: true });
process.stderr.write("build...\n");
const build = step("build", dataDir, indexDir);
process.stderr.write("lookups...\n");
const look = step("lookup", dataDir, indexDir);
process.stderr.write("searches...\n");
const find = step("search", dataDir, indexDir);
const indexMb = dirBytes(indexDir) / 1e6;

const result = {
  bench: "vocab",
  concepts,
  relationships,
  input_mb: Math.round(inputMb),
  parse_only_ms: parse.ms,
  parse_only_rows_per_s: Math.round(parse.rows! / (parse.ms! / 1000)),
  build_ms: build.ms,
  build_rows_per_s: Math.round(parse.rows! / (build.ms! / 1000)),
  build_vs_parse_only: Math.round((parse.ms! / build.ms!) * 100) / 100,
  // CPU time is less sensitive to other load on the machine than wall time; the build's includes its
  // relationship worker thread, so this ratio is the stricter one.
  parse_only_cpu_ms: parse.cpu_ms,
  build_cpu_ms: build.cpu_ms,
  build_vs_parse_only_cpu: Math.round((parse.cpu_ms! / build.cpu_ms!) * 100) / 100,
  build_peak_rss_mb: build.peak_rss_mb,
  // what the concept search index costs: the same build without it, in the same run
  build_without_search_ms: bare.ms,
  build_without_search_cpu_ms: bare.cpu_ms,
  build_without_search_peak_rss_mb: bare.peak_rss_mb,
  build_vs_without_search: Math.round((build.ms! / bare.ms!) * 100) / 100,
  build_vs_without_search_cpu: Math.round((build.cpu_ms! / bare.cpu_ms!) * 100) / 100,
  index_mb: Math.round(indexMb),
  open_to_first_lookup_ms: look.open_to_first_lookup_ms,
  // 100k distinct concepts spread over the index, then a 10k working set (see vocab-child.ts)
  ...Object.fromEntries(Object.entries(look).filter(([k]) => /_(per_s|cpu_us)$/.test(k))),
  // concept search, one query at a time on one core (see vocab-child.ts)
  ...Object.fromEntries(
    Object.entries(find).filter(([k]) => k.startsWith("search_") && k !== "search_found"),
  ),
  node: process.version,
};
const width = Math.max(...Object.keys(result).map((k) => k.length));
for (const [k, v] of Object.entries(result))
  process.stdout.write(`${k.padEnd(width)}  ${typeof v === "number" ? v.toLocaleString("en-US") : v}\n`);
process.stdout.write(`${JSON.stringify(result)}\n`);
if (!values.keep) rmSync(indexDir, { recursive: true, force: true });
