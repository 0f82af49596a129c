// HL7 v2 -> FHIR throughput on the 22 sample messages of test/fixtures/hl7v2/samples, repeated to N
// messages (default 11,000: 22 x 500). The main table is end to end, as a user runs it: `crossmap map
// --from hl7v2_2.5.1 --to fhir_r4 FILE` in a child process (start-up included, Bundles written, issues to an
// --errors file), with the default workers and with --workers 1, against @medplum/core's Hl7Message.parse
// of the same messages in this process (parse only, no output) measured in the same run: messages/s, the
// ratio to Medplum, CPU per message (all threads) and peak RSS; and the floor of any converter of this output
// (Medplum's parse, then the output built and written with JSON.parse/JSON.stringify, no mapping).
// --stages adds the in-process breakdown (split, cut, parse, Bundles, JSON) against splitting into segments;
// with --before FILE (another HL7 v2 -> FHIR crossmap, e.g. an older built-in from `git show`), its Bundles
// are timed there too, for a before/after ratio.
// Prints tables and one JSON line. Usage: npm run bench -- hl7v2 [messages] [--stages] [--before FILE]
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Hl7Message } from "@medplum/core";
import { findBuiltinCrossmap } from "../src/crossmap/catalog.js";
import { loadCrossmapFile } from "../src/crossmap/load.js";
import { convertText } from "../src/pipeline/hl7v2/index.js";
import { parseMessage } from "../src/pipeline/hl7v2/message.js";
import { fieldNames } from "../src/pipeline/hl7v2/names.js";
import { splitMessages } from "../src/pipeline/hl7v2/split.js";

const args = process.argv.slice(2);
const beforeAt = args.indexOf("--before");
const beforeFile = beforeAt >= 0 ? args.splice(beforeAt, 2)[1] : undefined;
const stagesAt = args.indexOf("--stages");
const stages = stagesAt >= 0 || beforeFile !== undefined;
if (stagesAt >= 0) args.splice(stagesAt, 1);
const N = Number(args[0] ?? 11_000);
const samples = fileURLToPath(new URL("../test/fixtures/hl7v2/samples/", import.meta.url));
if (!existsSync(samples)) throw new Error(`no samples at ${samples}`);
const messages = readdirSync(samples)
  .filter((f) => f.endsWith(".hl7"))
  .sort()
  .map((f) =>
    readFileSync(join(samples, f), "utf8")
      .replace(/^\ufeff/, "")
      .trim(),
  );
const parts: string[] = [];
for (let i = 0; i < N; i++) parts.push(messages[i % messages.length] as string);
const text = parts.join("\n");
const bytes = Buffer.byteLength(text);

const crossmap = await loadCrossmapFile(findBuiltinCrossmap("hl7v2_2.5.1", "fhir_r4")?.path ?? "");
const before = beforeFile ? await loadCrossmapFile(beforeFile) : undefined;
const names = fieldNames();
const mapped = (t: string) => crossmap.hasEntity(t);

let sink = 0;
/**
 * Best of 3 timed rounds after a warm-up: messages per wall-clock second, and per CPU second of this
 * process (which other load on the machine does not inflate; wall-clock ratios need idle cores).
 */
function time(run: () => number): { wall: number; cpu: number } {
  sink += run();
  let wall = 0;
  let cpu = 0;
  for (let round = 0; round < 3; round++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    sink += run();
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const c = process.cpuUsage(c0);
    wall = Math.max(wall, N / seconds);
    cpu = Math.max(cpu, N / ((c.user + c.system) / 1e6));
  }
  return { wall, cpu };
}

const cases = {
  "split into segments (baseline)": () => text.split(/\r\n|\r|\n/).length,
  "medplum Hl7Message.parse (baseline 2)": () => {
    let n = 0;
    for (const m of messages.length > 0 ? parts : [])
      n += Hl7Message.parse(m.replace(/\r?\n/g, "\r")).segments.length;
    return n;
  },
  "cut into messages": () => {
    let n = 0;
    for (const m of splitMessages(text)) n += m.segments.length;
    return n;
  },
  "parse: records + context": () => {
    let n = 0;
    for (const raw of splitMessages(text)) {
      const m = parseMessage(raw, { names, mapped });
      if ("segments" in m) n += m.segments.length;
    }
    return n;
  },
  "ER7 -> FHIR Bundles": () => {
    let n = 0;
    for (const r of convertText(text, crossmap)) if (r.ok) n += r.resources.length;
    return n;
  },
  ...(before
    ? {
        "ER7 -> FHIR Bundles (--before crossmap)": () => {
          let n = 0;
          for (const r of convertText(text, before)) if (r.ok) n += r.resources.length;
          return n;
        },
      }
    : {}),
  "ER7 -> FHIR Bundles as JSON text": () => {
    let n = 0;
    for (const r of convertText(text, crossmap)) if (r.ok) n += JSON.stringify(r.bundle).length;
    return n;
  },
};

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const where = `${N} messages (${(bytes / 1e6).toFixed(1)} MB), Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}`;

// End to end: the CLI in a child process, against Medplum's parse in this one.
const cli = fileURLToPath(new URL("../bin/crossmap.js", import.meta.url));
const hook = new URL("./rss-hook.mjs", import.meta.url).href;
interface Run {
  seconds: number;
  /** User + system CPU of the process, all threads. */
  cpu: number;
  rssMb: number;
}
/** One `crossmap map` run (node --import rss-hook), Bundles to /dev/null; checks its summary. */
async function cliRun(dir: string, input: string, extra: string[]): Promise<Run> {
  const usageFile = join(dir, "usage.json");
  const summaryFile = join(dir, "summary.json");
  rmSync(usageFile, { force: true });
  const args = ["map", "--from", "hl7v2_2.5.1", "--to", "fhir_r4", input, ...extra];
  args.push("--errors", join(dir, "errors.ndjson"), "--summary", summaryFile);
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", hook, cli, ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, CROSSMAP_BENCH_RSS_FILE: usageFile },
  });
  let stderr = "";
  child.stderr?.on("data", (d) => {
    stderr += d;
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const seconds = (performance.now() - started) / 1000;
  // Exit 1: the samples hold resources with error issues (as the CLI golden test shows).
  const summary = JSON.parse(readFileSync(summaryFile, "utf8")) as { messages?: number };
  if ((code !== 0 && code !== 1) || summary.messages !== N) {
    throw new Error(
      `crossmap ${args.join(" ")} exited with ${code}, ${summary.messages} messages:\n${stderr}`,
    );
  }
  const usage = JSON.parse(readFileSync(usageFile, "utf8")) as { maxRSS: number; cpu: number };
  return { seconds, cpu: usage.cpu / 1e6, rssMb: usage.maxRSS / 1024 };
}

const medplum = time(cases["medplum Hl7Message.parse (baseline 2)"]);
// The floor of any converter that writes these Bundles: Medplum's parse, then the output's objects built and
// written, with no mapping between (JSON.parse of each Bundle's text stands for building its objects, the
// cheapest way V8 has to make them). Its rate against Medplum's is the best ratio any implementation of
// this output can show on one thread; with W threads and perfect scaling, W times that.
const outputs: string[] = [];
for (const r of convertText(text, crossmap)) if (r.ok) outputs.push(JSON.stringify(r.bundle));
const built = outputs.map((o) => JSON.parse(o) as unknown);
const build = time(() => {
  let n = 0;
  for (const o of outputs) n += (JSON.parse(o) as { entry?: unknown[] }).entry?.length ?? 0;
  return n;
});
const write = time(() => {
  let n = 0;
  for (const b of built) n += JSON.stringify(b).length;
  return n;
});
/** Messages/s of one thread that parses as Medplum does and builds and writes the output, nothing else. */
const floor = {
  wall: 1 / (1 / medplum.wall + 1 / build.wall + 1 / write.wall),
  cpu: 1 / (1 / medplum.cpu + 1 / build.cpu + 1 / write.cpu),
};
const outputBytes = outputs.reduce((a, o) => a + Buffer.byteLength(o), 0);
const dir = mkdtempSync(join(tmpdir(), "crossmap-bench-hl7v2-"));
const e2e: { case: string; workers: number; run: Run }[] = [];
try {
  const input = join(dir, "messages.hl7");
  writeFileSync(input, text);
  const workers = availableParallelism();
  e2e.push({
    case: `crossmap map, default workers (${workers})`,
    workers,
    run: await cliRun(dir, input, []),
  });
  e2e.push({
    case: "crossmap map, --workers 1",
    workers: 1,
    run: await cliRun(dir, input, ["--workers", "1"]),
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`${where}, load ${loadavg()[0]?.toFixed(1)}`);
console.log(
  `${"case".padEnd(40)} ${"messages/s".padStart(11)} ${"vs medplum".padStart(10)} ${"CPU µs/msg".padStart(10)} ${"peak RSS MB".padStart(11)}`,
);
console.log(
  `${"medplum Hl7Message.parse (in process)".padEnd(40)} ${fmt(medplum.wall).padStart(11)} ${"1.00".padStart(10)} ${fmt(1e6 / medplum.cpu).padStart(10)} ${"".padStart(11)}`,
);
console.log(
  `${"floor: parse + build + write, no mapping".padEnd(40)} ${fmt(floor.wall).padStart(11)} ${(floor.wall / medplum.wall).toFixed(2).padStart(10)} ${fmt(1e6 / floor.cpu).padStart(10)} ${"".padStart(11)}`,
);
const rate = (r: Run) => N / r.seconds;
for (const { case: name, run } of e2e) {
  console.log(
    `${name.padEnd(40)} ${fmt(rate(run)).padStart(11)} ${(rate(run) / medplum.wall).toFixed(2).padStart(10)} ${fmt((run.cpu * 1e6) / N).padStart(10)} ${run.rssMb.toFixed(0).padStart(11)}`,
  );
}
const [all, one] = e2e as [(typeof e2e)[0], (typeof e2e)[0]];
const line: Record<string, unknown> = {
  bench: "hl7v2",
  messages: N,
  bytes,
  node: process.version,
  load: Number(loadavg()[0]?.toFixed(2)),
  medplum_parse_messages_per_s: Math.round(medplum.wall),
  medplum_parse_cpu_us_per_message: Math.round(1e6 / medplum.cpu),
  default_workers: all.workers,
  default_messages_per_s: Math.round(rate(all.run)),
  one_worker_messages_per_s: Math.round(rate(one.run)),
  ratio_default_to_medplum: Number((rate(all.run) / medplum.wall).toFixed(3)),
  ratio_one_worker_to_medplum: Number((rate(one.run) / medplum.wall).toFixed(3)),
  default_cpu_us_per_message: Math.round((all.run.cpu * 1e6) / N),
  one_worker_cpu_us_per_message: Math.round((one.run.cpu * 1e6) / N),
  default_peak_rss_mb: Math.round(all.run.rssMb),
  one_worker_peak_rss_mb: Math.round(one.run.rssMb),
  output_bytes_per_message: Math.round(outputBytes / N),
  floor_messages_per_s: Math.round(floor.wall),
  ratio_floor_to_medplum: Number((floor.wall / medplum.wall).toFixed(3)),
  floor_cpu_us_per_message: Math.round(1e6 / floor.cpu),
};
console.log(
  `floor: the output (${fmt(outputBytes / N)} bytes of JSON a message, ${(outputBytes / bytes).toFixed(1)}x the input) built with JSON.parse and written with JSON.stringify, after Medplum's parse, on one thread: what no converter of this output can beat; ${all.workers} threads scaling perfectly: ${(((floor.wall / medplum.wall) * all.workers) as number).toFixed(2)}x`,
);

// In process, by stage (--stages): where a message's time goes.
if (stages) {
  const baselineName = "split into segments (baseline)";
  const results = Object.entries(cases).map(([name, run]) => {
    const t = name.startsWith("medplum") ? medplum : time(run);
    return { case: name, messages_per_s: t.wall, messages_per_cpu_s: t.cpu };
  });
  const baseline = results.find((r) => r.case === baselineName) ?? results[0]!;
  console.log(`\nin process, by stage; ${where}, load ${loadavg()[0]?.toFixed(1)}`);
  console.log(
    `${"case".padEnd(40)} ${"messages/s".padStart(11)} ${"MB/s".padStart(7)} ${"msg/CPU-s".padStart(10)} ${"vs baseline".padStart(11)}`,
  );
  for (const r of results) {
    const mbs = (r.messages_per_s * bytes) / N / 1e6;
    console.log(
      `${r.case.padEnd(40)} ${fmt(r.messages_per_s).padStart(11)} ${mbs.toFixed(1).padStart(7)} ${fmt(r.messages_per_cpu_s).padStart(10)} ${(r.messages_per_cpu_s / baseline.messages_per_cpu_s).toFixed(4).padStart(11)}`,
    );
  }
  const bundles = results.find((r) => r.case === "ER7 -> FHIR Bundles") ?? baseline;
  line.baseline_split_messages_per_s = Math.round(baseline.messages_per_s);
  line.bundles_messages_per_cpu_s = Math.round(bundles.messages_per_cpu_s);
  line.ratio_bundles_to_medplum_parse_cpu = Number((bundles.messages_per_cpu_s / medplum.cpu).toFixed(4));
  line.cases = Object.fromEntries(results.map((r) => [r.case, Math.round(r.messages_per_s)]));
}
line.sink = sink > 0;
console.log(JSON.stringify(line));
