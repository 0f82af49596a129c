// `crossmap report --from X --to Y [--crossmap FILE]`: the mapping report as JSON.
import type { Command } from "commander";
import { findBuiltinCrossmap } from "../crossmap/catalog.js";
import { loadCrossmapFile } from "../crossmap/load.js";
import { mappingReport } from "../crossmap/report.js";
import { loadStandard } from "../crossmap/standards.js";
import { AppError } from "../errors.js";
import { standardOption } from "./standard-arg.js";

export function registerReport(program: Command): void {
  program
    .command("report")
    .description("Print the mapping report (entity mappings, field mappings, unmapped fields) as JSON")
    .addOption(standardOption("--from <standard>", "source standard, e.g. omop_cdm_v5.4"))
    .addOption(standardOption("--to <standard>", "target standard, e.g. fhir_r4"))
    .option("--crossmap <file>", "a crossmap file instead of the built-in one for the pair")
    .action(async (opts: { from?: string; to?: string; crossmap?: string }) => {
      let file = opts.crossmap;
      if (!file) {
        if (!opts.from || !opts.to)
          throw new AppError(400, "usage", "give --from and --to, or --crossmap FILE");
        const entry = findBuiltinCrossmap(opts.from, opts.to);
        if (!entry)
          throw new AppError(
            404,
            "unknown_pair",
            `no built-in crossmap from ${opts.from} to ${opts.to}; see crossmap list`,
          );
        file = entry.path;
      }
      const cm = await loadCrossmapFile(file);
      const source = loadStandard(cm.source);
      const target = loadStandard(cm.target);
      const report = mappingReport(cm, { ...(source ? { source } : {}), ...(target ? { target } : {}) });
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    });
}
