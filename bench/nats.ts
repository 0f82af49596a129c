// Benchmark `nats`: `crossmap map --nats` with 1, 2 and 3 `crossmap worker` processes against local
// `crossmap map --workers 1` and `--workers 2` on the same input, in the same run, round robin, on two
// inputs: generated person rows through a three-field crossmap (cheap to map: what the transport costs)
// and the bundled Synthea OMOP sample through the built-in OMOP -> FHIR crossmap (a real mapping's cost).
// Beside records/s it says where the CPU went: the coordinator, the workers (mapping vs waiting for NATS
// to store results) and nats-server. Knobs: BENCH_ROWS (default 500000), BENCH_SYNTHEA_COPIES (default
// 4: the sample's rows repeated), BENCH_REPEAT (default 2: best of).
import { type ChildProcess, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Papa from "papaparse";
import { cellValue } from "../src/pipeline/csv.js";
import { stringifyJson } from "../src/pipeline/json.js";
import { generatePersons } from "./generate.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const outDir = join(root, "bench", "out");
const cli = join(root, "bin", "crossmap.js");
const crossmap = join(root, "bench", "omop-to-fhir.yaml");
const hook = new URL("./rss-hook.mjs", import.meta.url).href;

interface Measured {
  seconds: number;
  /** CPU of the timed process (the coordinator, or the whole local run). */
  cpu: number;
  workersCpu: number;
  workersMap: number;
  workersStore: number;
  serverCpu: number;
}

function natsServerBinary(): string {
  for (const c of [process.env.NATS_SERVER, "/usr/sbin/nats-server", "/usr/bin/nats-server"]) {
    if (c && existsSync(c)) return c;
  }
  return "nats-server";
}

async function startServer(): Promise<{ url: string; child: ChildProcess; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "crossmap-bench-nats-"));
  const child = spawn(natsServerBinary(), ["-js", "-a", "127.0.0.1", "-p", "-1", "-sd", join(dir, "js")]);
  let log = "";
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      log += d.toString();
      const m = /Listening for client connections on ([\d.]+:\d+)/.exec(log);
      if (m && /Server is ready/.test(log)) resolve(`nats://${m[1]}`);
    };
    child.stderr?.on("data", onData);
    child.on("exit", (code) => reject(new Error(`nats-server exited with ${code}:\n${log}`)));
  });
  return { url, child, dir };
}

/** User + system CPU seconds of a process so far, from /proc. */
function procCpu(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Worker {
  child: ChildProcess;
  health: string;
}

async function startWorker(url: string, name: string): Promise<Worker> {
  const child = spawn(process.execPath, [
    cli,
    "worker",
    "--nats",
    url,
    "--name",
    name,
    "--health-port",
    "127.0.0.1:0",
  ]);
  let err = "";
  const health = await new Promise<string>((resolve, reject) => {
    child.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
      const m = /health on (http:\/\/[\d.]+:\d+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.on("exit", (code) => reject(new Error(`worker exited with ${code}:\n${err}`)));
  });
  return { child, health };
}

async function workerMetrics(w: Worker): Promise<{ cpu: number; map: number; store: number }> {
  const text = await (await fetch(`${w.health}/metrics`)).text();
  const get = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? 0);
  return {
    cpu: get("process_cpu_seconds_total"),
    map: get("crossmap_worker_map_seconds_total"),
    store: get("crossmap_worker_store_seconds_total"),
  };
}

async function stopWorkers(workers: Worker[]): Promise<void> {
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((resolve) => {
          w.child.once("exit", () => resolve());
          w.child.kill("SIGTERM");
        }),
    ),
  );
}

async function timed(args: string[], workers: Worker[], serverPid: number): Promise<Measured> {
  const rssFile = join(outDir, `rss-${process.pid}.txt`);
  rmSync(rssFile, { force: true });
  const before = await Promise.all(workers.map(workerMetrics));
  const server0 = procCpu(serverPid);
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", hook, ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, CROSSMAP_BENCH_RSS_FILE: rssFile },
  });
  let stderr = "";
  child.stderr?.on("data", (d) => {
    stderr += d;
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`${args.join(" ")} exited with ${code}:\n${stderr}`);
  const after = await Promise.all(workers.map(workerMetrics));
  const usage = JSON.parse(readFileSync(rssFile, "utf8")) as { cpu: number };
  const sum = (k: "cpu" | "map" | "store") => after.reduce((n, a, i) => n + a[k] - before[i]![k], 0);
  return {
    seconds,
    cpu: usage.cpu / 1e6,
    workersCpu: sum("cpu"),
    workersMap: sum("map"),
    workersStore: sum("store"),
    serverCpu: procCpu(serverPid) - server0,
  };
}

/**
 * The bundled Synthea sample as NDJSON, one `<table>.ndjson` per table (cells read as `crossmap map` reads
 * CSV), every table's rows repeated `copies` times (ids repeat too). NDJSON, so that the mapping, not the
 * CSV reader on the coordinator's thread, is what is measured.
 */
function syntheaCopies(copies: number): { dir: string; records: number } {
  const source = join(root, "test", "fixtures", "synthea27nj");
  const dir = join(outDir, `synthea27nj-ndjson-x${copies}`);
  let records = 0;
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(source).filter((n) => n.endsWith(".csv"))) {
    const parsed = Papa.parse<Record<string, string>>(readFileSync(join(source, f), "utf8"), {
      header: true,
      skipEmptyLines: true,
    });
    const lines = parsed.data.map((row) => {
      const record: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(row)) if (v !== "") record[k] = cellValue(v);
      return stringifyJson(record);
    });
    records += lines.length * copies;
    const body = Array.from({ length: copies }, () => lines.join("\n")).join("\n");
    writeFileSync(join(dir, f.replace(/\.csv$/, ".ndjson").toLowerCase()), `${body}\n`);
  }
  return { dir, records };
}

interface Case {
  input: string;
  records: number;
  /** `crossmap map` arguments before the input and the way of running. */
  args: string[];
  path: string;
}

async function run(): Promise<void> {
  const rows = Number(process.env.BENCH_ROWS ?? 500_000);
  const copies = Number(process.env.BENCH_SYNTHEA_COPIES ?? 4);
  const repeats = Math.max(1, Number(process.env.BENCH_REPEAT ?? 2));
  mkdirSync(outDir, { recursive: true });
  const persons = join(outDir, `person-${rows}.ndjson`);
  if (!existsSync(persons)) {
    process.stderr.write(`generating ${rows} person rows...\n`);
    await generatePersons(`${persons}.part`, rows);
    renameSync(`${persons}.part`, persons);
  }
  const synthea = syntheaCopies(copies);
  const out = join(outDir, "nats-result");
  const cases: Case[] = [
    {
      input: `person (${Math.round(statSync(persons).size / 2 ** 20)} MB NDJSON, 3-field crossmap)`,
      records: rows,
      args: [cli, "map", "--crossmap", crossmap, "--entity", "person", "--quiet", "-o", `${out}.ndjson`],
      path: persons,
    },
    {
      input: `synthea27nj x${copies} (NDJSON, built-in omop->fhir)`,
      records: synthea.records,
      args: [cli, "map", "--from", "omop_cdm_v5.4", "--to", "fhir_r4", "--quiet", "--out-dir", out],
      path: synthea.dir,
    },
  ];
  const server = await startServer();
  const loadBefore = loadavg()[0]!;
  const variants = (c: Case): { name: string; args: string[]; workers: number }[] => [
    { name: "local --workers 1", args: [...c.args, "--workers", "1", c.path], workers: 0 },
    { name: "local --workers 2", args: [...c.args, "--workers", "2", c.path], workers: 0 },
    ...[1, 2, 3].map((n) => ({
      name: `nats, ${n} worker${n === 1 ? "" : "s"}`,
      args: [...c.args, "--nats", server.url, c.path],
      workers: n,
    })),
  ];
  const best = new Map<string, Measured>();
  try {
    for (let r = 0; r < repeats; r++) {
      for (const c of cases) {
        for (const variant of variants(c)) {
          // Workers start before the clock and wait, as a standing fleet does.
          const workers = await Promise.all(
            Array.from({ length: variant.workers }, (_, i) => startWorker(server.url, `bench-${i + 1}`)),
          );
          const t = await timed(variant.args, workers, server.child.pid!);
          await stopWorkers(workers);
          const key = `${c.input}|${variant.name}`;
          const prev = best.get(key);
          if (prev === undefined || t.seconds < prev.seconds) best.set(key, t);
        }
      }
    }
  } finally {
    server.child.kill("SIGTERM");
    rmSync(server.dir, { recursive: true, force: true });
    rmSync(`${out}.ndjson`, { force: true });
    rmSync(out, { recursive: true, force: true });
  }
  const results = cases.flatMap((c) => {
    const local2 = best.get(`${c.input}|local --workers 2`)!;
    return variants(c).map((variant) => {
      const t = best.get(`${c.input}|${variant.name}`)!;
      return {
        input: c.input,
        case: variant.name,
        records: c.records,
        seconds: round(t.seconds, 2),
        records_per_s: Math.round(c.records / t.seconds),
        x_local_workers_2: round(local2.seconds / t.seconds, 2),
        cpu_s_total: round(t.cpu + t.workersCpu + t.serverCpu, 2),
        coordinator_cpu_s: round(t.cpu, 2),
        workers_cpu_s: round(t.workersCpu, 2),
        workers_mapping_s: round(t.workersMap, 2),
        workers_waiting_store_s: round(t.workersStore, 2),
        nats_server_cpu_s: round(t.serverCpu, 2),
      };
    });
  });
  const load = { before: round(loadBefore, 2), after: round(loadavg()[0]!, 2) };
  const ratio = (input: string) => results.find((r) => r.input === input && r.case === "nats, 2 workers")!;
  const target = Object.fromEntries(
    cases.map((c) => [
      c.input,
      { nats_2_workers_vs_local_workers_2: ratio(c.input).x_local_workers_2, target: 0.8 },
    ]),
  );
  printTable(results);
  process.stdout.write(
    `best of ${repeats} runs each; CPU: the timed process (the whole local run, or the coordinator), the ` +
      "workers (of which wall time decoding+mapping+encoding, and waiting for results to be stored, summed over " +
      `batches in hand), nats-server; load average (1 min) before ${load.before}, after ${load.after}, on ` +
      `${availableParallelism()} cores\n`,
  );
  process.stdout.write(`target: ${JSON.stringify(target)}\n`);
  process.stdout.write(
    `${JSON.stringify({ bench: "nats", cores: availableParallelism(), load, node: process.version, repeats, results, target })}\n`,
  );
}

function printTable(rows: Record<string, string | number>[]): void {
  const head = Object.keys(rows[0]!);
  const body = rows.map((r) => head.map((h) => String(r[h])));
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
