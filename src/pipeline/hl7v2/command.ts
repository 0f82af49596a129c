// The `--format hl7v2` branch of `crossmap map`: flags in, exit code out. Kept here so that the command
// file only needs to hand over its flags and mapping plan.
import { mkdir, readFile } from "node:fs/promises";
import type { Readable, Writable } from "node:stream";
import { parseYaml } from "../../crossmap/catalog.js";
import { compiledEntryAt } from "../../crossmap/compiled.js";
import { AppError } from "../../errors.js";
import { parseOffsetSetting } from "../../transforms/dates.js";
import type { RunSummary } from "../summary.js";
import { type BundleSink, openForWriting } from "../writers.js";
import { type BundleType, type SegmentMappers, segmentReadsOfDocument } from "./bundle.js";
import { formatHl7v2Issue, type Hl7v2RunSummary, runHl7v2 } from "./run.js";

export interface Hl7v2MapFlags {
  output?: string;
  outDir?: string;
  bundle?: string;
  assumeTimezone?: string;
  /** `--identifier-systems FILE`: the site table of identifier systems. */
  identifierSystems?: string;
  strictSegments?: boolean;
  onError: "skip" | "fail";
  errors?: string;
  summary?: string;
  quiet?: boolean;
  /** Where each message's Bundle goes instead of a file or stdout (the FHIR server writer). */
  sink?: BundleSink;
}

/** `crossmap map: 22 messages -> 22 Bundles, 0 malformed; 491 segments in, 116 resources out, ...` */
export function formatHl7v2Summary(s: Hl7v2RunSummary): string {
  const list = (o: Record<string, number>) =>
    Object.entries(o)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([k, n]) => `${k} ${n}`)
      .join(", ");
  const issues = list(s.issues_by_code);
  const skipped = list(s.skipped);
  return (
    `crossmap map: ${s.messages} messages -> ${s.bundles} Bundles, ${s.malformed_messages.length} malformed; ` +
    `${s.records_in} segments in, ${s.records_out} resources out, ${s.records_failed} failed, ` +
    `${s.errors} with errors, ${s.warnings} warnings` +
    (issues ? `; issues: ${issues}` : "") +
    (skipped ? `; unmapped segments: ${skipped}` : "") +
    `; ${(s.elapsed_ms / 1000).toFixed(2)} s` +
    (s.completed ? "" : "; stopped early")
  );
}

export async function hl7v2MapCommand(
  files: string[],
  flags: Hl7v2MapFlags,
  plan: SegmentMappers,
  io: { stdin: Readable; stdout: Writable; stderr: Writable } = process,
  /** The first crossmap's file: the segments it reads through a parent (`$ctx.child`) are parsed. */
  crossmapFile?: string,
  /** Called with the summary once the run is over (e.g. to record it in a project's history). */
  finished?: (summary: RunSummary, fatal: string | undefined) => Promise<void>,
): Promise<number> {
  // With --via, the plan has no mapper for a segment whose resource the next crossmap does not take (a
  // MessageHeader into OMOP): it is reported as an unmapped segment.
  // A built-in crossmap as the build stored it (parsing its YAML again cost ~0.5 s of every run's start).
  const reads = crossmapFile
    ? segmentReadsOfDocument(
        compiledEntryAt(crossmapFile)?.document ?? parseYaml(await readFile(crossmapFile, "utf8")),
      )
    : plan.reads;
  const mappers: SegmentMappers = {
    mapperFor: (e: string) => plan.mapperFor(e),
    ...(reads ? { reads } : {}),
    // Without it a text report's lines would be orphans: the message is where they gather.
    ...(plan.gather ? { gather: plan.gather } : {}),
    ...(plan.stages ? { stages: plan.stages } : {}),
  };
  const bundle = (flags.bundle ?? "collection") as BundleType;
  if (bundle !== "collection" && bundle !== "transaction" && bundle !== "message") {
    throw new AppError(
      400,
      "usage",
      `--bundle must be collection, transaction or message, got "${flags.bundle}"`,
    );
  }
  let assumeTimezone: string | undefined;
  if (flags.assumeTimezone !== undefined) {
    assumeTimezone = parseOffsetSetting(flags.assumeTimezone);
    if (assumeTimezone === undefined) {
      throw new AppError(
        400,
        "usage",
        `--assume-timezone must be Z, UTC or an offset such as +02:00, got "${flags.assumeTimezone}"`,
      );
    }
  }
  const identifierSystems =
    flags.identifierSystems !== undefined
      ? await (await import("./identifier-systems-file.js")).loadIdentifierSystems(flags.identifierSystems)
      : undefined;
  if (flags.output && flags.outDir)
    throw new AppError(400, "usage", "give either -o/--output or --out-dir, not both");
  // Unwritable paths are usage errors (exit 2) before anything is read, as in the record pipeline.
  const summaryFile = flags.summary ? await openForWriting(flags.summary, "--summary") : undefined;
  for (const [path, flag] of [
    [flags.output && flags.output !== "-" ? flags.output : undefined, "-o/--output"],
    [flags.errors, "--errors"],
  ] as const) {
    if (path !== undefined) await (await openForWriting(path, flag)).close();
  }
  if (flags.outDir) {
    await mkdir(flags.outDir, { recursive: true }).catch((err: Error) => {
      throw new AppError(400, "output_error", `--out-dir ${flags.outDir}: cannot create it: ${err.message}`);
    });
  }
  const { summary, fatal } = await runHl7v2({
    mappers,
    inputs: files,
    bundle,
    ...(assumeTimezone !== undefined ? { assumeTimezone } : {}),
    ...(identifierSystems !== undefined ? { identifierSystems } : {}),
    strictSegments: flags.strictSegments === true,
    output: flags.sink
      ? { kind: "sink", sink: flags.sink }
      : flags.outDir
        ? { kind: "dir", path: flags.outDir }
        : flags.output && flags.output !== "-"
          ? { kind: "file", path: flags.output }
          : { kind: "stdout" },
    onError: flags.onError,
    ...(flags.errors ? { errorsFile: flags.errors } : {}),
    stdin: io.stdin,
    stdout: io.stdout,
    stderr: io.stderr,
  });
  await finished?.(summary, fatal ? formatHl7v2Issue(fatal) : undefined);
  if (summaryFile) {
    await summaryFile.writeFile(`${JSON.stringify(summary, null, 2)}\n`);
    await summaryFile.close();
  }
  if (!flags.quiet) io.stderr.write(`${formatHl7v2Summary(summary)}\n`);
  if (fatal) {
    io.stderr.write(`crossmap: stopped at the first error (--on-error fail): ${formatHl7v2Issue(fatal)}\n`);
    return 1;
  }
  return summary.errors > 0 || summary.records_failed > 0 ? 1 : 0;
}

export { defaultsToEr7 } from "./detect.js";
