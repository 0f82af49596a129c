// Child process of bench/fhir-server.ts: sends an NDJSON file of resources to a FHIR server with the
// --fhir-server writer, as `crossmap map` would after mapping, and prints the send's own time as JSON (so that
// process start-up is not counted). Usage: npx tsx bench/fhir-server-send.ts URL FILE BATCH CONCURRENCY
import { readFileSync } from "node:fs";
import { FhirServerWriter } from "../src/sinks/fhir-server/writer.js";

const [url, file, batch, concurrency] = process.argv.slice(2);
const lines = readFileSync(file as string, "utf8")
  .trimEnd()
  .split("\n");
const writer = new FhirServerWriter({
  url: url as string,
  authorizationSource: "CROSSMAP_FHIR_AUTHORIZATION",
  batchSize: Number(batch),
  concurrency: Number(concurrency),
  timeoutMs: 600_000,
  retries: 2,
});
// Chunks of 500 lines, as the pipeline hands over its batches' output (made before timing).
const chunks: string[] = [];
for (let i = 0; i < lines.length; i += 500) chunks.push(`${lines.slice(i, i + 500).join("\n")}\n`);
const t0 = performance.now();
const c0 = process.cpuUsage();
const sink = writer.records();
for (const chunk of chunks) await sink.write("", chunk);
await sink.commit();
const cpu = process.cpuUsage(c0);
const report = writer.report();
process.stdout.write(
  `${JSON.stringify({ ms: performance.now() - t0, cpu_ms: (cpu.user + cpu.system) / 1000, accepted: report.accepted, rejected: report.rejected })}\n`,
);
