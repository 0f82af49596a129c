// The `--format hl7v2` branch of `crossmap map`: flags in, exit code out. Kept here so that the command
// file only needs to hand over its flags and mapping plan.
import { mkdir } from "node:fs/promises";
import type { Readable, Writable } from "node:stream";
import { AppError } from "../../errors.js";
import { openForWriting } from "../writers.js";
import type { BundleType, SegmentMappers } from "./bundle.js";
import { formatHl7v2Issue, type Hl7v2RunSummary, runHl7v2 } from "./run.js";

export interface Hl7v2MapFlags {
  output?: string;
  outDir?: string;
  bundle?: string;
  onError: "skip" | "fail";
  errors?: string;
  summary?: string;
  quiet?: boolean;
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
  mappers: SegmentMappers,
  io: { stdin: Readable; stdout: Writable; stderr: Writable } = process,
): Promise<number> {
  const bundle = (flags.bundle ?? "collection") as BundleType;
  if (bundle !== "collection" && bundle !== "transaction") {
    throw new AppError(400, "usage", `--bundle must be collection or transaction, got "${flags.bundle}"`);
  }
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
    output: flags.outDir
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
