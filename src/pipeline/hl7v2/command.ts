// The `--format hl7v2` branch of `crossmap map`: its flags checked and turned into the run's inputs and
// stage options (the run itself and its report are the record pipeline's, cli/map.ts), and its summary line.
import { mkdir } from "node:fs/promises";
import { AppError } from "../../errors.js";
import { parseOffsetSetting } from "../../transforms/dates.js";
import type { AnyInputPlan } from "../inputs.js";
import type { RunSummary } from "../summary.js";
import { openForWriting } from "../writers.js";
import type { BundleType } from "./bundle.js";
import { loadIdentifierSystems } from "./identifier-systems.js";
import { crossmapReads, listHl7v2Inputs } from "./run.js";
import type { Hl7v2StageOptions } from "./stage.js";

export interface Hl7v2MapFlags {
  output?: string;
  outDir?: string;
  bundle?: string;
  assumeTimezone?: string;
  /** `--identifier-systems FILE`: the site table of identifier systems. */
  identifierSystems?: string;
  strictSegments?: boolean;
  errors?: string;
}

/** `crossmap map: 22 messages -> 22 Bundles, 0 malformed; 491 segments in, 116 resources out, ...` */
export function formatHl7v2Summary(s: RunSummary): string {
  const list = (o: Record<string, number>) =>
    Object.entries(o)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([k, n]) => `${k} ${n}`)
      .join(", ");
  const issues = list(s.issues_by_code);
  const skipped = list(s.skipped);
  return (
    `crossmap map: ${s.messages} messages -> ${s.bundles} Bundles, ${s.malformed_messages?.length} malformed; ` +
    `${s.records_in} segments in, ${s.records_out} resources out, ${s.records_failed} failed, ` +
    `${s.errors} with errors, ${s.warnings} warnings` +
    (issues ? `; issues: ${issues}` : "") +
    (skipped ? `; unmapped segments: ${skipped}` : "") +
    `; ${(s.elapsed_ms / 1000).toFixed(2)} s` +
    (s.interrupted ? `; interrupted (${s.interrupted})` : s.completed ? "" : "; stopped early")
  );
}

/**
 * Checks the flags of an HL7 v2 run and works out its inputs and stage options. Unwritable paths are usage
 * errors (exit 2) before anything is read, as in the record pipeline. `crossmapFile` is the first
 * crossmap's file: the segments it reads through a parent (`$ctx.child`) are parsed.
 */
export async function hl7v2RunParts(
  files: string[],
  flags: Hl7v2MapFlags,
  crossmapFile: string | undefined,
): Promise<{ inputs: AnyInputPlan[]; hl7v2: Hl7v2StageOptions }> {
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
    flags.identifierSystems !== undefined ? await loadIdentifierSystems(flags.identifierSystems) : undefined;
  if (flags.output && flags.outDir)
    throw new AppError(400, "usage", "give either -o/--output or --out-dir, not both");
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
  const inputs = await listHl7v2Inputs(files);
  const reads = crossmapFile ? await crossmapReads(crossmapFile) : undefined;
  const hl7v2: Hl7v2StageOptions = {
    bundle,
    strictSegments: flags.strictSegments === true,
    ...(assumeTimezone !== undefined ? { assumeTimezone } : {}),
    ...(reads ? { reads } : {}),
    // Entries, not the Map: stage options reach worker threads as plain data.
    ...(identifierSystems !== undefined ? { identifierSystems: [...identifierSystems] } : {}),
  };
  return { inputs, hl7v2 };
}

export { defaultsToEr7 } from "./detect.js";
