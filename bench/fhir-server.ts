// `npm run bench -- fhir-server`: resources per second the FHIR server writer gets into a FHIR server, against
// the same server loading the same Bundles directly in the same run (the baseline: no HTTP, no writer).
// Server: Medplum's router and in-memory repository on loopback in this process (test/support/fhir-server.ts),
// without per-write validation unless --validate, a fresh repository for every round.
// Data: the OMOP sample (test/fixtures/synthea27nj) mapped to FHIR by the CLI beforehand (not timed), sent
// as batch Bundles of `PUT Type/id`; and the HL7 v2 samples' transaction Bundles, repeated.
// Cases: direct load (baseline), the writer in this process over HTTP, and `crossmap map --fhir-server` as a
// child process (mapping included, wall clock only).
// Fair to both sides: the direct load gets each Bundle as JSON text and pays its JSON.parse, as the server
// does; the writer's input (500-line chunks) is made before timing, as the direct load's Bundle texts are.
// What HTTP adds is counted (the server's reading and answering, the writer's sending and reading the
// answers); the test server reads bodies with 'data' events and answers `Prefer: return=minimal` without
// the resources, as a server would. Under load, wall figures vary from run to run; the CPU figures
// (resources per CPU second of this process) vary less. For the writer process, "res/CPU-s" is the
// server's (this process's) CPU, and the JSON line adds the writer process's own, and the ratio the two
// processes would reach with a core each: min(server rate, writer rate) / direct rate, CPU-bound.
// Prints a table and one JSON line. Usage: npx tsx bench/fhir-server.ts [--validate] [--batch N]
// [--concurrency N] [--rounds N (timed, after one warm-up; default 2)] [--limit N (OMOP resources)]
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FhirRequest } from "@medplum/fhir-router";
import { FhirServerWriter } from "../src/sinks/fhir-server/writer.js";
import { type FhirTestServer, startFhirServer } from "../test/support/fhir-server.js";

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const validate = args.includes("--validate");
const BATCH = flag("--batch", 100);
const CONCURRENCY = flag("--concurrency", 4);
const HL7_REPEAT = flag("--hl7-repeat", 20);
const ROUNDS = flag("--rounds", 2);
const LIMIT = flag("--limit", Number.POSITIVE_INFINITY);
const root = fileURLToPath(new URL("..", import.meta.url));
const bin = join(root, "bin", "crossmap.js");

// The data, made once with the CLI (not timed).
const dir = mkdtempSync(join(tmpdir(), "crossmap-bench-fhir-"));
// Synchronous, so only before the server starts: a child talking to the server in this process needs this
// process's event loop free (see cliAsync).
const cli = (argv: string[]) => {
  const r = spawnSync(process.execPath, [bin, ...argv], { encoding: "utf8", maxBuffer: 1 << 30 });
  if (r.status !== 0 && r.status !== 1) throw new Error(`crossmap ${argv.join(" ")}: ${r.stderr}`);
  return r.stdout;
};
/**
 * The CLI as a child process while the server runs in this process: spawned asynchronously, since a
 * spawnSync would block the event loop the server answers on (the child's connections wait in the listen
 * backlog and the run never ends). Resolves once it exits (0, or 1 for the mapping's own issues) with
 * every resource accepted, as its --summary says.
 */
const cliAsync = (argv: string[]) =>
  new Promise<void>((resolve, reject) => {
    const summary = join(dir, "summary.json");
    const child = spawn(process.execPath, [bin, ...argv, "--summary", summary], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0 && code !== 1)
        return reject(new Error(`crossmap ${argv.join(" ")} exited ${code}: ${err}`));
      const sent = (JSON.parse(readFileSync(summary, "utf8")) as { fhir_server?: { accepted?: number } })
        .fhir_server;
      if (sent?.accepted !== lines.length) return reject(new Error(`crossmap: ${JSON.stringify(sent)}`));
      resolve();
    });
  });
const omopArgs = ["map", "-q", "--from", "omop_cdm_v5.4", "--to", "fhir_r4"];
const omopSample = join(root, "test", "fixtures", "synthea27nj");
cli([...omopArgs, "--out-dir", join(dir, "omop"), omopSample]);
const lines: string[] = [];
for (const f of readdirSync(join(dir, "omop")).sort()) {
  lines.push(
    ...readFileSync(join(dir, "omop", f), "utf8")
      .trimEnd()
      .split("\n"),
  );
}
if (lines.length > LIMIT) lines.length = LIMIT;
const linesFile = join(dir, "resources.ndjson");
writeFileSync(linesFile, `${lines.join("\n")}\n`);
const hl7Bundles = cli([
  "map",
  "-q",
  "--from",
  "hl7v2",
  "--to",
  "fhir",
  "--bundle",
  "transaction",
  join(root, "test", "fixtures", "hl7v2", "samples"),
])
  .trimEnd()
  .split("\n")
  .map((l) => JSON.parse(l) as Record<string, unknown>);
const hl7Resources =
  hl7Bundles.reduce((n, b) => n + ((b.entry as unknown[] | undefined)?.length ?? 0), 0) * HL7_REPEAT;

/** The batch Bundles the writer sends, as text, for the direct load. */
const batches: string[] = [];
for (let i = 0; i < lines.length; i += BATCH) {
  const entries = lines.slice(i, i + BATCH).map((l) => {
    const r = JSON.parse(l) as { resourceType: string; id: string };
    return `{"resource":${l},"request":{"method":"PUT","url":"${r.resourceType}/${r.id}"}}`;
  });
  batches.push(`{"resourceType":"Bundle","type":"batch","entry":[${entries.join(",")}]}`);
}
const hl7Texts = hl7Bundles.map((b) => JSON.stringify(b));
/**
 * The writer's input as the pipeline hands it over (500 lines a write), made before timing as the direct
 * load's Bundle texts are: the writer's case pays for what the writer does, not for the bench's slicing.
 */
const chunks: string[] = [];
for (let i = 0; i < lines.length; i += 500) chunks.push(`${lines.slice(i, i + 500).join("\n")}\n`);

const server: FhirTestServer = await startFhirServer({ validate });

/** What the server does with a POST of a Bundle, without HTTP: parse the text, route it. */
async function direct(text: string): Promise<void> {
  const request: FhirRequest = {
    method: "POST",
    url: "",
    pathname: "",
    body: JSON.parse(text),
    params: {},
    query: {},
    config: { transactions: true },
  };
  const [outcome] = await server.router.handleRequest(request, server.repo);
  if (outcome.id !== "ok") throw new Error(JSON.stringify(outcome));
}

function writer(): FhirServerWriter {
  return new FhirServerWriter({
    url: server.url,
    authorizationSource: "CROSSMAP_FHIR_AUTHORIZATION",
    concurrency: CONCURRENCY,
    batchSize: BATCH,
    timeoutMs: 600_000,
    // A kept-alive connection the server closes as a request goes out (ECONNRESET) is sent again.
    retries: 2,
  });
}

const checkAccepted = (w: FhirServerWriter, expected: number) => {
  const r = w.report();
  if (r.accepted !== expected || r.rejected !== 0) throw new Error(`writer: ${JSON.stringify(r)}`);
};

/**
 * The writer in a process of its own (as a user runs it: the sender is not the server), timed by itself:
 * resolves with its send time in ms, once it exits.
 */
/** Best resources per CPU second of the writer process itself, over the timed rounds. */
let senderCpuRate = 0;
function sendFromChild(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        join(root, "bench", "fhir-server-send.ts"),
        server.url,
        linesFile,
        String(BATCH),
        String(CONCURRENCY),
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`sender exited ${code}`));
      const r = JSON.parse(out) as { ms: number; cpu_ms: number; accepted: number };
      if (r.accepted !== lines.length) return reject(new Error(`sender: ${out}`));
      senderCpuRate = Math.max(senderCpuRate, lines.length / (r.cpu_ms / 1000));
      resolve(r.ms);
    });
  });
}

const cases: { name: string; resources: number; run: () => Promise<number | undefined>; cpu: boolean }[] = [
  {
    name: "OMOP: direct load (baseline)",
    resources: lines.length,
    cpu: true,
    run: async () => {
      for (const b of batches) await direct(b);
      return undefined;
    },
  },
  {
    name: "OMOP: writer process, HTTP",
    resources: lines.length,
    // CPU of this process alone: the server's, what feeding it over HTTP costs it (the sender's is its own).
    cpu: true,
    run: sendFromChild,
  },
  {
    name: "OMOP: writer in this thread, HTTP",
    resources: lines.length,
    cpu: true,
    run: async () => {
      const w = writer();
      const sink = w.records();
      for (const chunk of chunks) await sink.write("", chunk);
      await sink.commit();
      checkAccepted(w, lines.length);
      return undefined;
    },
  },
  {
    name: "OMOP: crossmap map --fhir-server",
    resources: lines.length,
    cpu: false,
    // Wall clock of the whole child (start-up and mapping included): its own CPU is not this process's.
    run: async () => {
      await cliAsync([
        ...omopArgs,
        "--fhir-server",
        server.url,
        "--fhir-batch-size",
        String(BATCH),
        "--fhir-concurrency",
        String(CONCURRENCY),
        omopSample,
      ]);
      return undefined;
    },
  },
  {
    name: "HL7 v2: direct transactions (baseline)",
    resources: hl7Resources,
    cpu: true,
    run: async () => {
      for (let k = 0; k < HL7_REPEAT; k++) for (const t of hl7Texts) await direct(t);
      return undefined;
    },
  },
  {
    name: "HL7 v2: writer in this thread, HTTP",
    resources: hl7Resources,
    cpu: true,
    run: async () => {
      const w = writer();
      const sink = w.messages("transaction");
      for (let k = 0; k < HL7_REPEAT; k++)
        for (const b of hl7Bundles) await sink.send(b, { file: "bench", message: k });
      await sink.commit();
      checkAccepted(w, hl7Resources);
      return undefined;
    },
  },
];

/** Best of ROUNDS rounds after a warm-up, each on an empty repository. */
async function time(c: (typeof cases)[number]): Promise<{ wall: number; cpu: number }> {
  let wall = 0;
  let cpu = 0;
  for (let round = 0; round <= ROUNDS; round++) {
    server.repo.clear();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const own = await c.run();
    const seconds = (own ?? performance.now() - t0) / 1000;
    const used = process.cpuUsage(c0);
    if (round === 0) continue;
    wall = Math.max(wall, c.resources / seconds);
    cpu = Math.max(cpu, c.resources / ((used.user + used.system) / 1e6));
  }
  return { wall, cpu };
}

const results: { name: string; wall: number; cpu: number; resources: number; hasCpu: boolean }[] = [];
const cliCase = "OMOP: crossmap map --fhir-server";
for (const c of cases) {
  // The CLI maps the whole sample: with --limit it is left out.
  if (c.name === cliCase && Number.isFinite(LIMIT)) continue;
  results.push({ name: c.name, resources: c.resources, hasCpu: c.cpu, ...(await time(c)) });
  process.stderr.write(`done: ${c.name}\n`);
}
await server.close();
rmSync(dir, { recursive: true, force: true });

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const by = (name: string) => results.find((r) => r.name === name) as (typeof results)[number];
const omopBase = by("OMOP: direct load (baseline)");
const hl7Base = by("HL7 v2: direct transactions (baseline)");
console.log(
  `${lines.length} OMOP resources in batches of ${BATCH}, ${hl7Resources} HL7 v2 resources in ${hl7Texts.length * HL7_REPEAT} transactions; ` +
    `concurrency ${CONCURRENCY}; validation ${validate ? "on" : "off"}; Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, load ${loadavg()[0]?.toFixed(1)}`,
);
console.log(
  `${"case".padEnd(40)} ${"resources/s".padStart(12)} ${"res/CPU-s".padStart(10)} ${"vs baseline".padStart(12)}`,
);
for (const r of results) {
  const base = r.name.startsWith("OMOP") ? omopBase : hl7Base;
  console.log(
    `${r.name.padEnd(40)} ${fmt(r.wall).padStart(12)} ${(r.hasCpu ? fmt(r.cpu) : "-").padStart(10)} ${(r.wall / base.wall).toFixed(3).padStart(12)}`,
  );
}
console.log(
  JSON.stringify({
    bench: "fhir-server",
    node: process.version,
    load: Number(loadavg()[0]?.toFixed(2)),
    validate,
    batch: BATCH,
    concurrency: CONCURRENCY,
    omop_resources: lines.length,
    hl7_resources: hl7Resources,
    omop_direct_per_s: Math.round(omopBase.wall),
    omop_writer_per_s: Math.round(by("OMOP: writer in this thread, HTTP").wall),
    omop_writer_process_per_s: Math.round(by("OMOP: writer process, HTTP").wall),
    ratio_omop_writer_process: Number((by("OMOP: writer process, HTTP").wall / omopBase.wall).toFixed(3)),
    omop_writer_process_own_cpu_per_s: Math.round(senderCpuRate),
    ratio_omop_writer_process_cpu_bound: Number(
      (Math.min(by("OMOP: writer process, HTTP").cpu, senderCpuRate) / omopBase.cpu).toFixed(3),
    ),
    ratio_omop_server_cpu_fed_by_writer_process: Number(
      (by("OMOP: writer process, HTTP").cpu / omopBase.cpu).toFixed(3),
    ),
    omop_cli_per_s: Math.round(results.find((r) => r.name === cliCase)?.wall ?? Number.NaN),
    hl7_direct_per_s: Math.round(hl7Base.wall),
    hl7_writer_per_s: Math.round(by("HL7 v2: writer in this thread, HTTP").wall),
    ratio_omop_writer: Number((by("OMOP: writer in this thread, HTTP").wall / omopBase.wall).toFixed(3)),
    ratio_omop_cli: Number(
      ((results.find((r) => r.name === cliCase)?.wall ?? Number.NaN) / omopBase.wall).toFixed(3),
    ),
    ratio_omop_writer_cpu: Number((by("OMOP: writer in this thread, HTTP").cpu / omopBase.cpu).toFixed(3)),
    ratio_hl7_writer_cpu: Number((by("HL7 v2: writer in this thread, HTTP").cpu / hl7Base.cpu).toFixed(3)),
    ratio_hl7_writer: Number((by("HL7 v2: writer in this thread, HTTP").wall / hl7Base.wall).toFixed(3)),
  }),
);
