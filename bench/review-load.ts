// Load benchmark of the review endpoints against a real `crossmap serve` child process: approve and
// override requests/s and p50/p99 latency, next to GET /healthz on the same server in the same run.
// Run: npm run build && npx tsx bench/review-load.ts [--seconds 5] [--connections 64] [--items 2000]
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { adminKey, freePort, waitForHealth } from "./serve-child.js";

const { values: args } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    connections: { type: "string", default: "64" },
    items: { type: "string", default: "2000" },
    /** Run only the cases whose name contains this (the /healthz baseline always runs). */
    only: { type: "string", default: "" },
    /** Passed to `crossmap serve --durability`: flush (default) or commit. */
    durability: { type: "string", default: "flush" },
  },
});
const SECONDS = Number(args.seconds);
const CONNECTIONS = Number(args.connections);
const ITEMS = Number(args.items);
const root = new URL("..", import.meta.url).pathname;
/** Extra node flags for the server, e.g. BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof". */
const serverNodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean) ?? [];

interface Case {
  name: string;
  method: "GET" | "POST";
  /** Path of the i-th request. */
  path: (i: number) => string;
  body?: (i: number) => string;
}

interface Result {
  case: string;
  /** Server CPU (user + system) per request, from /proc; null where /proc is not available. */
  server_cpu_us: number | null;
  /**
   * This load generator's CPU per request. Client and server share the 2 cores, so when both together
   * use them up, requests/s is bounded by the sum of the two.
   */
  client_cpu_us: number;
  requests: number;
  errors: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "crossmap-bench-"));
  const port = await freePort();
  const server = spawn(
    process.execPath,
    [
      ...serverNodeArgs,
      join(root, "bin/crossmap.js"),
      "serve",
      "--port",
      String(port),
      "--data-dir",
      dataDir,
      "--init",
      "--durability",
      args.durability,
    ],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  try {
    const key = await adminKey(server);
    const base = `http://127.0.0.1:${port}`;
    await waitForHealth(base);
    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const call = (method: string, path: string, body?: string) => send(agent, base, key, method, path, body);

    const project = JSON.parse(
      (await call("POST", "/api/v1/projects", JSON.stringify({ name: "bench" }))).body,
    );
    const p = project.id as string;
    const schemaIds = await push(call, p, "schema-mappings", (i) => ({
      source_table: "t",
      source_column: `c${i}`,
      target_table: "person",
      target_column: "gender_concept_id",
      confidence: 0.8,
    }));
    const conceptIds = await push(call, p, "concept-mappings", (i) => ({
      source_code: `code${i}`,
      target_concept_id: 8507,
      target_concept_name: "Male",
      target_vocabulary_id: "Gender",
      confidence: 0.8,
    }));
    const at = (ids: string[], i: number) => ids[i % ids.length]!;

    const cases: Case[] = [
      { name: "GET /healthz", method: "GET", path: () => "/healthz" },
      {
        name: "schema approve",
        method: "POST",
        path: (i) => `/v1/projects/${p}/schema-mapping/${at(schemaIds, i)}/approve`,
      },
      {
        name: "schema override",
        method: "POST",
        path: (i) => `/v1/projects/${p}/schema-mapping/${at(schemaIds, i)}/override`,
        body: (i) => JSON.stringify({ target_table: "observation", target_column: `value_${i % 7}` }),
      },
      {
        name: "concept approve",
        method: "POST",
        path: (i) => `/v1/projects/${p}/concept-mapping/${at(conceptIds, i)}/approve`,
      },
      {
        name: "concept override",
        method: "POST",
        path: (i) => `/v1/projects/${p}/concept-mapping/${at(conceptIds, i)}/override`,
        body: (i) => JSON.stringify({ target_concept_id: 8532 + (i % 3), target_vocabulary_id: "Gender" }),
      },
    ];
    const results: Result[] = [];
    const chosen = cases.filter((c) => c.name === "GET /healthz" || c.name.includes(args.only));
    for (const c of chosen) {
      await load(call, c, 1); // warm-up: JIT, LMDB pages, sockets
      const cpuBefore = cpuMs(server.pid);
      const clientBefore = process.cpuUsage();
      const r = await load(call, c, SECONDS);
      const client = process.cpuUsage(clientBefore);
      const cpuAfter = cpuMs(server.pid);
      const cpu =
        cpuBefore === null || cpuAfter === null
          ? null
          : Math.round(((cpuAfter - cpuBefore) * 1000) / r.requests);
      const clientCpu = Math.round((client.user + client.system) / r.requests);
      results.push({ ...r, server_cpu_us: cpu, client_cpu_us: clientCpu });
    }
    report(results);
    agent.destroy();
  } finally {
    server.kill("SIGTERM");
    await new Promise((r) => server.once("exit", r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

type Call = (method: string, path: string, body?: string) => Promise<{ status: number; body: string }>;

/** Closed-loop load: CONNECTIONS workers, each sending its next request as soon as the last one is answered. */
async function load(
  call: Call,
  c: Case,
  seconds: number,
): Promise<Omit<Result, "server_cpu_us" | "client_cpu_us">> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  const worker = async () => {
    while (performance.now() < until) {
      const i = next++;
      const t0 = performance.now();
      const res = await call(c.method, c.path(i), c.body?.(i));
      latencies.push(performance.now() - t0);
      if (res.status !== 200) errors++;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const q = (f: number) =>
    round(latencies[Math.min(latencies.length - 1, Math.floor(f * latencies.length))] ?? 0);
  return {
    case: c.name,
    requests: latencies.length,
    errors,
    rps: Math.round(latencies.length / elapsed),
    p50_ms: q(0.5),
    p99_ms: q(0.99),
  };
}

function report(results: Result[]): void {
  const health = results.find((r) => r.case === "GET /healthz")!;
  const rows = results.map((r) => ({ ...r, vs_healthz: round(r.rps / health.rps) }));
  const cols = [
    "case",
    "requests",
    "errors",
    "rps",
    "p50_ms",
    "p99_ms",
    "vs_healthz",
    "server_cpu_us",
    "client_cpu_us",
  ] as const;
  const width = (k: (typeof cols)[number]) => Math.max(k.length, ...rows.map((r) => String(r[k]).length));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(width(cols[i]!)) : c.padStart(width(cols[i]!)))).join("  ");
  console.log(
    `review load: ${CONNECTIONS} connections, ${SECONDS}s per case, ${ITEMS} items per kind, durability ${args.durability}`,
  );
  console.log(line([...cols]));
  for (const r of rows) console.log(line(cols.map((k) => String(r[k]))));
  const review = rows.filter((r) => r.case !== "GET /healthz");
  console.log(
    JSON.stringify({
      bench: "review-load",
      durability: args.durability,
      connections: CONNECTIONS,
      seconds: SECONDS,
      healthz_rps: health.rps,
      review_rps_min: Math.min(...review.map((r) => r.rps)),
      review_p99_ms_max: Math.max(...review.map((r) => r.p99_ms)),
      cases: rows,
    }),
  );
}

async function push(
  call: Call,
  project: string,
  kind: string,
  item: (i: number) => object,
): Promise<string[]> {
  const items = Array.from({ length: ITEMS }, (_, i) => item(i));
  const res = await call("POST", `/api/v1/sync/projects/${project}/${kind}/bulk`, JSON.stringify({ items }));
  if (res.status !== 200) throw new Error(`push ${kind}: ${res.status} ${res.body}`);
  return (JSON.parse(res.body).items as { id: string }[]).map((r) => r.id);
}

function send(agent: Agent, base: string, key: string, method: string, path: string, body?: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(Buffer.byteLength(body));
    }
    const req = request(`${base}${path}`, { method, agent, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** CPU time of a process in ms (utime + stime from /proc/<pid>/stat, in clock ticks of 10 ms). */
function cpuMs(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

const round = (n: number) => Math.round(n * 100) / 100;

await main();
