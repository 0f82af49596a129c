// Child process of bench/fhir-server.ts: sends an NDJSON file to a FHIR server with the --fhir-server writer,
// as `crossmap map` would after mapping, and prints the send's own time and CPU as JSON (so that process
// start-up is not counted). `records`: a file of resources, sent as batch Bundles; `hl7`: a file of the HL7
// v2 pipeline's located lines (`{"file":..,"message":N,"bundle":{..}}`), handed over 50 a write as `crossmap
// map` does (merged up to `transactionMessages` per transaction by a writer that can). The writer is the build at `module` (a checkout's
// dist/sinks/fhir-server/writer.js: this tree's, or another's for --base), as `crossmap` runs it.
// Usage: npx tsx bench/fhir-server-send.ts '{"url":..,"file":..,"kind":"records"|"hl7","batch":N,
// "concurrency":N,"transactionMessages":N,"transactionEntries":N,"module":PATH}'
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type { FhirServerWriter } from "../src/sinks/fhir-server/writer.js";
import { locatedSink } from "./fhir-server-located.js";

const o = JSON.parse(process.argv[2] as string) as {
  url: string;
  file: string;
  kind: "records" | "hl7";
  batch: number;
  concurrency: number;
  transactionMessages: number;
  transactionEntries: number;
  module: string;
};
const { FhirServerWriter: Writer } = (await import(pathToFileURL(o.module).href)) as {
  FhirServerWriter: typeof FhirServerWriter;
};
const lines = readFileSync(o.file, "utf8").trimEnd().split("\n");
const writer = new Writer({
  url: o.url,
  authorizationSource: "CROSSMAP_FHIR_AUTHORIZATION",
  batchSize: o.batch,
  concurrency: o.concurrency,
  transactionMessages: o.transactionMessages,
  transactionEntries: o.transactionEntries,
  timeoutMs: 600_000,
  retries: 2,
});
// The input as the pipeline hands it over, made before timing: chunks of 500 resource lines, or of 50
// located HL7 v2 lines.
const per = o.kind === "records" ? 500 : 50;
const chunks: string[] = [];
for (let i = 0; i < lines.length; i += per) chunks.push(`${lines.slice(i, i + per).join("\n")}\n`);
const hl7Sink = o.kind === "hl7" ? await locatedSink(writer, o.module) : undefined;
const t0 = performance.now();
const c0 = process.cpuUsage();
const sink = hl7Sink ?? writer.records();
for (const chunk of chunks) await sink.write("", chunk);
await sink.commit();
const cpu = process.cpuUsage(c0);
const report = writer.report();
process.stdout.write(
  `${JSON.stringify({ ms: performance.now() - t0, cpu_ms: (cpu.user + cpu.system) / 1000, accepted: report.accepted, rejected: report.rejected })}\n`,
);
