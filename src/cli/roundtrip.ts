// `crossmap roundtrip --from X --via Y FILES`: maps records X -> Y -> X and reports, per table, the rows and
// values that came back. Thin: flags here, the work in src/pipeline/roundtrip/.
import type { Command } from "commander";
import { Option } from "commander";
import { loadStandard } from "../crossmap/standards.js";
import { AppError } from "../errors.js";
import { resolveInputs } from "../pipeline/inputs.js";
import { loadLegs, resolvePlanSpec } from "../pipeline/load-plan.js";
import { composePlan } from "../pipeline/plan.js";
import { formatRoundtrip, roundtripReport } from "../pipeline/roundtrip/report.js";
import { runRoundtrip } from "../pipeline/roundtrip/run.js";
import type { InputFormat } from "../pipeline/types.js";
import { openForWriting } from "../pipeline/writers.js";
import { standardOption } from "./standard-arg.js";

interface RoundtripFlags {
  from?: string;
  via?: string;
  crossmap?: string[];
  vocab?: string;
  transforms?: string;
  format?: InputFormat;
  entity?: string;
  json?: boolean;
  report?: string;
  minRows?: number;
  minValues?: number;
  quiet?: boolean;
}

export function registerRoundtrip(program: Command): void {
  program
    .command("roundtrip")
    .description(
      "Map records there and back (X -> Y -> X) and report, per table, the rows and values that came back.",
    )
    .argument(
      "[files...]",
      "input files or folders (a folder maps as the tables it holds); none or - reads stdin",
    )
    .addOption(standardOption("--from <standard>", "the standard of the input, e.g. omop_cdm_v5.4"))
    .addOption(standardOption("--via <standard>", "the standard to go through, e.g. fhir_r4"))
    .option(
      "--crossmap <file>",
      "custom crossmaps instead of the built-in ones: twice, there then back",
      collect,
    )
    .option("--vocab <dir>", "vocabulary index directory")
    .option("--transforms <module>", "module registering custom transforms")
    .addOption(
      new Option("--format <format>", "input format (default: by file extension, else ndjson)").choices([
        "ndjson",
        "csv",
      ]),
    )
    .option("--entity <name>", "source entity (table) of every record (default: from the file name)")
    .option("--json", "print the report as JSON instead of a table")
    .option("--report <file>", "also write the report as JSON to this file")
    .option(
      "--min-rows <percent>",
      "exit 1 when fewer rows than this come back (per cent of all)",
      percentOption,
    )
    .option(
      "--min-values <percent>",
      "exit 1 when fewer values than this come back (per cent of all)",
      percentOption,
    )
    .option("-q, --quiet", "no notes on stderr")
    .action(async (files: string[], flags: RoundtripFlags) => {
      process.exitCode = await roundtripCommand(files, flags);
    });
}

async function roundtripCommand(files: string[], flags: RoundtripFlags): Promise<number> {
  if (!flags.crossmap?.length && (!flags.from || !flags.via)) {
    throw new AppError(400, "usage", "give --from and --via (or --crossmap twice: there, then back)");
  }
  const spec = await resolvePlanSpec({
    from: flags.from ?? "",
    to: flags.from ?? "",
    via: flags.via ?? "-",
    crossmaps: flags.crossmap ?? [],
    transforms: flags.transforms,
    vocab: flags.vocab,
  });
  const [there, back] = await loadLegs(spec);
  if (!there || !back) throw new AppError(400, "usage", "a round trip needs two crossmaps");
  if (there.target !== back.source || back.target !== there.source) {
    throw new AppError(
      400,
      "usage",
      `the crossmaps do not make a round trip: ${there.source} -> ${there.target}, then ${back.source} -> ${back.target}`,
    );
  }
  const definition = loadStandard(there.source);
  if (!definition) {
    throw new AppError(
      400,
      "usage",
      `a round trip needs the definition of ${there.source} in crossmaps/standards/ (each table's key and column types)`,
    );
  }
  const inputs = await resolveInputs({
    inputs: files,
    format: flags.format,
    entity: flags.entity,
    plan: composePlan([there]),
    note: (message) => {
      if (!flags.quiet) process.stderr.write(`crossmap roundtrip: ${message}\n`);
    },
  });
  const types = new Map(
    Object.entries(definition.entities).map(([table, e]) => [
      table,
      new Map(e.fields.map((f) => [f.name, f.type])),
    ]),
  );
  const result = await runRoundtrip({
    there,
    back,
    inputs,
    // The CDM lists each table's primary key first (person_id for death, which has none of its own).
    keyOf: (table) => definition.entities[table]?.fields[0]?.name,
    typeOf: (table, column) => types.get(table)?.get(column),
    stdin: process.stdin,
  });
  const report = roundtripReport(result, {
    from: there.source,
    via: there.target,
    vocabulary: spec.vocab !== undefined,
  });
  if (flags.report) {
    const file = await openForWriting(flags.report, "--report");
    await file.writeFile(`${JSON.stringify(report, null, 2)}\n`);
    await file.close();
  }
  process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatRoundtrip(report));
  const short =
    (flags.minRows !== undefined && report.total.rows_back_pct < flags.minRows) ||
    (flags.minValues !== undefined && report.total.values_back_pct < flags.minValues);
  return short ? 1 : 0;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function percentOption(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 100) {
    throw new AppError(400, "usage", `expected a percentage from 0 to 100, got "${value}"`);
  }
  return n;
}
