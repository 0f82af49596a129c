// The review workbench's requests against a real `crossmap serve` holding a project of 100,000 concept
// items: the first page (cold: the server builds its in-memory copy of the project; then warm), filtered,
// searched and sorted pages, progress stats, and a reviewer's keyboard decisions one after another (an
// approve with If-Match, then the page the workbench reloads). GET /healthz on the same server, in the
// same run, is the baseline. Latency is as the client sees it; server time comes from the server's log.
// Run: npm run bench -- workbench [--items 100000] [--decisions 200] [--durability flush|commit]
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { adminKey, freePort, waitForHealth } from "./serve-child.js";

const { values: args } = parseArgs({
  options: {
    items: { type: "string", default: "100000" },
    decisions: { type: "string", default: "200" },
    repeat: { type: "string", default: "30" },
    durability: { type: "string", default: "flush" },
  },
});
const ITEMS = Number(args.items);
const DECISIONS = Number(args.decisions);
const REPEAT = Number(args.repeat);
const root = new URL("..", import.meta.url).pathname;

interface Row {
  case: string;
  n: number;
  p50_ms: number;
  p95_ms: number;
  server_p50_ms: number;
  server_p95_ms: number;
  ratio_p95_to_healthz: number;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
const round = (x: number) => Math.round(x * 100) / 100;

/** Server time per request, from the server's JSON log lines, in the order requests finish. */
const serverTimes: number[] = [];

function startServer(dataDir: string, port: number): ChildProcess {
  const server = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
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
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  createInterface({ input: server.stdout! }).on("line", (line) => {
    const entry = JSON.parse(line) as { msg: string; duration_ms?: number };
    if (entry.msg === "request" && entry.duration_ms !== undefined) serverTimes.push(entry.duration_ms);
  });
  return server;
}

async function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null) return;
  server.kill("SIGTERM");
  await new Promise((r) => server.once("exit", r));
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "crossmap-workbench-"));
  const port = await freePort();
  let server = startServer(dataDir, port);
  try {
    const key = await adminKey(server);
    const base = `http://127.0.0.1:${port}`;
    await waitForHealth(base);
    const call = async (
      method: string,
      path: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
      return { json: JSON.parse(text) as Record<string, unknown>, etag: res.headers.get("etag") };
    };
    const project = (await call("POST", "/api/v1/projects", { name: "workbench" })).json.id as string;
    const started = performance.now();
    for (let from = 0; from < ITEMS; from += 10_000) {
      const items = Array.from({ length: Math.min(10_000, ITEMS - from) }, (_, k) => {
        const i = from + k;
        return {
          id: `c${String(i).padStart(7, "0")}`,
          source_column: "lab_code",
          source_code: `L${i}`,
          source_vocabulary_id: "LOCAL_LAB",
          source_description: `Local laboratory test ${i} ${i % 7 === 0 ? "glucose serum" : "sodium plasma"}`,
          source_frequency: (i * 7919) % 10_000,
          target_concept_id: 3_000_000 + i,
          target_concept_name: `Target concept ${i}`,
          target_vocabulary_id: "LOINC",
          confidence: ((i * 104_729) % 1000) / 1000,
        };
      });
      await call("POST", `/api/v1/sync/projects/${project}/concept-mappings/bulk`, { items });
    }
    const pushSeconds = (performance.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 200)); // the push requests' log lines
    const list = `/v1/projects/${project}/concept-mapping`;

    const rows: Row[] = [];
    const measure = async (name: string, n: number, one: (i: number) => Promise<unknown>) => {
      const client: number[] = [];
      const before = serverTimes.length;
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await one(i);
        client.push(performance.now() - t);
      }
      await new Promise((r) => setTimeout(r, 50)); // the last log lines
      const srv = serverTimes.slice(before);
      rows.push({
        case: name,
        n,
        p50_ms: round(pct(client, 50)),
        p95_ms: round(pct(client, 95)),
        server_p50_ms: round(pct(srv, 50)),
        server_p95_ms: round(pct(srv, 95)),
        ratio_p95_to_healthz: 0,
      });
    };

    // The push started building the project's in-memory copy; this waits for whatever is left of it.
    await measure("first page right after the push", 1, () => call("GET", `${list}?limit=50`));
    await measure("GET /healthz (baseline)", REPEAT, () => fetch(`${base}/healthz`).then((r) => r.text()));
    await measure("first page", REPEAT, () => call("GET", `${list}?limit=50`));
    await measure("needs_review, by -confidence", REPEAT, () =>
      call("GET", `${list}?needs_review=true&sort=-confidence&limit=50`),
    );
    await measure("q=glucose, by -source_frequency", REPEAT, () =>
      call("GET", `${list}?q=glucose&sort=-source_frequency&limit=50`),
    );
    await measure("page 1000 (offset 49950)", REPEAT, () => call("GET", `${list}?limit=50&offset=49950`));
    await measure("stats", REPEAT, () => call("GET", `${list}/stats`));
    // A reviewer going down the list: fetch the item's version, approve with If-Match; the decision
    // is persisted (and with --durability flush, fsynced) before the answer.
    const ids = Array.from({ length: DECISIONS }, (_, i) => `c${String(i * 37).padStart(7, "0")}`);
    await measure("keyboard decision (approve, If-Match)", DECISIONS, (i) =>
      call("POST", `${list}/${ids[i]}/approve`, undefined, { "if-match": '"1"' }),
    );
    await measure("page reload after a decision", REPEAT, async (i) => {
      await call("POST", `${list}/${ids[i]}/reject`);
      return call("GET", `${list}?needs_review=true&sort=-confidence&limit=50`);
    });
    // After a restart nothing is in memory: the server starts building the copy in the background, and
    // the first request (sent as soon as the server answers) waits for what is left of it.
    await stopServer(server);
    server = startServer(dataDir, port);
    await waitForHealth(base, 60);
    await measure("first page right after a restart", 1, () => call("GET", `${list}?limit=50`));
    const healthz = rows.find((r) => r.case.startsWith("GET /healthz"))!.p95_ms;
    for (const r of rows) r.ratio_p95_to_healthz = round(r.p95_ms / healthz);

    console.log(
      `workbench: ${ITEMS} concept items pushed in ${pushSeconds.toFixed(1)} s; --durability ${args.durability}`,
    );
    console.table(rows);
    console.log(
      JSON.stringify({
        bench: "workbench",
        items: ITEMS,
        durability: args.durability,
        push_s: round(pushSeconds),
        rows,
      }),
    );
  } finally {
    await stopServer(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
