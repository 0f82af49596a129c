// POST /api/v1/cross-mapping/map with 1,000-record requests against a real `crossmap serve`, next to
// `crossmap map` (1 worker and default workers) on the same person records, in the same run.
// Prints a table and one JSON line. Run: npm run build && npx tsx bench/cross-mapping-http.ts [--records 200000]
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { adminKey, freePort, waitForHealth } from "./serve-child.js";

const { values: args } = parseArgs({
  options: {
    records: { type: "string", default: "200000" },
    batch: { type: "string", default: "1000" },
    connections: { type: "string", default: "4" },
  },
});
const RECORDS = Number(args.records);
const BATCH = Number(args.batch);
const CONNECTIONS = Number(args.connections);
const root = new URL("..", import.meta.url).pathname;
const cli = join(root, "bin/crossmap.js");

const GENDERS = [8507, 8532, 8551, 8570];
const person = (i: number) => ({
  person_id: 1_000_000 + i,
  gender_concept_id: GENDERS[i % 4],
  year_of_birth: 1930 + (i % 80),
  month_of_birth: 1 + (i % 12),
  day_of_birth: 1 + (i % 28),
  birth_datetime: `${1930 + (i % 80)}-${String(1 + (i % 12)).padStart(2, "0")}-${String(1 + (i % 28)).padStart(2, "0")} 00:00:00`,
  race_concept_id: 8527,
  ethnicity_concept_id: 38003564,
  person_source_value: `P${i}`,
  gender_source_value: i % 2 ? "F" : "M",
});

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "crossmap-xm-bench-"));
  const records = Array.from({ length: RECORDS }, (_, i) => person(i));
  const ndjson = join(dir, "person.ndjson");
  writeFileSync(ndjson, `${records.map((r) => JSON.stringify(r)).join("\n")}\n`);
  const rows: { case: string; records_per_s: number }[] = [];
  try {
    for (const workers of ["1", "2"]) {
      const t0 = performance.now();
      execFileSync(process.execPath, [
        cli,
        "map",
        "--from",
        "omop_cdm_v5.4",
        "--to",
        "fhir_r4",
        "--workers",
        workers,
        "-q",
        "-o",
        join(dir, "out.ndjson"),
        ndjson,
      ]);
      rows.push({
        case: `crossmap map --workers ${workers}`,
        records_per_s: RECORDS / ((performance.now() - t0) / 1000),
      });
    }
    rows.push({
      case: `HTTP map, ${BATCH}-record requests, ${CONNECTIONS} connections`,
      records_per_s: await http(dir, records),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const cli1 = rows[0]?.records_per_s ?? 1;
  console.log(`records: ${RECORDS}`);
  console.log("case                                                  records/s   ratio to map --workers 1");
  for (const r of rows) {
    console.log(
      `${r.case.padEnd(52)} ${Math.round(r.records_per_s).toLocaleString("en").padStart(10)}   ${(r.records_per_s / cli1).toFixed(2)}`,
    );
  }
  console.log(
    JSON.stringify({
      bench: "cross-mapping-http",
      records: RECORDS,
      batch: BATCH,
      connections: CONNECTIONS,
      cases: rows.map((r) => ({ ...r, ratio: r.records_per_s / cli1 })),
    }),
  );
}

async function http(dir: string, records: object[]): Promise<number> {
  const port = await freePort();
  const server = spawn(
    process.execPath,
    [cli, "serve", "--port", String(port), "--data-dir", join(dir, "data"), "--init"],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  try {
    const key = await adminKey(server);
    await waitForHealth(`http://127.0.0.1:${port}`);
    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const bodies: string[] = [];
    for (let i = 0; i < records.length; i += BATCH) {
      bodies.push(
        JSON.stringify({
          source_standard: "omop_cdm_v5.4",
          target_standard: "fhir_r4",
          source_entity: "person",
          records: records.slice(i, i + BATCH),
        }),
      );
    }
    await post(agent, port, key, bodies[0] as string); // warm-up: compiles the crossmap once
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (next < bodies.length) await post(agent, port, key, bodies[next++] as string);
      }),
    );
    const rps = records.length / ((performance.now() - t0) / 1000);
    agent.destroy();
    return rps;
  } finally {
    server.kill("SIGTERM");
  }
}

function post(agent: Agent, port: number, key: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/api/v1/cross-mapping/map",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on("end", () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`)),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
