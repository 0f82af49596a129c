// The CLI's HL7 v2 output, byte for byte, on all 22 sample messages: Bundles on stdout, resources per type
// (--out-dir), rows after `--via fhir_r4 --to omop_cdm_v5.4`, the --errors file, the --summary file and the
// stderr lines, with the default workers and with --workers 1, from a folder of files and from one file
// holding every message. It holds the output identical while the reader, the worker pool and the
// serialisation change under it. UPDATE_GOLDEN=1 rewrites test/golden/hl7v2-cli/; review the diff.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../cli/run-cli.js";
import { FIXTURES_DIR } from "../../support/omop.js";

const SAMPLES = join(FIXTURES_DIR, "hl7v2", "samples");
const GOLDEN = new URL("../../golden/hl7v2-cli/", import.meta.url).pathname;
const update = process.env.UPDATE_GOLDEN !== undefined;

let dir: string;
/** Every sample in one file, in name order (message indexes and lines run on across them). */
let joined: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "hl7-cli-golden-"));
  joined = join(dir, "all.hl7");
  const names = readdirSync(SAMPLES)
    .filter((f) => f.endsWith(".hl7"))
    .sort();
  expect(names).toHaveLength(22);
  writeFileSync(joined, names.map((f) => readFileSync(join(SAMPLES, f), "utf8")).join("\n"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Summary JSON without its timings (the only bytes that differ between runs). */
function stableSummary(path: string): string {
  const s = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  delete s.elapsed_ms;
  delete s.records_per_s;
  return `${JSON.stringify(s, null, 2)}\n`;
}

/** The stderr summary line without its seconds. */
const stableStderr = (text: string): string => text.replace(/; \d+\.\d\d s/g, "; N s");

function expectGolden(name: string, actual: string): void {
  const path = join(GOLDEN, name);
  if (update) {
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, actual);
  }
  expect(actual, name).toBe(readFileSync(path, "utf8"));
}

function listFiles(out: string): string[] {
  return readdirSync(out).sort();
}

const FHIR = ["map", "--from", "hl7v2_2.5.1", "--to", "fhir_r4"];

describe.each([
  ["default workers", []],
  ["--workers 1", ["--workers", "1"]],
])("crossmap map of the 22 HL7 v2 samples, %s: byte-identical output", (label, workers) => {
  const tag = label === "default workers" ? "w" : "w1";

  it("Bundles on stdout, the errors file and the summary, from the folder and from one file", async () => {
    for (const [input, name] of [
      [SAMPLES, "folder"],
      [joined, "file"],
    ] as const) {
      const errors = join(dir, `${tag}-${name}-errors.ndjson`);
      const summary = join(dir, `${tag}-${name}-summary.json`);
      const r = await runCli([...FHIR, ...workers, input, "--errors", errors, "--summary", summary]);
      expect(r.code).toBe(1);
      const label = input === SAMPLES ? "samples" : "all.hl7";
      expectGolden(`${name}/bundles.ndjson`, r.stdout);
      expectGolden(`${name}/errors.ndjson`, readFileSync(errors, "utf8").replaceAll(input, label));
      expectGolden(`${name}/summary.json`, stableSummary(summary));
      expectGolden(`${name}/stderr.txt`, stableStderr(r.stderr));
    }
  });

  it("issue lines on stderr without --errors", async () => {
    const r = await runCli([...FHIR, ...workers, joined, "-o", join(dir, `${tag}-o.ndjson`)]);
    expect(r.code).toBe(1);
    expectGolden("file/stderr-issues.txt", stableStderr(r.stderr.replaceAll(joined, "all.hl7")));
    expectGolden("file/bundles.ndjson", readFileSync(join(dir, `${tag}-o.ndjson`), "utf8"));
  });

  it("resources per type with --out-dir", async () => {
    const out = join(dir, `${tag}-out`);
    const r = await runCli([...FHIR, ...workers, SAMPLES, "--out-dir", out, "-q"]);
    expect(r.code).toBe(1);
    expectGolden("out-dir/stderr.txt", r.stderr.replaceAll(SAMPLES, "samples"));
    const files = listFiles(out);
    expectGolden("out-dir/files.txt", `${files.join("\n")}\n`);
    for (const f of files) expectGolden(`out-dir/${f}`, readFileSync(join(out, f), "utf8"));
  });

  it("rows per table with --via fhir_r4 --to omop_cdm_v5.4", async () => {
    const out = join(dir, `${tag}-omop`);
    const r = await runCli([
      "map",
      "--from",
      "hl7v2_2.5.1",
      "--via",
      "fhir_r4",
      "--to",
      "omop_cdm_v5.4",
      ...workers,
      joined,
      "--out-dir",
      out,
      "-q",
    ]);
    expect(r.code).toBe(1);
    expectGolden("omop/stderr.txt", r.stderr.replaceAll(joined, "all.hl7"));
    const files = listFiles(out);
    expectGolden("omop/files.txt", `${files.join("\n")}\n`);
    for (const f of files) expectGolden(`omop/${f}`, readFileSync(join(out, f), "utf8"));
  });
});
