// Benchmark `omop-db`: mapped OMOP rows (the NDJSON the pipeline hands its output) written into a CDM
// database by crossmap's sink (rows -> registry ids -> CSV -> COPY, a transaction per batch), against a
// plain COPY of the same rows from CSV files in the same run; each in its own process, for peak RSS.
// Targets: PGlite (PostgreSQL in WebAssembly, in the process: its RSS includes the database itself) and
// DuckDB always; a PostgreSQL server when `--db postgresql://...` is given (a fresh schema is made in it
// for each load and dropped after). Knobs: BENCH_ROWS (default 1000000: a tenth person rows, the rest
// condition_occurrence rows), BENCH_TARGETS (default "pglite,duckdb").
// The child runs as one JavaScript file bundled from the sources (as the CLI runs from its bundle), not
// through tsx: tsx's loader thread alone adds ~37 MB to a process's RSS, which the peak-RSS goal would count.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { generateConditions, generatePersons } from "./generate.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const outDir = join(root, "bench", "out", "omop-db");
const childSource = fileURLToPath(new URL("./omop-db-child.ts", import.meta.url));
// Two levels below the root, like dist/cli/: the sources find crossmaps/ at ../../crossmaps from there.
const child = join(root, "bench", "out", "omop-db-child.mjs");
const hook = new URL("./rss-hook.mjs", import.meta.url).href;

const rows = Number(process.env.BENCH_ROWS ?? 1_000_000);
const persons = Math.round(rows / 10);
const conditions = rows - persons;
const dbFlag = process.argv.indexOf("--db");
const server = dbFlag >= 0 ? process.argv[dbFlag + 1] : undefined;
const targets = (process.env.BENCH_TARGETS ?? "pglite,duckdb").split(",").filter((t) => t);
if (server) targets.push("server");

interface Measured {
  seconds: number;
  rssMb: number;
  cpu: number;
  out: string;
}

async function timed(args: string[]): Promise<Measured> {
  const rssFile = join(outDir, `rss-${process.pid}.json`);
  rmSync(rssFile, { force: true });
  const started = performance.now();
  const p = spawn(process.execPath, ["--import", hook, child, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, CROSSMAP_BENCH_RSS_FILE: rssFile },
  });
  let out = "";
  p.stdout.on("data", (d) => {
    out += d;
  });
  const code = await new Promise<number | null>((r) => p.on("close", r));
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`omop-db-child ${args.join(" ")} exited with ${code}`);
  const { maxRSS, cpu } = JSON.parse(readFileSync(rssFile, "utf8")) as { maxRSS: number; cpu: number };
  return { seconds, rssMb: Math.round(maxRSS / 1024), cpu: cpu / 1e6, out: out.trim() };
}

mkdirSync(outDir, { recursive: true });
await build({
  entryPoints: [childSource],
  outfile: child,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  logLevel: "warning",
});
const personFile = join(outDir, "person.ndjson");
const conditionFile = join(outDir, "condition_occurrence.ndjson");
const csvDir = join(outDir, "csv");
await generatePersons(personFile, persons);
await generateConditions(conditionFile, conditions, persons);
const inputMb = (statSync(personFile).size + statSync(conditionFile).size) / 2 ** 20;

// The CSV files of the baseline: the same rows as the sink writes them (ids from a fresh registry).
rmSync(csvDir, { recursive: true, force: true });
const csv = await timed(["csv", csvDir, personFile, conditionFile]);

const urlFor = (target: string, run: string): string => {
  if (target === "pglite") return `pglite:${join(outDir, `pglite-${run}`)}`;
  if (target === "duckdb") return join(outDir, `${run}.duckdb`);
  return `${server}${server!.includes("?") ? "&" : "?"}schema=bench_${run}_${process.pid}`;
};

interface Row {
  target: string;
  case: string;
  rows: number;
  seconds: number;
  rows_per_s: number;
  peak_rss_mb: number;
  cpu_seconds: number;
  /** CPU of the loading process during the load itself, per row (contention distorts it less than wall time). */
  load_cpu_us_per_row: number;
  /** CPU of the PostgreSQL server's backend during the load, per row (a server on this machine only). */
  server_cpu_us_per_row: number | null;
}
const table: Row[] = [];
const ratios: Record<string, number> = {};
/** Plain COPY's CPU per row over the sink's (the loading process's, plus the server backend's where read). */
const cpuRatios: Record<string, number> = {};
const cpuPerRow = (r: Row) => r.load_cpu_us_per_row + (r.server_cpu_us_per_row ?? 0);
const row = (target: string, name: string, m: Measured): Row => {
  // The child prints the wall and CPU seconds the load itself took (after opening the database, which PGlite
  // needs seconds for), and its server backend's CPU seconds where it can read them.
  const [wall, cpu, server] = m.out.split(" ").map(Number);
  const seconds = wall || m.seconds;
  const r = {
    target,
    case: name,
    rows,
    seconds: Number(seconds.toFixed(2)),
    rows_per_s: Math.round(rows / seconds),
    peak_rss_mb: m.rssMb,
    cpu_seconds: Number(m.cpu.toFixed(2)),
    load_cpu_us_per_row: Number((((cpu ?? m.cpu) * 1e6) / rows).toFixed(2)),
    server_cpu_us_per_row: server === undefined ? null : Number(((server * 1e6) / rows).toFixed(2)),
  };
  table.push(r);
  return r;
};

for (const target of targets) {
  for (const run of ["sink", "copy"])
    rmSync(urlFor(target, run).replace(/^pglite:/, ""), { recursive: true, force: true });
  await timed(["init", urlFor(target, "copy")]);
  const copy = row(
    target,
    "plain COPY from CSV (baseline)",
    await timed(["copy", urlFor(target, "copy"), csvDir]),
  );
  await timed(["init", urlFor(target, "sink")]);
  const sink = row(
    target,
    "crossmap sink (registry ids, COPY per batch)",
    await timed(["sink", urlFor(target, "sink"), personFile, conditionFile]),
  );
  ratios[target] = Number((sink.rows_per_s / copy.rows_per_s).toFixed(3));
  cpuRatios[target] = Number((cpuPerRow(copy) / cpuPerRow(sink)).toFixed(3));
  if (target === "server") {
    await timed(["drop", urlFor(target, "copy")]);
    await timed(["drop", urlFor(target, "sink")]);
  }
  for (const run of ["sink", "copy"])
    rmSync(urlFor(target, run).replace(/^pglite:/, ""), { recursive: true, force: true });
}
row("files", "crossmap CSV files (--out-format csv)", csv);

console.log(
  `omop-db: ${rows} rows (${persons} person, ${conditions} condition_occurrence; ${inputMb.toFixed(0)} MB NDJSON); ` +
    `${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(1)}`,
);
const pad = (s: string | number, n: number, left = false) =>
  left ? String(s).padEnd(n) : String(s).padStart(n);
console.log(
  `${pad("target", 8, true)} ${pad("case", 46, true)} ${pad("s", 8)} ${pad("rows/s", 9)} ${pad("RSS MB", 7)} ${pad("CPU s", 7)} ${pad("us/row", 7)} ${pad("srv us", 7)}`,
);
for (const r of table) {
  console.log(
    `${pad(r.target, 8, true)} ${pad(r.case, 46, true)} ${pad(r.seconds, 8)} ${pad(r.rows_per_s, 9)} ${pad(r.peak_rss_mb, 7)} ${pad(r.cpu_seconds, 7)} ${pad(r.load_cpu_us_per_row, 7)} ${pad(r.server_cpu_us_per_row ?? "", 7)}`,
  );
}
console.log(
  JSON.stringify({
    bench: "omop-db",
    rows,
    load_average: Number(loadavg()[0]!.toFixed(1)),
    sink_to_copy_ratio: ratios,
    sink_to_copy_cpu_ratio: cpuRatios,
    results: table,
  }),
);
rmSync(outDir, { recursive: true, force: true });
rmSync(child, { force: true });
