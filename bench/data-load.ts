// /healthz while a project's data moves: a real `crossmap serve` takes a Usagi import of N rows
// (default 400,000, issue 27's figure: about 60 MB, under the 64 MiB body limit), then the FHIR ConceptMap export and the pull of those N items,
// while a thread of its own pings /healthz every 10 ms over one keep-alive connection (a stalled ping
// counts for every ping it held up, as in test/server/fuzz.int.test.ts). The baseline is the same server
// idle, pinged the same way, in the same run. Prints a table and one JSON line.
// Run: npm run bench -- data-load [--rows 400000] [--idle-seconds 3] [--root DIR]
//      (--root: the checkout whose bin/crossmap.js to start, e.g. another branch's, to compare)
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { adminKey, freePort, waitForHealth } from "./serve-child.js";

const { values: args } = parseArgs({
  options: {
    rows: { type: "string", default: "400000" },
    "idle-seconds": { type: "string", default: "3" },
    root: { type: "string", default: new URL("..", import.meta.url).pathname },
  },
});
const ROWS = Number(args.rows);

const PINGER = `
const { parentPort, workerData } = require("node:worker_threads");
const { Agent, request } = require("node:http");
let stop = false;
parentPort.on("message", () => { stop = true; });
(async () => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times = [];
  let failures = 0;
  while (!stop) {
    const t0 = performance.now();
    const ok = await new Promise((resolve) => {
      const req = request(workerData.url + "/healthz", { agent }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode === 200));
      });
      req.on("error", () => resolve(false));
      req.end();
    });
    const ms = performance.now() - t0;
    if (!ok) failures++;
    for (let held = ms; held > 0; held -= 10) times.push(held);
    await new Promise((r) => setTimeout(r, Math.max(0, 10 - ms)));
  }
  agent.destroy();
  parentPort.postMessage({ times, failures });
})();
`;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(s.length * p) - 1)] ?? Number.NaN;
};
const round = (x: number) => Math.round(x * 10) / 10;

function usagiFile(rows: number): Buffer {
  const parts = [
    "sourceCode,sourceName,sourceFrequency,sourceAutoAssignedConceptIds,ADD_INFO:unit,matchScore,mappingStatus,equivalence,statusSetBy,statusSetOn,conceptId,conceptName,domainId,mappingType,comment,createdBy,createdOn,assignedReviewer\r\n",
  ];
  for (let i = 0; i < rows; i++) {
    parts.push(
      `C${i},"Lab test ${i}, serum",${i % 1000},,mg/dL,0.${(i % 90) + 10},${i % 3 ? "APPROVED" : "UNCHECKED"},EQUAL,ada,1709280000000,${3_000_000 + i},Concept ${i},Measurement,MAPS_TO,,<auto>,1709270000000,\r\n`,
    );
  }
  return Buffer.from(parts.join(""));
}

/**
 * One request over node:http, the whole answer read: not fetch, whose 300 s headers timeout cut off a
 * 400,000-row import on a loaded machine before it answered.
 */
function call(
  url: string,
  headers: Record<string, string>,
  body?: Uint8Array,
): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: body ? "POST" : "GET", headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

interface Phase {
  phase: string;
  seconds: number;
  status: string;
  healthz_p50_ms: number;
  healthz_p99_ms: number;
  healthz_max_ms: number;
  healthz_failures: number;
  p99_ratio_to_idle: number;
}

async function pinged<T>(url: string, work: () => Promise<T>) {
  const pinger = new Worker(PINGER, { eval: true, workerData: { url } });
  const result = new Promise<{ times: number[]; failures: number }>((r) => pinger.once("message", r));
  const t0 = performance.now();
  const value = await work();
  const seconds = (performance.now() - t0) / 1000;
  pinger.postMessage("stop");
  const pings = await result;
  await pinger.terminate();
  return { value, seconds, ...pings };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "crossmap-data-load-"));
  const port = await freePort();
  const server = spawn(
    process.execPath,
    [join(args.root, "bin/crossmap.js"), "serve", "--port", String(port), "--data-dir", dataDir, "--init"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  try {
    const key = await adminKey(server);
    const base = `http://127.0.0.1:${port}`;
    await waitForHealth(base);
    const auth = { authorization: `Bearer ${key}` };
    const made = await fetch(`${base}/api/v1/projects`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ name: "data load" }),
    });
    const project = ((await made.json()) as { id: string }).id;
    const file = usagiFile(ROWS);
    const phases: Phase[] = [];
    let idleP99 = Number.NaN;
    const run = async (phase: string, work: () => Promise<string>) => {
      const r = await pinged(base, work);
      const p99 = pct(r.times, 0.99);
      if (phase === "idle") idleP99 = p99;
      phases.push({
        phase,
        seconds: round(r.seconds),
        status: r.value,
        healthz_p50_ms: round(pct(r.times, 0.5)),
        healthz_p99_ms: round(p99),
        healthz_max_ms: round(pct(r.times, 1)),
        healthz_failures: r.failures,
        p99_ratio_to_idle: round(p99 / idleP99),
      });
    };
    const get = async (path: string) => {
      const res = await call(`${base}${path}`, auth);
      return `${res.status}, ${(res.body.length / 1e6).toFixed(1)} MB`;
    };
    await run("idle", async () => {
      await new Promise((r) => setTimeout(r, Number(args["idle-seconds"]) * 1000));
      return "-";
    });
    await run(`usagi import, ${ROWS} rows (${(file.length / 1e6).toFixed(0)} MB)`, async () => {
      const res = await call(
        `${base}/api/v1/projects/${project}/imports/usagi`,
        { ...auth, "content-type": "text/csv" },
        file,
      );
      const summary = JSON.parse(res.body.toString()) as { created?: number };
      // The phases after it measure nothing without the items: stop rather than print empty figures.
      if (res.status !== 200)
        throw new Error(`the import answered ${res.status}: ${JSON.stringify(summary)}`);
      return `${res.status}, created ${summary.created}`;
    });
    await run(`ConceptMap export, ${ROWS} items`, () =>
      get(`/api/v1/projects/${project}/exports/concept-map`),
    );
    await run(`pull, ${ROWS} items`, () => get(`/api/v1/sync/projects/${project}/concept-mappings`));
    console.table(phases);
    console.log(JSON.stringify({ bench: "data-load", rows: ROWS, root: args.root, phases }));
  } finally {
    server.kill("SIGTERM");
    await new Promise((r) => server.once("exit", r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
