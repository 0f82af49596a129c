// `npm run bench -- fhir-server`: resources per second the FHIR server writer gets into a FHIR server, against
// the same server loading the same Bundles directly in the same run (the baseline: no HTTP, no writer).
// Server: Medplum's router and in-memory repository on loopback in this process (test/support/fhir-server.ts),
// without per-write validation unless --validate, a fresh repository for every round.
// Data: the OMOP sample (test/fixtures/synthea27nj) mapped to FHIR by the CLI beforehand (not timed), sent
// as batch Bundles of `PUT Type/id`; and the HL7 v2 samples' transaction Bundles, repeated (each repeat about other patients).
// Cases: direct load (baseline: each message's transaction as it is), the writer (dist/, as crossmap runs
// it) in this process over HTTP and in a process of its own, and `crossmap map --fhir-server` as a child
// process (mapping included, wall clock only); for HL7 v2 also a bare node:http client sending each
// message's Bundle bytes, one exchange per message (what that costs with no writer at all: the floor of a
// writer sending one transaction per message; the writer merges up to --transaction-messages messages with
// nothing in common into one transaction, at most --transaction-entries entries, as its
// --fhir-transaction-* flags do, so it may beat that floor).
// Fair to both sides: the direct load gets each Bundle as JSON text and pays its JSON.parse, as the server
// does; the writer's input is made before timing, as the direct load's Bundle texts are, and is what
// `crossmap map` hands it: OMOP resources in 500-line chunks; for HL7 v2 the pipeline's located lines
// (`{"file":..,"message":N,"bundle":{..}}`, 50 a write), read by the writer's `messageLines` (or, for a
// build without it, --base, by that build's bundleLineSink, which parses each line: as that build's CLI did).
// What HTTP adds is counted (the server's reading and answering, the writer's sending and reading the
// answers); the test server reads bodies with 'data' events and answers `Prefer: return=minimal` without
// the resources, as a server would. Under load, wall figures vary from run to run; the CPU figures
// (resources per CPU second of this process) vary less. For the writer process, "res/CPU-s" is the
// server's (this process's) CPU, and the JSON line adds the writer process's own, and the ratio the two
// processes would reach with a core each: min(server rate, writer rate) / direct rate, CPU-bound.
// With --base DIR (another checkout, built: its dist/sinks/fhir-server/writer.js), that build's writer runs
// the same writer cases in the same run, marked "(base)", so a change is measured against it under the same
// load. Prints a table and one JSON line. Usage: npx tsx bench/fhir-server.ts [--validate] [--batch N]
// [--concurrency N] [--rounds N (timed, after one warm-up; default 2)] [--limit N (OMOP resources)]
// [--only omop|hl7] [--hl7-repeat N] [--hl7-same-ids] [--base DIR] [--transaction-messages N (default 10)]
// [--base-transaction-messages N (the base's; default the same)]
// [--transaction-entries N (default 50)] [--interleave (every case once a round, medians: steadier under load)]
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { FhirRequest } from "@medplum/fhir-router";
import type { FhirServerWriter } from "../src/sinks/fhir-server/writer.js";
import { type FhirTestServer, startFhirServer } from "../test/support/fhir-server.js";
import { locatedSink } from "./fhir-server-located.js";

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const validate = args.includes("--validate");
const BATCH = flag("--batch", 100);
const CONCURRENCY = flag("--concurrency", 4);
/**
 * The HL7 v2 samples' transactions this many times (default 100: 2,200 messages, 39,900 resources, beside
 * the OMOP sample's 24,850). At 20 (440 messages) a writer-process round lasted ~0.7 s, much of it the fresh
 * child's code before it was optimised (its CPU per resource 40 us, against 28 us at 100), while the direct
 * load runs in this process, warm from its earlier rounds: the short run measured start-up more than sending.
 */
const HL7_REPEAT = flag("--hl7-repeat", 100);
const SAME_IDS = args.includes("--hl7-same-ids");
const ROUNDS = flag("--rounds", 2);
/** Rounds interleaved across the cases, the median of each case kept (instead of each case's best in a row). */
const INTERLEAVE = args.includes("--interleave");
const LIMIT = flag("--limit", Number.POSITIVE_INFINITY);
/** `--only hl7` or `--only omop`: the cases of one input (the other's figures print as NaN). */
const ONLY = args.includes("--only") ? String(args[args.indexOf("--only") + 1]).toLowerCase() : undefined;
const BASE = args.includes("--base") ? String(args[args.indexOf("--base") + 1]) : undefined;
/** HL7 v2 messages per transaction at most, and entries (the writer's --fhir-transaction-* flags). */
const TX_MESSAGES = flag("--transaction-messages", 10);
/** The same for the --base build (default: as this tree's; 1 measures main as shipped before merging was on). */
const BASE_TX_MESSAGES = flag("--base-transaction-messages", TX_MESSAGES);
const TX_ENTRIES = flag("--transaction-entries", 50);
const root = fileURLToPath(new URL("..", import.meta.url));
/**
 * The writer as `crossmap` runs it: the build in dist/ (`npm run bench` builds first), not the TypeScript
 * sources through tsx, whose transform wraps every function made at run time in a naming helper (on the
 * suggester that cost 19% of the CPU against dist/). The base's (--base) is its dist/ as well.
 */
const writerModule = (dir: string) => join(dir, "dist", "sinks", "fhir-server", "writer.js");
const loadWriter = async (module: string) =>
  ((await import(pathToFileURL(module).href)) as { FhirServerWriter: typeof FhirServerWriter })
    .FhirServerWriter;
const ownModule = writerModule(root);
const OwnWriter = await loadWriter(ownModule);
const baseModule = BASE ? writerModule(BASE) : undefined;
const BaseWriter = baseModule ? await loadWriter(baseModule) : undefined;
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
const lines: string[] = [];
// `--only hl7` skips mapping the OMOP sample (its cases do not run).
if (ONLY !== "hl7") cli([...omopArgs, "--out-dir", join(dir, "omop"), omopSample]);
for (const f of ONLY === "hl7" ? [] : readdirSync(join(dir, "omop")).sort()) {
  lines.push(
    ...readFileSync(join(dir, "omop", f), "utf8")
      .trimEnd()
      .split("\n"),
  );
}
if (lines.length > LIMIT) lines.length = LIMIT;
const linesFile = join(dir, "resources.ndjson");
writeFileSync(linesFile, `${lines.join("\n")}\n`);
const hl7Samples = cli([
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
  .split("\n");
/**
 * The samples' transactions HL7_REPEAT times. Each repeat is about other patients, visits and providers
 * (every id, all of them UUIDs derived from identifiers, is changed the same way within a repeat), as a feed
 * of many patients is: 15 of the 22 samples are about one patient, and repeating them as they are made one
 * patient's run of 300 messages, which no writer may overlap (a patient's Bundles go in order). With
 * --hl7-same-ids the repeats are the same Bundles (that one-patient run).
 */
const repeatIds = (text: string, k: number): string =>
  k === 0 || SAME_IDS
    ? text
    : text.replace(
        /\b([0-9a-f]{8})(-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b/g,
        (_, head, tail) =>
          `${((Number.parseInt(head, 16) ^ Math.imul(k, 0x9e3779b1)) >>> 0).toString(16).padStart(8, "0")}${tail}`,
      );
const hl7Texts: string[] = [];
for (let k = 0; k < HL7_REPEAT; k++) for (const t of hl7Samples) hl7Texts.push(repeatIds(t, k));
const hl7Bundles = hl7Texts.map((t) => JSON.parse(t) as Record<string, unknown>);
const hl7Resources = hl7Bundles.reduce((n, b) => n + ((b.entry as unknown[] | undefined)?.length ?? 0), 0);

/** The batch Bundles the writer sends, as text, for the direct load. */
const batches: string[] = [];
for (let i = 0; i < lines.length; i += BATCH) {
  const entries = lines.slice(i, i + BATCH).map((l) => {
    const r = JSON.parse(l) as { resourceType: string; id: string };
    return `{"resource":${l},"request":{"method":"PUT","url":"${r.resourceType}/${r.id}"}}`;
  });
  batches.push(`{"resourceType":"Bundle","type":"batch","entry":[${entries.join(",")}]}`);
}
const hl7Bytes = hl7Texts.map((t) => Buffer.from(t));
/** The transactions the writer sends for the same messages (merged by the built merge.js), as bytes. */
const distFhir = (f: string) => pathToFileURL(join(root, "dist", "sinks", "fhir-server", f)).href;
const { TransactionMerger } = (await import(
  distFhir("merge.js")
)) as typeof import("../src/sinks/fhir-server/merge.js");
const { messageBundle, bundleBody } = (await import(
  distFhir("bundles.js")
)) as typeof import("../src/sinks/fhir-server/bundles.js");
const merger = new TransactionMerger<number>({ messages: TX_MESSAGES, entries: TX_ENTRIES });
const mergedOut = hl7Bundles.flatMap((b, i) => {
  const { outgoing, fullUrls } = messageBundle(b, "transaction", i);
  return merger.add({ outgoing, fullUrls });
});
mergedOut.push(...merger.drain());
const mergedBytes = mergedOut.map((o) => bundleBody(o));
/** The HL7 v2 pipeline's output as `crossmap map` hands it to the writer: located lines, 50 a write. */
const hl7Located = hl7Texts.map((t, i) => `{"file":"bench","message":${i + 1},"bundle":${t}}`);
const hl7Chunks: string[] = [];
for (let i = 0; i < hl7Located.length; i += 50) hl7Chunks.push(`${hl7Located.slice(i, i + 50).join("\n")}\n`);
const hl7File = join(dir, "bundles.ndjson");
writeFileSync(hl7File, `${hl7Located.join("\n")}\n`);
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

function writer(W: typeof FhirServerWriter, transactionMessages = TX_MESSAGES): FhirServerWriter {
  return new W({
    url: server.url,
    authorizationSource: "CROSSMAP_FHIR_AUTHORIZATION",
    concurrency: CONCURRENCY,
    batchSize: BATCH,
    transactionMessages,
    transactionEntries: TX_ENTRIES,
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
 * resolves with its send time in ms, once it exits. `kind`: the OMOP resources, or the HL7 v2 transactions;
 * `module`: another build's writer (--base). Keeps the best resources per CPU second of the writer process
 * itself over the timed rounds, by case name, in `senderCpuRate`.
 */
const senderCpuRate: Record<string, number> = {};
/** The writer process's own rate of its last run, by case name, and (--interleave) each round's. */
const lastSenderCpu: Record<string, number> = {};
const senderCpuSamples: Record<string, number[]> = {};
function sendFromChild(name: string, kind: "records" | "hl7", module = ownModule): Promise<number> {
  const transactionMessages = module === ownModule ? TX_MESSAGES : BASE_TX_MESSAGES;
  const expected = kind === "records" ? lines.length : hl7Resources;
  const options = {
    url: server.url,
    file: kind === "records" ? linesFile : hl7File,
    kind,
    batch: BATCH,
    concurrency: CONCURRENCY,
    transactionMessages,
    transactionEntries: TX_ENTRIES,
    module,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(root, "bench", "fhir-server-send.ts"), JSON.stringify(options)],
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
      if (r.accepted !== expected) return reject(new Error(`sender: ${out}`));
      lastSenderCpu[name] = expected / (r.cpu_ms / 1000);
      senderCpuRate[name] = Math.max(senderCpuRate[name] ?? 0, lastSenderCpu[name]);
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
    run: () => sendFromChild("OMOP: writer process, HTTP", "records"),
  },
  {
    name: "OMOP: writer in this thread, HTTP",
    resources: lines.length,
    cpu: true,
    run: () => omopInThread(OwnWriter),
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
      for (const t of hl7Texts) await direct(t);
      return undefined;
    },
  },
  {
    name: "HL7 v2: writer process, HTTP",
    resources: hl7Resources,
    // As for OMOP: this process's CPU is the server's; the writer process's own is in the JSON line.
    cpu: true,
    run: () => sendFromChild("HL7 v2: writer process, HTTP", "hl7"),
  },
  {
    // What one HTTP exchange per message costs with no writer at all: each Bundle's bytes, made before timing,
    // POSTed one after another on a kept-alive connection, the answer's status checked and its body
    // dropped. No client sending one transaction per message does less.
    name: "HL7 v2: bare client, 1 exchange/message",
    resources: hl7Resources,
    cpu: true,
    run: () => bareClient(hl7Bytes),
  },
  {
    // The same with the transactions the writer merges (made before timing by the built merge.js): what
    // the merged exchanges cost the server and the client with no writer at all.
    name: "HL7 v2: bare client, merged transactions",
    resources: hl7Resources,
    cpu: true,
    run: () => bareClient(mergedBytes),
  },
  {
    name: "HL7 v2: writer in this thread, HTTP",
    resources: hl7Resources,
    cpu: true,
    run: () => hl7InThread(OwnWriter, ownModule),
  },
];
if (BaseWriter !== undefined && baseModule !== undefined) {
  const W = BaseWriter;
  const base = [
    {
      name: "OMOP: writer process, HTTP (base)",
      resources: lines.length,
      cpu: true,
      run: () => sendFromChild("OMOP: writer process, HTTP (base)", "records", baseModule),
    },
    {
      name: "OMOP: writer in this thread, HTTP (base)",
      resources: lines.length,
      cpu: true,
      run: () => omopInThread(W),
    },
    {
      name: "HL7 v2: writer process, HTTP (base)",
      resources: hl7Resources,
      cpu: true,
      run: () => sendFromChild("HL7 v2: writer process, HTTP (base)", "hl7", baseModule),
    },
    {
      name: "HL7 v2: writer in this thread, HTTP (base)",
      resources: hl7Resources,
      cpu: true,
      run: () => hl7InThread(W, baseModule),
    },
  ];
  // Each base case right after the same case of this tree, so both see the same load.
  for (const b of base) {
    const at = cases.findIndex((c) => `${c.name} (base)` === b.name);
    cases.splice(at + 1, 0, b);
  }
}

async function omopInThread(W: typeof FhirServerWriter): Promise<undefined> {
  const w = writer(W);
  const sink = w.records();
  for (const chunk of chunks) await sink.write("", chunk);
  await sink.commit();
  checkAccepted(w, lines.length);
  return undefined;
}

async function hl7InThread(W: typeof FhirServerWriter, module: string): Promise<undefined> {
  const w = writer(W, module === ownModule ? TX_MESSAGES : BASE_TX_MESSAGES);
  const sink = await locatedSink(w, module);
  for (const chunk of hl7Chunks) await sink.write("", chunk);
  await sink.commit();
  checkAccepted(w, hl7Resources);
  return undefined;
}

/** Each body POSTed one after another on a kept-alive connection; the answer's body dropped. */
async function bareClient(bodies: Buffer[]): Promise<undefined> {
  const agent = new Agent({ keepAlive: true });
  const u = new URL(`${server.url}/`);
  const headers = {
    "content-type": "application/fhir+json",
    accept: "application/fhir+json",
    prefer: "return=minimal",
  };
  try {
    for (const body of bodies) {
      await new Promise<void>((resolve, reject) => {
        const req = request(
          {
            hostname: u.hostname,
            port: Number(u.port),
            path: u.pathname,
            method: "POST",
            agent,
            headers: { ...headers, "content-length": String(body.length) },
          },
          (res) => {
            res.on("data", () => {});
            res.on("end", () =>
              res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`)),
            );
          },
        );
        req.on("error", reject);
        req.end(body);
      });
    }
  } finally {
    agent.destroy();
  }
  return undefined;
}

/** One run of a case on an empty repository: resources per second, and per CPU second of this process. */
async function once(c: (typeof cases)[number]): Promise<{ wall: number; cpu: number }> {
  server.repo.clear();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const own = await c.run();
  const seconds = (own ?? performance.now() - t0) / 1000;
  const used = process.cpuUsage(c0);
  return { wall: c.resources / seconds, cpu: c.resources / ((used.user + used.system) / 1e6) };
}

/** Best of ROUNDS rounds after a warm-up, each on an empty repository. */
async function time(c: (typeof cases)[number]): Promise<{ wall: number; cpu: number }> {
  let wall = 0;
  let cpu = 0;
  for (let round = 0; round <= ROUNDS; round++) {
    const r = await once(c);
    if (round === 0) continue;
    wall = Math.max(wall, r.wall);
    cpu = Math.max(cpu, r.cpu);
  }
  return { wall, cpu };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

const results: { name: string; wall: number; cpu: number; resources: number; hasCpu: boolean }[] = [];
const cliCase = "OMOP: crossmap map --fhir-server";
const chosen = cases.filter(
  (c) =>
    // The CLI maps the whole sample: with --limit it is left out.
    !(c.name === cliCase && Number.isFinite(LIMIT)) &&
    (ONLY === undefined || c.name.toLowerCase().startsWith(ONLY)),
);
if (!INTERLEAVE) {
  for (const c of chosen) {
    results.push({ name: c.name, resources: c.resources, hasCpu: c.cpu, ...(await time(c)) });
    process.stderr.write(`done: ${c.name}\n`);
  }
} else {
  // Round by round, every case once a round (after a warm-up of each), the median of each kept: under a
  // load that drifts, each case sees the same stretches of it.
  const samples = new Map(chosen.map((c) => [c.name, { wall: [] as number[], cpu: [] as number[] }]));
  for (let round = 0; round <= ROUNDS; round++) {
    for (const c of chosen) {
      const r = await once(c);
      if (round === 0) continue;
      const m = samples.get(c.name) as { wall: number[]; cpu: number[] };
      m.wall.push(r.wall);
      m.cpu.push(r.cpu);
      const own = lastSenderCpu[c.name];
      if (own !== undefined) {
        const xs = senderCpuSamples[c.name] ?? [];
        xs.push(own);
        senderCpuSamples[c.name] = xs;
      }
    }
    process.stderr.write(`round ${round} done\n`);
  }
  for (const c of chosen) {
    const m = samples.get(c.name) as { wall: number[]; cpu: number[] };
    results.push({
      name: c.name,
      resources: c.resources,
      hasCpu: c.cpu,
      wall: median(m.wall),
      cpu: median(m.cpu),
    });
  }
  for (const [name, xs] of Object.entries(senderCpuSamples)) senderCpuRate[name] = median(xs);
}
await server.close();
rmSync(dir, { recursive: true, force: true });

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const missing = { name: "", wall: Number.NaN, cpu: Number.NaN, resources: 0, hasCpu: false };
const by = (name: string) => results.find((r) => r.name === name) ?? missing;
const omopBase = by("OMOP: direct load (baseline)");
const hl7Base = by("HL7 v2: direct transactions (baseline)");
console.log(
  `${lines.length} OMOP resources in batches of ${BATCH}, ${hl7Resources} HL7 v2 resources in ${hl7Texts.length} transactions (${SAME_IDS ? "repeats with the same ids" : "each repeat about other patients"}); ` +
    `writer: up to ${TX_MESSAGES} messages / ${TX_ENTRIES} entries per transaction, ${mergedBytes.length} transactions made as merge.ts merges (bare client); base: up to ${BASE_TX_MESSAGES} messages; concurrency ${CONCURRENCY}; validation ${validate ? "on" : "off"}; Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, load ${loadavg()[0]?.toFixed(1)}`,
);
const own = (name: string) => senderCpuRate[name] ?? Number.NaN;
console.log(
  `${"case".padEnd(44)} ${"resources/s".padStart(12)} ${"res/CPU-s".padStart(10)} ${"vs baseline".padStart(12)} ${"CPU vs base".padStart(12)} ${"writer res/CPU-s".padStart(17)}`,
);
for (const r of results) {
  const base = r.name.startsWith("OMOP") ? omopBase : hl7Base;
  const writerCpu = own(r.name);
  console.log(
    `${r.name.padEnd(44)} ${fmt(r.wall).padStart(12)} ${(r.hasCpu ? fmt(r.cpu) : "-").padStart(10)} ${(r.wall / base.wall).toFixed(3).padStart(12)} ${(r.hasCpu ? (r.cpu / base.cpu).toFixed(3) : "-").padStart(12)} ${(Number.isNaN(writerCpu) ? "-" : fmt(writerCpu)).padStart(17)}`,
  );
}
const ratio = (a: number, b: number) => Number((a / b).toFixed(3));
/** The figures of one writer case: wall ratio, and for a writer process its CPU-bound ratio (see top). */
const figures = (name: string, base: (typeof results)[number]) => {
  const r = by(name);
  return {
    per_s: Math.round(r.wall),
    ratio: ratio(r.wall, base.wall),
    ratio_cpu: ratio(r.cpu, base.cpu),
    ...(senderCpuRate[name] !== undefined
      ? {
          own_cpu_per_s: Math.round(own(name)),
          ratio_cpu_bound: ratio(Math.min(r.cpu, own(name)), base.cpu),
        }
      : {}),
  };
};
console.log(
  JSON.stringify({
    bench: "fhir-server",
    rounds: ROUNDS,
    statistic: INTERLEAVE ? "median of interleaved rounds" : "best round of each case",
    node: process.version,
    load: Number(loadavg()[0]?.toFixed(2)),
    validate,
    batch: BATCH,
    concurrency: CONCURRENCY,
    transaction_messages: TX_MESSAGES,
    base_transaction_messages: BASE_TX_MESSAGES,
    transaction_entries: TX_ENTRIES,
    omop_resources: lines.length,
    hl7_resources: hl7Resources,
    hl7_same_ids: SAME_IDS,
    omop_direct_per_s: Math.round(omopBase.wall),
    omop_writer_per_s: Math.round(by("OMOP: writer in this thread, HTTP").wall),
    omop_writer_process_per_s: Math.round(by("OMOP: writer process, HTTP").wall),
    ratio_omop_writer_process: ratio(by("OMOP: writer process, HTTP").wall, omopBase.wall),
    omop_writer_process_own_cpu_per_s: Math.round(own("OMOP: writer process, HTTP")),
    ratio_omop_writer_process_cpu_bound: ratio(
      Math.min(by("OMOP: writer process, HTTP").cpu, own("OMOP: writer process, HTTP")),
      omopBase.cpu,
    ),
    ratio_omop_server_cpu_fed_by_writer_process: ratio(by("OMOP: writer process, HTTP").cpu, omopBase.cpu),
    omop_cli_per_s: Math.round(results.find((r) => r.name === cliCase)?.wall ?? Number.NaN),
    hl7_direct_per_s: Math.round(hl7Base.wall),
    hl7_writer_per_s: Math.round(by("HL7 v2: writer in this thread, HTTP").wall),
    hl7_writer_process_per_s: Math.round(by("HL7 v2: writer process, HTTP").wall),
    ratio_omop_writer: ratio(by("OMOP: writer in this thread, HTTP").wall, omopBase.wall),
    ratio_omop_cli: ratio(results.find((r) => r.name === cliCase)?.wall ?? Number.NaN, omopBase.wall),
    ratio_omop_writer_cpu: ratio(by("OMOP: writer in this thread, HTTP").cpu, omopBase.cpu),
    ratio_hl7_writer_cpu: ratio(by("HL7 v2: writer in this thread, HTTP").cpu, hl7Base.cpu),
    ratio_hl7_floor_cpu: ratio(by("HL7 v2: bare client, 1 exchange/message").cpu, hl7Base.cpu),
    ratio_hl7_floor: ratio(by("HL7 v2: bare client, 1 exchange/message").wall, hl7Base.wall),
    hl7_merged_transactions: mergedBytes.length,
    ratio_hl7_merged_floor: ratio(by("HL7 v2: bare client, merged transactions").wall, hl7Base.wall),
    ratio_hl7_merged_floor_cpu: ratio(by("HL7 v2: bare client, merged transactions").cpu, hl7Base.cpu),
    ratio_hl7_writer: ratio(by("HL7 v2: writer in this thread, HTTP").wall, hl7Base.wall),
    ratio_hl7_writer_process: ratio(by("HL7 v2: writer process, HTTP").wall, hl7Base.wall),
    ratio_hl7_writer_process_cpu_bound: ratio(
      Math.min(by("HL7 v2: writer process, HTTP").cpu, own("HL7 v2: writer process, HTTP")),
      hl7Base.cpu,
    ),
    hl7_writer_process_own_cpu_per_s: Math.round(own("HL7 v2: writer process, HTTP")),
    // Every writer case, this tree's and (with --base) the base's, by name.
    cases: Object.fromEntries(
      results
        .filter((r) => r.name.includes("writer"))
        .map((r) => [r.name, figures(r.name, r.name.startsWith("OMOP") ? omopBase : hl7Base)]),
    ),
  }),
);
