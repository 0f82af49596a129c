// `crossmap map`: streams records through a crossmap. Thin: parses flags, then hands over to src/pipeline.

import { availableParallelism } from "node:os";
import type { Command } from "commander";
import { Option } from "commander";
import { AppError, formatProblem, type Problem } from "../errors.js";
import type { GatherMode } from "../pipeline/gatherer.js";
import { defaultsToEr7 } from "../pipeline/hl7v2/detect.js";
import type { Hl7v2StageOptions } from "../pipeline/hl7v2/stage.js";
import { type AnyInputPlan, resolveInputs } from "../pipeline/inputs.js";
import { catchInterrupt, type Interrupt, signalExitCode } from "../pipeline/interrupt.js";
import { formatIssueLine } from "../pipeline/issues.js";
import {
  DEFAULT_MAX_RECORD_BYTES,
  MAX_MAX_RECORD_BYTES,
  MIN_MAX_RECORD_BYTES,
  parseByteSize,
} from "../pipeline/limits.js";
import { loadPlan, type PlanSpec, resolvePlanSpec } from "../pipeline/load-plan.js";
import type { MappingPlan } from "../pipeline/plan.js";
import { type OutputTarget, runMap } from "../pipeline/run.js";
import { formatSummaryLine } from "../pipeline/summary.js";
import type { InputFormat, OnError, RunIssue } from "../pipeline/types.js";
import { openForWriting } from "../pipeline/writers.js";
import type { FhirServerWriter } from "../sinks/fhir-server/writer.js";
import type { UnreviewedMode } from "../transforms/overlay.js";
import {
  addFhirServerOptions,
  type FhirServerFlags,
  fhirServerWriter,
  foldServerReport,
} from "./fhir-server.js";
import type { RunRecorder } from "./map-project.js";

/** data-dir.ts's default, not imported from there: that module loads LMDB, which a plain map never needs. */
const DEFAULT_DATA_DIR = "./data";

import { checkOutputPaths } from "./output-paths.js";
import { collect, collectParam } from "./params.js";
import { standardOption } from "./standard-arg.js";

interface MapFlags extends FhirServerFlags {
  from?: string;
  to?: string;
  via?: string;
  entity?: string;
  crossmap?: string[];
  vocab?: string;
  transforms?: string;
  format?: InputFormat | "hl7v2";
  bundle?: string;
  assumeTimezone?: string;
  identifierSystems?: string;
  strictSegments?: boolean;
  workers: number;
  output?: string;
  outDir?: string;
  onError: OnError;
  errors?: string;
  summary?: string;
  quiet?: boolean;
  maxRecordBytes: number;
  null?: string[];
  param?: Record<string, string>;
  gather: GatherMode;
  gatherMemory?: number;
  project?: string;
  dataDir: string;
  unreviewed?: UnreviewedMode;
  nats?: string;
  resume?: string;
  inFlight?: string;
  natsWait?: string;
  db?: string;
  outFormat: "ndjson" | "csv";
  idMap?: string;
  ids: "registry" | "source";
}

export function registerMap(program: Command): void {
  const command = program
    .command("map")
    .description("Map records from one standard to another through a crossmap (NDJSON out).")
    .argument("[files...]", "input files or folders; none or - reads stdin")
    .addOption(standardOption("--from <standard>", "source standard, e.g. omop_cdm_v5.4"))
    .addOption(standardOption("--to <standard>", "target standard, e.g. fhir_r4"))
    .addOption(standardOption("--via <standard>", "chain two crossmaps: from -> via -> to"))
    .option("--entity <name>", "source entity of every record (default: from the file name or resourceType)")
    .option(
      "--crossmap <file>",
      "custom crossmap document (twice with --via: first leg, second leg)",
      collect,
    )
    .option("--vocab <dir>", "vocabulary index directory for vocabulary_lookup")
    .option("--transforms <module>", "module registering custom transforms")
    .addOption(
      new Option("--format <format>", "input format (default: by file extension, else ndjson)").choices([
        "ndjson",
        "csv",
        "fhir-bundle",
        "json-array",
        "hl7v2",
      ]),
    )
    .addOption(
      new Option(
        "--bundle <type>",
        "with --format hl7v2: the FHIR Bundle made of each message (batch: with --fhir-server; default there: transaction)",
      )
        .choices(["collection", "transaction", "batch", "message"])
        .default("collection"),
    )
    .option(
      "--assume-timezone <offset>",
      "with --format hl7v2: the offset (Z, +02:00) of times sent without one; default: such times keep only their date",
    )
    .option(
      "--identifier-systems <file>",
      "with --format hl7v2: a YAML map of local assigning-authority namespace ids (HCD, MR^GOOD HEALTH HOSPITAL) to identifier system URIs",
    )
    .option(
      "--strict-segments",
      "with --format hl7v2: a segment the crossmap does not map is an error, not a warning",
    )
    .option(
      "--workers <n>",
      "threads that map in parallel: the main thread and N-1 worker threads",
      parseWorkers,
      availableParallelism(),
    )
    .option("-o, --output <file>", "write NDJSON to this file (default: stdout)")
    .option("--out-dir <dir>", "write one <TargetEntity>.ndjson per target entity into this folder")
    .addOption(
      new Option(
        "--out-format <format>",
        "with --out-dir: NDJSON files, or (OMOP CDM) one CSV per table as OHDSI ships them: PERSON.csv ...",
      )
        .choices(["ndjson", "csv"])
        .default("ndjson"),
    )
    .option(
      "--db <url>",
      "write OMOP CDM rows into a database: postgresql://user@host/db[?schema=s], FILE.duckdb, duckdb:PATH",
    )
    .option(
      "--id-map <dir>",
      "with --out-format csv: keep the id registry in this LMDB directory, so ids are stable across runs",
    )
    .addOption(
      new Option(
        "--ids <mode>",
        "with --db or --out-format csv: registry ids that fit the DDL's integer keys, or the crossmap's own 64-bit ids (bigint DDL)",
      )
        .choices(["registry", "source"])
        .default("registry"),
    )
    .addOption(
      new Option("--on-error <mode>", "skip bad records and go on, or stop at the first")
        .choices(["skip", "fail"])
        .default("skip"),
    )
    .option(
      "--max-record-bytes <size>",
      `largest record read (a line, row, Bundle entry or array element), e.g. 64M; larger ones are issues (default ${DEFAULT_MAX_RECORD_BYTES / 2 ** 20}M)`,
      parseMaxRecordBytes,
      DEFAULT_MAX_RECORD_BYTES,
    )
    .option(
      "--null <text>",
      "with CSV input: a cell holding exactly this text is absent, as an empty one is: \\N (MySQL, PostgreSQL text dumps), NULL (SQL Server) (repeatable)",
      collect,
    )
    .option("--errors <file>", "write every issue as NDJSON to this file")
    .option("--summary <file>", "write the run summary as JSON to this file")
    .option(
      "--project <id>",
      "apply this project's reviewed concept decisions before the vocabulary, and record the run in its history",
    )
    .option("--data-dir <dir>", "with --project: directory of the LMDB environment", DEFAULT_DATA_DIR)
    .addOption(
      new Option(
        "--unreviewed <mode>",
        "with --project: use the suggestions still awaiting review, or ignore them (default); a warning either way",
      ).choices(["use", "ignore"]),
    )
    .option("-q, --quiet", "no progress and no summary line on stderr")
    .option("--param <name=value>", "set a parameter the crossmap declares (repeatable)", collectParam)
    .addOption(
      new Option(
        "--gather <mode>",
        "when records gathered into a parent are complete: at the end of the run (any input order), or when the input moves to another key (input grouped by key)",
      )
        .choices(["run", "contiguous"])
        .default("run"),
    )
    .option(
      "--gather-memory <MB>",
      "megabytes of records held for gathering before they are spilled to temporary files (default 256)",
      parseMegabytes,
    )
    .option("--nats <url>", "map on `crossmap worker`s through NATS JetStream (docs/scale-out.md)")
    .option("--resume <run>", "with --nats: go on with a stopped run, mapping only what it had not")
    .option("--in-flight <n>", "with --nats: batches out to workers at once (default 64)")
    .option(
      "--nats-wait <seconds>",
      "with --nats: how long to wait for a lost NATS server before the run stops, resumable (default 300)",
    )
    .action(async (files: string[], flags: MapFlags, cmd: Command) => {
      process.exitCode = await mapCommand(files, flags, cmd.getOptionValueSource("bundle") === "cli");
    });
  addFhirServerOptions(command);
}

async function mapCommand(files: string[], flags: MapFlags, bundleGiven: boolean): Promise<number> {
  if (flags.output && flags.outDir) throw usage("give either -o/--output or --out-dir, not both");
  if (flags.fhirServer !== undefined && (flags.output || flags.outDir))
    throw usage("--fhir-server sends the output to the server: give no -o/--output or --out-dir with it");
  if (flags.db && (flags.output || flags.outDir)) throw usage("give either --db or -o/--out-dir, not both");
  if (flags.outFormat === "csv" && !flags.outDir) throw usage("--out-format csv needs --out-dir");
  if (flags.idMap && flags.outFormat !== "csv")
    throw usage("--id-map needs --out-format csv (--db keeps ids in the database)");
  if (flags.fhirServer !== undefined && (flags.db || flags.outFormat === "csv"))
    throw usage("--fhir-server sends FHIR resources: give no --db or --out-format csv with it");
  if (flags.unreviewed !== undefined && flags.project === undefined)
    throw usage("--unreviewed needs --project");
  const spec = await resolvePlanSpec({
    from: flags.from,
    to: flags.to,
    via: flags.via,
    crossmaps: flags.crossmap ?? [],
    transforms: flags.transforms,
    vocab: flags.vocab,
    ...(flags.param ? { parameters: flags.param } : {}),
  });
  // Read once, before the plan: every thread compiles the same decisions with it.
  const projectRun =
    flags.project === undefined
      ? undefined
      : await (await import("./map-project.js")).withProjectDecisions(
          spec,
          flags.dataDir,
          flags.project,
          flags.unreviewed ?? "ignore",
        );
  const warnings: Problem[] = [];
  // HL7 v2 comes in messages: a first crossmap may gather within each message before --via maps on.
  const er7 = (source: string) =>
    flags.format === "hl7v2" || (flags.format === undefined && defaultsToEr7(source, files));
  const plan = await loadPlan(spec, warnings, er7);
  // Printed once, here: a typo in a crossmap's names maps to nothing without an error in any record.
  for (const w of warnings) process.stderr.write(`crossmap map: ${formatProblem(w)}\n`);
  if ((flags.resume || flags.inFlight || flags.natsWait) && !flags.nats) {
    throw usage("--resume, --in-flight and --nats-wait need --nats");
  }
  const record = projectRun
    ? (await import("./map-project.js")).projectRecorder(projectRun, spec, plan, flags.quiet === true)
    : undefined;
  if (flags.format === "hl7v2" || er7(plan.source)) {
    if (flags.nats) throw usage("--nats maps records; HL7 v2 feeds go through `crossmap stream`");
    if (flags.db || flags.outFormat === "csv")
      throw usage("--db and --out-format csv take records, not HL7 v2 messages");
    // Imported only here: the ER7 reader and its HL7 v2 tables cost every other run start-up time.
    const { hl7v2RunParts } = await import("../pipeline/hl7v2/command.js");
    const server = await hl7v2Server(flags, bundleGiven);
    const first = spec.crossmaps[0];
    const { inputs, hl7v2 } = await hl7v2RunParts(
      files,
      // The server takes transaction Bundles (sent as they are, or made a batch by the writer).
      server ? { ...flags, bundle: "transaction" } : flags,
      typeof first === "object" ? first.file : first,
    );
    // Each Bundle line names its message, so that the server's issues point at it.
    if (server) hl7v2.located = true;
    return interruptible((interrupt) =>
      runAndReport(flags, {
        spec,
        plan,
        inputs,
        inputIssues: [],
        interrupt,
        record,
        hl7v2,
        ...(server ? { hl7v2Server: server } : {}),
      }),
    );
  }
  if (!flags.quiet) {
    for (const [entity, gap] of plan.gaps) {
      process.stderr.write(
        `crossmap map: --via: ${gap}; records of ${entity} will be reported, not mapped\n`,
      );
    }
  }
  const inputIssues: RunIssue[] = [];
  const inputs = await resolveInputs({
    inputs: files,
    format: flags.format,
    entity: flags.entity,
    plan,
    note: (message) => {
      if (!flags.quiet) process.stderr.write(`crossmap map: ${message}\n`);
    },
    skipped: (issue) => inputIssues.push(issue),
  });
  await checkOutputPaths(
    [
      { flag: "-o", path: flags.output },
      { flag: "--errors", path: flags.errors },
      { flag: "--summary", path: flags.summary },
    ],
    inputs.map((i) => i.file),
  );
  return interruptible((interrupt) =>
    runAndReport(flags, { spec, plan, inputs, inputIssues, interrupt, record }),
  );
}

/** From here on a signal is caught: the summary and errors files are written for what was done. */
async function interruptible(run: (interrupt: Interrupt) => Promise<number>): Promise<number> {
  const interrupt = catchInterrupt();
  try {
    return await run(interrupt);
  } finally {
    interrupt.dispose();
  }
}

async function runAndReport(
  flags: MapFlags,
  run: {
    spec: PlanSpec;
    plan: MappingPlan;
    inputs: AnyInputPlan[];
    inputIssues: RunIssue[];
    interrupt: Interrupt;
    /** With --project: records the run in the project's history. */
    record: RunRecorder | undefined;
    /** HL7 v2 runs: how messages become Bundles. */
    hl7v2?: Hl7v2StageOptions;
    /** HL7 v2 runs with --fhir-server: the writer, and the Bundles it sends each message as. */
    hl7v2Server?: Hl7v2Server;
  },
): Promise<number> {
  const { spec, plan, inputs, inputIssues, interrupt, record, hl7v2 } = run;
  const stderr = process.stderr;
  const summaryFile = flags.summary ? await openForWriting(flags.summary, "--summary") : undefined;
  const hl7Server = run.hl7v2Server;
  const server = hl7v2 ? hl7Server?.writer : await fhirServerWriter(flags);
  const cdm =
    flags.db || flags.outFormat === "csv"
      ? await (await import("./map-cdm.js")).cdmTarget(flags, plan, (line) => {
          if (!flags.quiet) stderr.write(`crossmap map: ${line}\n`);
        })
      : undefined;
  const output: OutputTarget = server
    ? {
        kind: "sink",
        // HL7 v2: each message's Bundle to the writer as the pipeline wrote it (its text, not parsed again);
        // records: resources batched by the writer.
        open: async () => (hl7Server ? hl7Server.writer.messageLines(hl7Server.as) : server.records()),
        byEntity: false,
      }
    : cdm
      ? cdm.output
      : flags.outDir
        ? { kind: "dir", path: flags.outDir }
        : flags.output && flags.output !== "-"
          ? { kind: "file", path: flags.output }
          : { kind: "stdout" };
  const mapRun = flags.nats ? (await import("../scale/coordinator.js")).natsRunner(flags) : runMap;
  const { summary, fatal } = await mapRun({
    plan,
    planSpec: spec,
    inputs,
    inputIssues,
    workers: flags.workers,
    maxRecordBytes: flags.maxRecordBytes,
    ...(flags.null ? { csvNulls: flags.null } : {}),
    onError: flags.onError,
    output,
    ...(flags.errors ? { errorsFile: flags.errors } : {}),
    stdin: process.stdin,
    stdout: process.stdout,
    stderr,
    progress: !flags.quiet && stderr.isTTY === true,
    quietIssues: flags.quiet === true,
    ...(cdm && !flags.nats ? { progressNote: cdm.progressNote } : {}),
    interrupt,
    gather: flags.gather,
    ...(flags.gatherMemory !== undefined ? { gatherMemory: flags.gatherMemory } : {}),
    ...(server ? { progressNote: () => server.note() } : {}),
    ...(hl7v2 ? { hl7v2 } : {}),
  });
  if (server) await foldServerReport(server, summary, serverFold(flags, stderr));
  const recorded = await record?.(
    summary,
    fatal ? formatIssueLine(fatal) : undefined,
    hl7v2 ? [undefined] : inputs.map((i) => i.entity),
  );
  if (summaryFile) {
    const project = recorded
      ? {
          run_id: recorded.id,
          decision_snapshot: recorded.decision_snapshot,
          vocabulary_release: recorded.vocabulary_release,
        }
      : {};
    await summaryFile.writeFile(`${JSON.stringify({ ...summary, ...project }, null, 2)}\n`);
    await summaryFile.close();
  }
  if (!flags.quiet) {
    const line = hl7v2
      ? (await import("../pipeline/hl7v2/command.js")).formatHl7v2Summary(summary)
      : formatSummaryLine(summary);
    stderr.write(`${line}\n`);
  }
  if (cdm && !flags.quiet) for (const line of cdm.summary()) stderr.write(`${line}\n`);
  if (summary.interrupted) {
    const records = hl7v2 ? `${summary.messages} messages` : `${summary.records_in} records`;
    const kept =
      output.kind === "stdout"
        ? "written to stdout"
        : server
          ? "what the FHIR server accepted stays there"
          : flags.db
            ? "committed up to the last whole batch (a second run adds only what is missing)"
            : "not published (temporary files removed)";
    stderr.write(
      `crossmap: interrupted by ${summary.interrupted} after ${records}; output ${kept}; ` +
        `the summary and errors cover what was done\n`,
    );
    // A read that never ends (stdin from a terminal or a pipe) must not keep the process alive.
    process.stdin.destroy();
    setTimeout(() => process.exit(signalExitCode(summary.interrupted!)), 2000).unref();
    return signalExitCode(summary.interrupted);
  }
  if (fatal) {
    stderr.write(`crossmap: stopped at the first error (--on-error fail): ${formatIssueLine(fatal)}\n`);
    return 1;
  }
  return summary.errors > 0 || summary.records_failed > 0 || (summary.rows_refused ?? 0) > 0 ? 1 : 0;
}

/**
 * With --fhir-server, the writer and the Bundles it sends for HL7 v2: transaction unless --bundle says
 * batch; without it, --bundle batch is refused (a batch Bundle of urn:uuid references means nothing in a file).
 */
interface Hl7v2Server {
  writer: FhirServerWriter;
  as: "transaction" | "batch";
}

async function hl7v2Server(flags: MapFlags, bundleGiven: boolean): Promise<Hl7v2Server | undefined> {
  if (flags.fhirServer === undefined) {
    if (flags.bundle === "batch") throw usage("--bundle batch goes with --fhir-server");
    return undefined;
  }
  const as = bundleGiven ? flags.bundle : "transaction";
  if (as !== "transaction" && as !== "batch") {
    throw usage(`--fhir-server sends transaction or batch Bundles, not --bundle ${as}`);
  }
  // Its progress is the run's progress line (progressNote), as for records.
  const writer = (await fhirServerWriter(flags)) as FhirServerWriter;
  return { writer, as: as as "transaction" | "batch" };
}

const serverFold = (flags: MapFlags, stderr: NodeJS.WritableStream) => ({
  ...(flags.errors !== undefined ? { errorsFile: flags.errors } : {}),
  quiet: flags.quiet === true,
  stderr,
});

function parseMegabytes(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 1)
    throw usage(`--gather-memory must be a number of megabytes (at least 1), got "${value}"`);
  return Math.round(n * 1024 * 1024);
}

function parseWorkers(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 256)
    throw usage(`--workers must be a whole number from 1 to 256, got "${value}"`);
  return n;
}

function parseMaxRecordBytes(value: string): number {
  const n = parseByteSize(value);
  if (n === undefined || n < MIN_MAX_RECORD_BYTES || n > MAX_MAX_RECORD_BYTES) {
    throw usage(
      `--max-record-bytes must be a size from 1K to ${MAX_MAX_RECORD_BYTES / 2 ** 20}M (e.g. 64M), got "${value}"`,
    );
  }
  return n;
}

function usage(message: string): AppError {
  return new AppError(400, "usage", message);
}
