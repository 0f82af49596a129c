// ER7 -> FHIR Bundles throughput, in messages/s, against a baseline measured in the same run: just
// splitting the same text into segments. Input: the 22 sample messages of ../shared/samples/hl7v2 (or
// the test fixtures when absent), repeated to N messages in memory, so disk speed is not measured.
// Prints a table and one JSON line. Usage: npx tsx bench/hl7v2.ts [messages]
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findBuiltinCrossmap } from "../src/crossmap/catalog.js";
import { loadCrossmapFile } from "../src/crossmap/load.js";
import { convertText } from "../src/pipeline/hl7v2/index.js";
import { parseMessage } from "../src/pipeline/hl7v2/message.js";
import { fieldNames } from "../src/pipeline/hl7v2/names.js";
import { splitMessages } from "../src/pipeline/hl7v2/split.js";

const N = Number(process.argv[2] ?? 20_000);
const samples = fileURLToPath(new URL("../../../shared/samples/hl7v2/", import.meta.url));
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
const names = fieldNames();
const mapped = (t: string) => crossmap.hasEntity(t);

let sink = 0;
/** Best of 3 timed rounds after a warm-up; returns messages per second. */
function time(run: () => number): number {
  sink += run();
  let best = 0;
  for (let round = 0; round < 3; round++) {
    const t0 = process.hrtime.bigint();
    sink += run();
    best = Math.max(best, N / (Number(process.hrtime.bigint() - t0) / 1e9));
  }
  return best;
}

const cases = {
  "split into segments (baseline)": () => text.split(/\r\n|\r|\n/).length,
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
  "ER7 -> FHIR Bundles as JSON text": () => {
    let n = 0;
    for (const r of convertText(text, crossmap)) if (r.ok) n += JSON.stringify(r.bundle).length;
    return n;
  },
};

const baselineName = "split into segments (baseline)";
const results = Object.entries(cases).map(([name, run]) => ({ case: name, messages_per_s: time(run) }));
const baseline = results.find((r) => r.case === baselineName)?.messages_per_s ?? 1;
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
console.log(
  `${N} messages (${(bytes / 1e6).toFixed(1)} MB), Node ${process.version}, ${cpus()[0]?.model ?? "cpu"}`,
);
console.log(
  `${"case".padEnd(36)} ${"messages/s".padStart(12)} ${"MB/s".padStart(8)} ${"vs baseline".padStart(12)}`,
);
for (const r of results) {
  const mbs = (r.messages_per_s * bytes) / N / 1e6;
  console.log(
    `${r.case.padEnd(36)} ${fmt(r.messages_per_s).padStart(12)} ${mbs.toFixed(1).padStart(8)} ${(r.messages_per_s / baseline).toFixed(3).padStart(12)}`,
  );
}
const bundles = results.find((r) => r.case === "ER7 -> FHIR Bundles")?.messages_per_s ?? 0;
console.log(
  JSON.stringify({
    bench: "hl7v2",
    messages: N,
    bytes,
    node: process.version,
    baseline_split_messages_per_s: Math.round(baseline),
    bundles_messages_per_s: Math.round(bundles),
    ratio_to_baseline: Number((bundles / baseline).toFixed(4)),
    cases: Object.fromEntries(results.map((r) => [r.case, Math.round(r.messages_per_s)])),
    sink: sink > 0,
  }),
);
