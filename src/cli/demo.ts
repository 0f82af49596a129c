// `crossmap demo`: the main job on bundled data with nothing to set up. Builds the sample vocabulary index
// once, then runs the real `crossmap map` on the bundled Synthea27Nj OMOP tables into FHIR R4 NDJSON.
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { ensureSampleVocabulary } from "../vocab/sample.js";

const SAMPLE_TABLES = fileURLToPath(new URL("../../test/fixtures/synthea27nj/", import.meta.url));

export function registerDemo(program: Command): void {
  program
    .command("demo")
    .description(
      "Map the bundled OMOP CDM sample (Synthea27Nj, 28 persons) to FHIR R4 with the bundled vocabulary",
    )
    .option("--out-dir <dir>", "where to write the FHIR NDJSON, issues and summary", "crossmap-demo")
    .action(async (opts: { outDir: string }) => {
      const out = resolve(opts.outDir);
      mkdirSync(out, { recursive: true });
      const vocab = await ensureSampleVocabulary();
      if (vocab.built)
        process.stderr.write(`crossmap demo: built the sample vocabulary index in ${vocab.dir}\n`);
      const show = (p: string) => relative(process.cwd(), p) || ".";
      const args = [
        "map",
        "--from",
        "omop_cdm_v5.4",
        "--to",
        "fhir_r4",
        "--vocab",
        vocab.dir,
        "--out-dir",
        join(out, "fhir"),
        "--errors",
        join(out, "issues.ndjson"),
        "--summary",
        join(out, "summary.json"),
        SAMPLE_TABLES,
      ];
      process.stderr.write(
        `crossmap demo: crossmap ${args.map((a) => (a.startsWith("/") ? show(a) : a)).join(" ")}\n`,
      );
      // The same command a user would type, so the demo shows exactly what `map` does.
      const { buildProgram } = await import("./main.js");
      await (await buildProgram("map")).parseAsync(args, { from: "user" });
      const files = readdirSync(join(out, "fhir"))
        .filter((f) => f.endsWith(".ndjson"))
        .sort();
      const lines = files.map((f) => {
        const n = readFileSync(join(out, "fhir", f), "utf8")
          .split("\n")
          .filter(Boolean).length;
        return `  ${show(join(out, "fhir", f))}: ${n} resources`;
      });
      process.stdout.write(
        `${["FHIR R4 resources written:", ...lines, `Run summary: ${show(join(out, "summary.json"))}; issues: ${show(join(out, "issues.ndjson"))}`].join("\n")}\n`,
      );
    });
}
