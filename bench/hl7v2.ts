// ER7 -> FHIR Bundles throughput, in messages/s, against a baseline measured in the same run: just
// splitting the same text into segments. Input: the 22 sample messages of test/fixtures/hl7v2/samples,
// repeated to N messages in memory, so disk speed is not measured.
// A second baseline: @medplum/core's Hl7Message.parse on the same messages (parse only, no mapping). With
// --before FILE (another HL7 v2 -> FHIR crossmap, e.g. an older built-in from `git show`), its Bundles are
// timed in the same run too, for a before/after ratio.
// Prints a table and one JSON line. Usage: npx tsx bench/hl7v2.ts [messages] [--before FILE]
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
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
const N = Number(args[0] ?? 10_000);
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

const baselineName = "split into segments (baseline)";
const results = Object.entries(cases).map(([name, run]) => {
  const t = time(run);
  return { case: name, messages_per_s: t.wall, messages_per_cpu_s: t.cpu };
});
const baseline = results.find((r) => r.case === baselineName) ?? results[0]!;
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
console.log(
  `${N} messages (${(bytes / 1e6).toFixed(1)} MB), Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, load ${loadavg()[0]?.toFixed(1)}`,
);
console.log(
  `${"case".padEnd(34)} ${"messages/s".padStart(11)} ${"MB/s".padStart(7)} ${"msg/CPU-s".padStart(10)} ${"vs baseline".padStart(11)}`,
);
for (const r of results) {
  const mbs = (r.messages_per_s * bytes) / N / 1e6;
  console.log(
    `${r.case.padEnd(34)} ${fmt(r.messages_per_s).padStart(11)} ${mbs.toFixed(1).padStart(7)} ${fmt(r.messages_per_cpu_s).padStart(10)} ${(r.messages_per_cpu_s / baseline.messages_per_cpu_s).toFixed(4).padStart(11)}`,
  );
}
const bundles = results.find((r) => r.case === "ER7 -> FHIR Bundles") ?? baseline;
console.log(
  JSON.stringify({
    bench: "hl7v2",
    messages: N,
    bytes,
    node: process.version,
    load: Number(loadavg()[0]?.toFixed(2)),
    baseline_split_messages_per_s: Math.round(baseline.messages_per_s),
    bundles_messages_per_s: Math.round(bundles.messages_per_s),
    bundles_messages_per_cpu_s: Math.round(bundles.messages_per_cpu_s),
    ratio_to_baseline_cpu: Number((bundles.messages_per_cpu_s / baseline.messages_per_cpu_s).toFixed(4)),
    ratio_to_medplum_parse_cpu: Number(
      (
        bundles.messages_per_cpu_s /
        (results.find((r) => r.case.startsWith("medplum"))?.messages_per_cpu_s ?? Number.NaN)
      ).toFixed(4),
    ),
    cases: Object.fromEntries(results.map((r) => [r.case, Math.round(r.messages_per_s)])),
    sink: sink > 0,
  }),
);
