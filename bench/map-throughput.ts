// Benchmark `map-throughput`: crossmap map on 1M OMOP person and 1M condition_occurrence NDJSON rows,
// against a plain JSON.parse + JSON.stringify baseline run in the same session; peak RSS while mapping a
// 2 GB stream and a 2 GB FHIR Bundle file; start-up to the first record; the cost of a project's reviewed
// decisions: the condition rows through a crossmap with a vocabulary_reverse_lookup field, without and
// with --project (10,000 decisions); and the full built-in OMOP -> FHIR crossmap (person -> Patient,
// measurement -> Observation, every column carried) against a hand-written program that builds the same
// resources. Knobs: BENCH_ROWS (default 1000000), BENCH_BUILTIN_ROWS
// (default 200000; 0 skips those cases), BENCH_RSS_GB (default 2; 0
// skips it), BENCH_BUNDLE_GB (default 2; 0 skips it), BENCH_REPEAT (default 3: each timing is the best of
// that many runs, taken round robin), BENCH_COMPARE (another checkout's bin/crossmap.js, built: its
// start-up is timed in the same rounds, for a before/after ratio), BENCH_DECISIONS (default 10000; 0
// skips the decision cases), BENCH_ONLY=decisions (only the decision cases and their baseline).
import { spawn } from "node:child_process";
import { createReadStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { projectDecisionsDataDir } from "./decisions.js";
import { generateBundle, generateConditions, generateMeasurements, generatePersons } from "./generate.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const outDir = join(root, "bench", "out");
const cli = join(root, "bin", "crossmap.js");
const crossmap = join(root, "bench", "omop-to-fhir.yaml");
const decisionsCrossmap = join(root, "bench", "omop-to-fhir-decisions.yaml");
const hook = new URL("./rss-hook.mjs", import.meta.url).href;

interface Timing {
  case: string;
  records: number;
  seconds: number;
  records_per_s: number;
  ratio_to_baseline: number | null;
  peak_rss_mb: number;
  /** User + system CPU of the process, all threads: what the run costs whatever else the machine does. */
  cpu_seconds: number;
  /** cpu_seconds scaled to 1M records: comparable across BENCH_ROWS, and meaningful on a busy machine. */
  cpu_s_per_1m: number;
  input_mb: number;
}

/** Runs `node --import rss-hook args`, feeding `stdin` if given; resolves to wall time and peak RSS. */
interface Measured {
  seconds: number;
  rssMb: number;
  cpu: number;
}

async function timed(args: string[], stdin?: NodeJS.ReadableStream): Promise<Measured> {
  const rssFile = join(outDir, `rss-${process.pid}.txt`);
  rmSync(rssFile, { force: true });
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", hook, ...args], {
    stdio: [stdin ? "pipe" : "ignore", "ignore", "pipe"],
    env: { ...process.env, CROSSMAP_BENCH_RSS_FILE: rssFile },
  });
  let stderr = "";
  child.stderr?.on("data", (d) => {
    stderr += d;
  });
  if (stdin && child.stdin) {
    child.stdin.on("error", () => {});
    stdin.pipe(child.stdin);
  }
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`${args.join(" ")} exited with ${code}:\n${stderr}`);
  const usage = JSON.parse(readFileSync(rssFile, "utf8")) as { maxRSS: number; cpu: number };
  return { seconds, rssMb: usage.maxRSS / 1024, cpu: usage.cpu / 1e6 };
}

async function ensureData(rows: number): Promise<{ person: string; condition: string }> {
  mkdirSync(outDir, { recursive: true });
  const person = join(outDir, `person-${rows}.ndjson`);
  const condition = join(outDir, `condition_occurrence-${rows}.ndjson`);
  if (!existsSync(person)) {
    process.stderr.write(`generating ${rows} person rows...\n`);
    await generatePersons(`${person}.part`, rows);
    renameSync(`${person}.part`, person);
  }
  if (!existsSync(condition)) {
    process.stderr.write(`generating ${rows} condition_occurrence rows...\n`);
    await generateConditions(`${condition}.part`, rows, rows);
    renameSync(`${condition}.part`, condition);
  }
  return { person, condition };
}

async function ensureBuiltinData(rows: number): Promise<{ person: string; measurement: string }> {
  mkdirSync(outDir, { recursive: true });
  const person = join(outDir, `person-${rows}.ndjson`);
  const measurement = join(outDir, `measurement-${rows}.ndjson`);
  if (!existsSync(person)) {
    await generatePersons(`${person}.part`, rows);
    renameSync(`${person}.part`, person);
  }
  if (!existsSync(measurement)) {
    process.stderr.write(`generating ${rows} measurement rows...\n`);
    await generateMeasurements(`${measurement}.part`, rows, rows);
    renameSync(`${measurement}.part`, measurement);
  }
  return { person, measurement };
}

/** Lines of two NDJSON files that are not the same JSON value (key order aside), with the first such line. */
function differences(a: string, b: string): { lines: number; differ: number; first?: number } {
  const left = readFileSync(a, "utf8").split("\n");
  const right = readFileSync(b, "utf8").split("\n");
  let differ = 0;
  let first: number | undefined;
  const n = Math.max(left.length, right.length);
  for (let i = 0; i < n; i++) {
    const l = left[i] ?? "";
    const r = right[i] ?? "";
    if (l === r || (l !== "" && r !== "" && isDeepStrictEqual(JSON.parse(l), JSON.parse(r)))) continue;
    differ++;
    first ??= i + 1;
  }
  return { lines: left.filter(Boolean).length, differ, ...(first !== undefined ? { first } : {}) };
}

/**
 * The full built-in OMOP -> FHIR crossmap against a hand-written program that builds the same resources: both
 * parse the rows, build and serialise; the run checks that their outputs are the same resources.
 */
async function builtinCases(
  rows: number,
  repeats: number,
  cores: number,
): Promise<{ results: Timing[]; same: Record<string, unknown> }> {
  const data = await ensureBuiltinData(rows);
  const hand = join(root, "bench", "omop-fhir-handwritten.mjs");
  const results: Timing[] = [];
  const same: Record<string, unknown> = {};
  for (const [entity, resource, file] of [
    ["person", "Patient", data.person],
    ["measurement", "Observation", data.measurement],
  ] as const) {
    const handOut = join(outDir, `hand-${entity}.ndjson`);
    const mapOut = join(outDir, `builtin-${entity}.ndjson`);
    const variants: [string, string[]][] = [
      [`hand-written ${entity} -> ${resource}`, [hand, entity, file, handOut]],
    ];
    for (const workers of [1, cores]) {
      variants.push([
        `built-in ${entity} -> ${resource} --workers ${workers}${workers === cores ? " (default)" : ""}`,
        [
          cli,
          "map",
          "--from",
          "omop_cdm_v5.4",
          "--to",
          "fhir_r4",
          "--entity",
          entity,
          "--workers",
          String(workers),
          "--quiet",
          "-o",
          mapOut,
          file,
        ],
      ]);
    }
    const best: Measured[] = [];
    for (let r = 0; r < repeats; r++) {
      for (let v = 0; v < variants.length; v++) {
        const t = await timed(variants[v]![1]);
        const prev = best[v];
        best[v] =
          prev === undefined
            ? t
            : {
                ...(t.seconds < prev.seconds ? t : prev),
                rssMb: Math.max(t.rssMb, prev.rssMb),
                cpu: Math.min(t.cpu, prev.cpu),
              };
      }
    }
    same[entity] = differences(handOut, mapOut);
    rmSync(handOut, { force: true });
    rmSync(mapOut, { force: true });
    const base = best[0]!;
    const inputMb = statSync(file).size / 2 ** 20;
    variants.forEach(([name], v) => {
      const t = best[v]!;
      results.push({
        case: name,
        records: rows,
        seconds: round(t.seconds, 2),
        records_per_s: Math.round(rows / t.seconds),
        ratio_to_baseline: round(base.seconds / t.seconds, 2),
        peak_rss_mb: Math.round(t.rssMb),
        cpu_seconds: round(t.cpu, 2),
        cpu_s_per_1m: round((t.cpu * 1e6) / rows, 2),
        input_mb: Math.round(inputMb),
      });
    });
  }
  return { results, same };
}

/** The person file again and again, as one stream of `bytes` bytes (whole lines). */
function repeated(file: string, bytes: number): NodeJS.ReadableStream {
  const out = new PassThrough({ highWaterMark: 1 << 20 });
  const size = statSync(file).size;
  const rounds = Math.max(1, Math.ceil(bytes / size));
  (async () => {
    for (let i = 0; i < rounds; i++) {
      for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
        if (!out.write(chunk)) await new Promise((r) => out.once("drain", r));
      }
    }
    out.end();
  })().catch((err) => out.destroy(err));
  return out;
}

async function run(): Promise<void> {
  const rows = Number(process.env.BENCH_ROWS ?? 1_000_000);
  const rssGb = Number(process.env.BENCH_RSS_GB ?? 2);
  const repeats = Math.max(1, Number(process.env.BENCH_REPEAT ?? 3));
  const baselineScript = join(root, "bench", "baseline.mjs");
  const cores = availableParallelism();
  const data = await ensureData(rows);
  // Wall-clock ratios need idle cores; the load average says how far this run had them.
  const loadBefore = loadavg()[0]!;
  const results: Timing[] = [];
  const out = join(outDir, "result.ndjson");
  const decisions = Number(process.env.BENCH_DECISIONS ?? 10_000);
  const only = process.env.BENCH_ONLY;
  const project =
    decisions > 0 ? await projectDecisionsDataDir(join(outDir, "decisions-data"), decisions) : undefined;

  const suites: [string, string, (workers: number) => [string, string[]][]][] = [];
  for (const [entity, file] of [
    ["person", data.person],
    ["condition_occurrence", data.condition],
  ] as const) {
    if (only === "decisions") break;
    suites.push([
      entity,
      file,
      (workers) => {
        const args = [cli, "map", "--crossmap", crossmap, "--entity", entity, "--workers", String(workers)];
        return [
          [
            `crossmap map --workers ${workers}${workers === cores ? " (default)" : ""}`,
            [...args, "--quiet", "-o", out, file],
          ],
        ];
      },
    ]);
  }
  if (project) {
    // The same rows through a crossmap that looks each condition's code up: without a project the field
    // writes its default, with one it asks the decisions. The ratio is what applying them costs.
    suites.push([
      "condition_occurrence decisions",
      data.condition,
      (workers) => {
        const args = [cli, "map", "--crossmap", decisionsCrossmap, "--entity", "condition_occurrence"];
        const w = ["--workers", String(workers), "--quiet", "-o", out, data.condition];
        return [
          [`crossmap map --workers ${workers}, no project`, [...args, ...w]],
          [
            `crossmap map --workers ${workers}, --project (${decisions} decisions)`,
            [...args, "--project", project.projectId, "--data-dir", project.dataDir, ...w],
          ],
        ];
      },
    ]);
  }

  for (const [entity, file, variantsFor] of suites) {
    const inputMb = statSync(file).size / 2 ** 20;
    const variants: [string, string[]][] = [["baseline (JSON.parse+stringify)", [baselineScript, file, out]]];
    for (const workers of [1, cores]) variants.push(...variantsFor(workers));
    // Round robin, best of `repeats`: a busy machine slows some runs; the fastest run of each variant is
    // the closest to what it can do, and interleaving spreads any slow spell over all variants alike.
    const best: Measured[] = [];
    for (let r = 0; r < repeats; r++) {
      for (let v = 0; v < variants.length; v++) {
        const t = await timed(variants[v]![1]);
        const prev = best[v];
        best[v] =
          prev === undefined
            ? t
            : {
                ...(t.seconds < prev.seconds ? t : prev),
                rssMb: Math.max(t.rssMb, prev.rssMb),
                // The least CPU of any run: other processes inflate CPU time too (shared caches, migrations).
                cpu: Math.min(t.cpu, prev.cpu),
              };
      }
    }
    const base = best[0]!;
    variants.forEach(([name], v) => {
      const t = best[v]!;
      results.push({
        case: `${entity} ${name}`,
        records: rows,
        seconds: round(t.seconds, 2),
        records_per_s: Math.round(rows / t.seconds),
        ratio_to_baseline: round(base.seconds / t.seconds, 2),
        peak_rss_mb: Math.round(t.rssMb),
        cpu_seconds: round(t.cpu, 2),
        cpu_s_per_1m: round((t.cpu * 1e6) / rows, 2),
        input_mb: Math.round(inputMb),
      });
    });
  }

  if (rssGb > 0 && only !== "decisions") {
    const bytes = rssGb * 2 ** 30;
    const args = [cli, "map", "--crossmap", crossmap, "--entity", "person", "--quiet"];
    const t = await timed(args, repeated(data.person, bytes));
    const records = Math.ceil(bytes / statSync(data.person).size) * rows;
    results.push({
      case: `person ${rssGb} GB stdin -> stdout, default workers`,
      records,
      seconds: round(t.seconds, 2),
      records_per_s: Math.round(records / t.seconds),
      ratio_to_baseline: null,
      peak_rss_mb: Math.round(t.rssMb),
      cpu_seconds: round(t.cpu, 2),
      cpu_s_per_1m: round((t.cpu * 1e6) / records, 2),
      input_mb: Math.round(
        (Math.ceil(bytes / statSync(data.person).size) * statSync(data.person).size) / 2 ** 20,
      ),
    });
  }
  rmSync(out, { force: true });
  const builtinRows = Number(process.env.BENCH_BUILTIN_ROWS ?? 200_000);
  const builtin =
    builtinRows > 0 && only !== "decisions" ? await builtinCases(builtinRows, repeats, cores) : undefined;
  if (builtin) results.push(...builtin.results);

  const bundleGb = Number(process.env.BENCH_BUNDLE_GB ?? 2);
  if (bundleGb > 0 && only !== "decisions") {
    const file = join(outDir, `bundle-${bundleGb}gb.json`);
    if (!existsSync(file)) {
      process.stderr.write(`generating a ${bundleGb} GB FHIR Bundle...\n`);
      await generateBundle(`${file}.part`, bundleGb * 2 ** 30);
      renameSync(`${file}.part`, file);
    }
    const args = [
      cli,
      "map",
      "--from",
      "fhir_r4",
      "--to",
      "omop_cdm_v5.4",
      "--format",
      "fhir-bundle",
      "--quiet",
    ];
    const summary = join(outDir, "bundle-summary.json");
    const t = await timed([...args, "--summary", summary, file]);
    const records = (JSON.parse(readFileSync(summary, "utf8")) as { records_in: number }).records_in;
    results.push({
      case: `FHIR Bundle ${bundleGb} GB file (--format fhir-bundle) -> stdout, default workers`,
      records,
      seconds: round(t.seconds, 2),
      records_per_s: Math.round(records / t.seconds),
      ratio_to_baseline: null,
      peak_rss_mb: Math.round(t.rssMb),
      cpu_seconds: round(t.cpu, 2),
      cpu_s_per_1m: round((t.cpu * 1e6) / records, 2),
      input_mb: Math.round(statSync(file).size / 2 ** 20),
    });
  }

  const startup = await startupTimes(repeats * 3);
  for (const row of startup.rows) results.push(row);

  const find = (c: string) => results.find((r) => r.case.startsWith(c));
  const w1 = find("person crossmap map --workers 1");
  const wd = find(`person crossmap map --workers ${cores}`);
  const big = results.find((r) => r.case.includes("GB stdin"));
  const targets = {
    workers1_vs_baseline: { value: w1?.ratio_to_baseline ?? null, target: 0.6 },
    default_vs_workers1: {
      value: w1 && wd ? round(wd.records_per_s / w1.records_per_s, 2) : null,
      target: 1.5,
    },
    peak_rss_mb_2gb: { value: big?.peak_rss_mb ?? null, target: 200 },
    bundle_peak_rss_mb_2gb: {
      value: results.find((r) => r.case.startsWith("FHIR Bundle"))?.peak_rss_mb ?? null,
      target: 250,
    },
    startup_to_first_record_s: { value: startup.firstRecord, target: 0.2 },
    ...(startup.compare !== undefined
      ? {
          startup_compare: { value: startup.compare, ratio: round(startup.compare / startup.firstRecord, 2) },
        }
      : {}),
    // Not targets: what the parallel path costs in CPU over --workers 1, which no busy machine distorts much.
    person_cpu_s_per_1m: { workers1: w1?.cpu_s_per_1m ?? null, default: wd?.cpu_s_per_1m ?? null },
    // Applying a project's decisions: records/s with --project over without, same rows, same run.
    project_vs_no_project: Object.fromEntries(
      [1, cores].map((w) => {
        const without = find(`condition_occurrence decisions crossmap map --workers ${w}, no project`);
        const withProject = find(`condition_occurrence decisions crossmap map --workers ${w}, --project`);
        return [
          `workers_${w}`,
          without && withProject ? round(withProject.records_per_s / without.records_per_s, 2) : null,
        ];
      }),
    ),
    // The built-in OMOP -> FHIR crossmap against hand-written code building the same resources (x baseline).
    builtin_vs_handwritten: builtin
      ? {
          person_workers1: find("built-in person -> Patient --workers 1")?.ratio_to_baseline ?? null,
          measurement_workers1:
            find("built-in measurement -> Observation --workers 1")?.ratio_to_baseline ?? null,
          person_default: find(`built-in person -> Patient --workers ${cores}`)?.ratio_to_baseline ?? null,
          measurement_default:
            find(`built-in measurement -> Observation --workers ${cores}`)?.ratio_to_baseline ?? null,
          same_output: builtin.same,
        }
      : null,
  };
  const load = { before: round(loadBefore, 2), after: round(loadavg()[0]!, 2) };
  printTable(results);
  process.stdout.write(
    `times and CPU: best of ${repeats} runs each, peak RSS the highest; load average (1 min) before ${load.before}, after ${load.after}, on ${cores} cores\n`,
  );
  process.stdout.write(`targets: ${JSON.stringify(targets)}\n`);
  process.stdout.write(
    `${JSON.stringify({ bench: "map-throughput", cores, load, node: process.version, rows, repeats, results, targets })}\n`,
  );
}

/** Spawns `node args` with `input` on stdin; resolves to the seconds until its first stdout byte. */
function firstOutput(args: string[], input: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "ignore"] });
    let first: number | undefined;
    child.stdout.on("data", () => {
      first ??= (performance.now() - started) / 1000;
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 || first !== undefined ? resolve(first ?? Number.NaN) : reject(new Error(`exit ${code}`)),
    );
    child.stdin.end(input);
  });
}

/**
 * Start-up: seconds from spawning `crossmap map` with one record on stdin to its first output record
 * (built-in crossmap, default workers), beside a bare `node -e` printing one line (the floor any Node
 * CLI pays), best of `rounds`, taken round robin; with BENCH_COMPARE, the same for another checkout.
 */
async function startupTimes(
  rounds: number,
): Promise<{ rows: Timing[]; firstRecord: number; compare?: number }> {
  const record = '{"person_id": 1, "gender_concept_id": 8507, "year_of_birth": 1990}\n';
  const mapArgs = ["map", "--from", "omop_cdm_v5.4", "--to", "fhir_r4", "--entity", "person", "-q"];
  const compare = process.env.BENCH_COMPARE;
  const variants: [string, string[]][] = [
    ["start-up: node -e, first line (floor)", ["-e", "process.stdout.write('x\\n')"]],
    ["start-up: crossmap map, first record", [cli, ...mapArgs]],
  ];
  if (compare) variants.push([`start-up: ${compare}, first record`, [compare, ...mapArgs]]);
  const best = variants.map(() => Number.POSITIVE_INFINITY);
  for (let r = 0; r < rounds; r++) {
    for (let v = 0; v < variants.length; v++) {
      best[v] = Math.min(best[v]!, await firstOutput(variants[v]![1], record));
    }
  }
  const rows = variants.map(([name], v) => ({
    case: name,
    records: 1,
    seconds: round(best[v]!, 3),
    records_per_s: 0,
    ratio_to_baseline: round(best[0]! / best[v]!, 2),
    peak_rss_mb: 0,
    cpu_seconds: 0,
    cpu_s_per_1m: 0,
    input_mb: 0,
  }));
  const result: { rows: Timing[]; firstRecord: number; compare?: number } = {
    rows,
    firstRecord: round(best[1]!, 3),
  };
  if (compare) result.compare = round(best[2]!, 3);
  return result;
}

function printTable(rows: Timing[]): void {
  const head = [
    "case",
    "records",
    "seconds",
    "records/s",
    "x baseline",
    "peak RSS MB",
    "CPU s",
    "CPU s/1M",
    "input MB",
  ];
  const body = rows.map((r) => [
    r.case,
    String(r.records),
    r.seconds.toFixed(2),
    String(r.records_per_s),
    r.ratio_to_baseline === null ? "-" : r.ratio_to_baseline.toFixed(2),
    String(r.peak_rss_mb),
    r.cpu_seconds.toFixed(2),
    r.cpu_s_per_1m.toFixed(2),
    String(r.input_mb),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  process.stdout.write(`${line(head)}\n${widths.map((w) => "-".repeat(w)).join("  ")}\n`);
  for (const b of body) process.stdout.write(`${line(b)}\n`);
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

await run();
