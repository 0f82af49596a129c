// One timed step of bench/omop-db.ts, in its own process (peak RSS): `init URL`, `copy URL CSV_DIR` (the
// baseline: plain COPY of the CSV files), `sink URL NDJSON...` (crossmap's database sink), `csv DIR
// NDJSON...` (crossmap's CSV files, the baseline's input) or `drop URL` (a server schema). Prints the
// seconds the load itself took, database opening excluded.
import { createReadStream, existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { OutputSink } from "../src/pipeline/writers.js";
import { openCsvSink } from "../src/sinks/cdm/csv-sink.js";
import { openDbSink } from "../src/sinks/cdm/db-sink.js";
import { initDatabase } from "../src/sinks/cdm/init.js";
import { openDatabase, qualified, quoteIdent } from "../src/sinks/db/client.js";

const [mode, target, ...files] = process.argv.slice(2);

/** A file's text in ~64 KB pieces cut after a newline, as the pipeline hands a sink one batch's output. */
async function* batches(file: string): AsyncGenerator<string> {
  let rest = "";
  for await (const chunk of createReadStream(file, { encoding: "utf8", highWaterMark: 1 << 16 })) {
    const text = rest + chunk;
    const cut = text.lastIndexOf("\n") + 1;
    rest = text.slice(cut);
    if (cut > 0) yield text.slice(0, cut);
  }
  if (rest) yield rest;
}

async function feed(sink: OutputSink, inputs: string[]): Promise<void> {
  for (const file of inputs) {
    const table = basename(file, ".ndjson");
    for await (const text of batches(file)) await sink.write(table, text);
  }
  await sink.commit();
}

/** The CSV file without its header line. */
async function* withoutHeader(file: string): AsyncGenerator<string> {
  let first = true;
  for await (const text of batches(file)) {
    yield first ? text.slice(text.indexOf("\n") + 1) : text;
    first = false;
  }
}

// The load's wall and CPU seconds (this process, all threads), printed as "SECONDS CPU_SECONDS".
let cpuAtStart = process.cpuUsage();
const started = () => {
  cpuAtStart = process.cpuUsage();
  return performance.now();
};
const elapsed = (t: number) => {
  const cpu = process.cpuUsage(cpuAtStart);
  return `${((performance.now() - t) / 1000).toFixed(3)} ${((cpu.user + cpu.system) / 1e6).toFixed(3)}`;
};
const fail = (issue: { message: string }) => {
  throw new Error(issue.message);
};

if (mode === "csv") {
  const t = started();
  await feed(await openCsvSink({ dir: target!, report: fail }), files);
  console.log(elapsed(t));
} else {
  const client = await openDatabase(target!);
  // A PostgreSQL server on this machine: its backend's CPU seconds for the load are printed too (a third
  // figure), read from /proc just before the connection closes (the sink closes it when it commits).
  let backendAtStart = 0;
  let backend: number | undefined;
  if (client.dialect === "postgresql" && target!.startsWith("postgres") && mode !== "init") {
    const [row] = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    const stat = `/proc/${row!.pid}/stat`;
    // utime and stime (fields 14 and 15), in clock ticks (100 a second), after the command name's ")".
    const cpu = (): number => {
      if (!existsSync(stat)) return 0;
      const text = readFileSync(stat, "utf8");
      const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
      return (Number(fields[11]) + Number(fields[12])) / 100;
    };
    backendAtStart = cpu();
    const close = client.close.bind(client);
    client.close = async () => {
      backend = cpu() - backendAtStart;
      await close();
    };
  }
  const print = (t: number) => {
    if (mode !== "sink") return client.close().then(() => print2(t));
    return print2(t);
  };
  const print2 = (t: number) =>
    console.log(backend === undefined ? elapsed(t) : `${elapsed(t)} ${backend.toFixed(2)}`);
  if (mode === "init") await initDatabase(client).then(() => client.close());
  else if (mode === "drop")
    await client
      .exec(`DROP SCHEMA IF EXISTS ${quoteIdent(client.schema)} CASCADE`)
      .then(() => client.close());
  else if (mode === "sink") {
    const batchRows = process.env.BENCH_BATCH_ROWS ? Number(process.env.BENCH_BATCH_ROWS) : undefined;
    const sink = await openDbSink({ client, report: fail, batchRows });
    const t = started();
    await feed(sink, files);
    await print(t);
  } else if (mode === "copy") {
    const t = started();
    for (const f of readdirSync(files[0]!).filter((n) => n.endsWith(".csv"))) {
      const file = join(files[0]!, f);
      const table = basename(f, ".csv").toLowerCase();
      const header = (await batches(file).next()).value?.split("\n", 1)[0] ?? "";
      if (client.dialect === "duckdb") {
        await client.exec(`COPY ${qualified(client, table)} FROM '${file}' (FORMAT csv, HEADER true)`);
      } else {
        await client.copyIn(table, header.split(","), withoutHeader(file));
      }
    }
    await print(t);
  }
}
