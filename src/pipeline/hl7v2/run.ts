// `crossmap map --format hl7v2`: ER7 files (or stdin) -> one FHIR Bundle per message as NDJSON, or with
// an output folder one `<ResourceType>.ndjson` of resources per type. The run is the record pipeline's
// (pipeline/run.ts): batches of whole messages are mapped here or in worker threads, output kept in input
// order. The summary has the record pipeline's keys (records are segments; `skipped` counts unmapped
// segments by type) plus the message counts. Here: listing the inputs, and the located issues.
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { parseYaml } from "../../crossmap/catalog.js";
import { compiledEntryAt } from "../../crossmap/compiled.js";
import type { MappingIssue } from "../../crossmap/types.js";
import { AppError } from "../../errors.js";
import type { AnyInputPlan } from "../inputs.js";
import type { Interrupt } from "../interrupt.js";
import type { PlanSpec } from "../load-plan.js";
import type { MappingPlan } from "../plan.js";
import { type MapRunOutcome, type OutputTarget, runMap } from "../run.js";
import type { RunSummary } from "../summary.js";
import { type BundleType, segmentReadsOfDocument } from "./bundle.js";
import type { IdentifierSystems } from "./identifier-systems.js";
import type { ConvertResult } from "./index.js";
import type { MalformedMessage } from "./message.js";
import type { Hl7v2StageOptions } from "./stage.js";

export interface Hl7v2RunOptions {
  plan: MappingPlan;
  /** The same plan as files, for workers to compile on their own. */
  planSpec: PlanSpec;
  /** Files, or folders (every *.hl7 and *.er7 inside, gzip or not); none or "-" reads stdin. */
  inputs: string[];
  bundle: BundleType;
  /** `--assume-timezone`: the offset of times sent without one. */
  assumeTimezone?: string;
  /** `--identifier-systems`: the site table of identifier systems. */
  identifierSystems?: IdentifierSystems;
  /** `--strict-segments`: a segment the crossmap does not map is an error. */
  strictSegments?: boolean;
  reads?: Hl7v2StageOptions["reads"];
  output: OutputTarget;
  onError: "skip" | "fail";
  errorsFile?: string;
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** Default 1: mapped on this thread. */
  workers?: number;
  /** The worker module (compiled JS, dist/pipeline/worker.js), for callers that run from sources. */
  workerUrl?: URL;
  /** Issues printed to stderr when there is no errors file. */
  maxIssueLines?: number;
  interrupt?: Interrupt;
}

/** One located issue, as the record pipeline writes them (`file`, then where, code, severity, message). */
export interface Hl7v2Issue {
  file: string;
  message_index?: number;
  segment?: number;
  segment_type?: string;
  line?: number;
  field?: string;
  target?: string;
  code: string;
  severity: "error" | "warning";
  message: string;
  value?: unknown;
}

/**
 * The record pipeline's summary, read for HL7 v2: records are segments (of messages that could be parsed)
 * in and resources out; failed counts segments of malformed messages (a stretch of text with no MSH counts
 * once) and segments whose resource lacked a required field; errors counts resources with an error issue;
 * skipped counts segments no crossmap entity maps, by segment type. Plus the message-level counts.
 */
export interface Hl7v2RunSummary extends RunSummary {
  messages: number;
  bundles: number;
  malformed_messages: MalformedMessage[];
}

const ER7_FILE = /\.(hl7|er7)(\.gz)?$/i;

/** The inputs of an HL7 v2 run: files, every *.hl7 and *.er7 (gzip or not) of a folder, or stdin ("-" or none). */
export async function listHl7v2Inputs(inputs: string[]): Promise<AnyInputPlan[]> {
  const out: AnyInputPlan[] = [];
  const input = (file: string, size: number | undefined): AnyInputPlan => ({
    file,
    format: "hl7v2",
    entity: undefined,
    size,
  });
  for (const path of inputs.length === 0 ? ["-"] : inputs) {
    if (path === "-") {
      out.push(input(path, undefined));
      continue;
    }
    const info = await stat(path).catch((err: NodeJS.ErrnoException) => {
      const why = err.code === "ENOENT" ? "no such file" : err.message;
      throw new AppError(400, "input_error", `cannot read ${path}: ${why}`);
    });
    if (!info.isDirectory()) {
      out.push(input(path, info.size));
      continue;
    }
    const names = (await readdir(path)).filter((n) => ER7_FILE.test(n)).sort();
    if (names.length === 0) throw new AppError(400, "input_error", `${path}: no .hl7 or .er7 files`);
    for (const n of names) {
      // A member that cannot be read (a link to nothing) is one issue when the run reads it, not a crash.
      const size = await stat(join(path, n)).then(
        (s) => s.size,
        () => undefined,
      );
      out.push(input(join(path, n), size));
    }
  }
  return out;
}

/**
 * The segments a crossmap reads through a parent (`$ctx.child.PD1`), as stage options carry them. A
 * built-in crossmap as the build stored it (parsing its YAML again cost ~0.5 s of every run's start).
 */
export async function crossmapReads(file: string): Promise<Hl7v2StageOptions["reads"]> {
  const doc = compiledEntryAt(file)?.document ?? parseYaml(await readFile(file, "utf8"));
  return [...segmentReadsOfDocument(doc)].map(([entity, chains]) => [
    entity,
    chains.map((chain) => chain.map(([kind, type]) => [kind, type] as ["seg" | "child", string])),
  ]);
}

/** An HL7 v2 run through the record pipeline (the CLI goes through `crossmap map`, cli/map.ts). */
export async function runHl7v2(options: Hl7v2RunOptions): Promise<MapRunOutcome> {
  const first = options.planSpec.crossmaps[0];
  const file = typeof first === "object" ? first.file : first;
  const reads = options.reads ?? (file !== undefined ? await crossmapReads(file) : undefined);
  return runMap({
    plan: options.plan,
    planSpec: options.planSpec,
    inputs: await listHl7v2Inputs(options.inputs),
    workers: options.workers ?? 1,
    ...(options.workerUrl !== undefined ? { workerUrl: options.workerUrl } : {}),
    onError: options.onError,
    output: options.output,
    ...(options.errorsFile !== undefined ? { errorsFile: options.errorsFile } : {}),
    stdin: options.stdin,
    stdout: options.stdout,
    stderr: options.stderr as NodeJS.WriteStream,
    progress: false,
    ...(options.maxIssueLines !== undefined ? { maxIssueLines: options.maxIssueLines } : {}),
    ...(options.interrupt ? { interrupt: options.interrupt } : {}),
    hl7v2: {
      bundle: options.bundle,
      strictSegments: options.strictSegments === true,
      ...(options.assumeTimezone !== undefined ? { assumeTimezone: options.assumeTimezone } : {}),
      ...(reads ? { reads } : {}),
      ...(options.identifierSystems !== undefined
        ? { identifierSystems: [...options.identifierSystems] }
        : {}),
    },
  });
}

export function issueOf(i: MappingIssue, file: string, r: ConvertResult & { ok: true }): Hl7v2Issue {
  const ctx = r.message.segments.find((s) => s.$ctx.position === i.record)?.$ctx;
  const where = ctx ? { message_index: ctx.message, segment: ctx.segment, segment_type: ctx.type } : {};
  const out: Hl7v2Issue = {
    file,
    ...where,
    // A segment-level issue (unmapped_segment) names no field; a problem of the text, no target.
    ...(i.field !== "" ? (i.target !== "" ? { field: i.field, target: i.target } : { field: i.field }) : {}),
    code: i.code,
    severity: i.severity,
    message: i.message,
  };
  if (i.value !== undefined && (typeof i.value !== "object" || i.value === null)) out.value = i.value;
  return out;
}

export const malformedIssue = (m: MalformedMessage, file: string): Hl7v2Issue => ({
  file,
  message_index: m.index,
  segment: m.segment,
  segment_type: m.segmentType,
  line: m.line,
  code: "malformed_message",
  severity: "error",
  message: m.message,
});

/** `in.hl7 message 2 segment 5 (OBX): error unmapped_value at OBX.3 -> Observation.code: ...` */
export function formatHl7v2Issue(i: Hl7v2Issue): string {
  let where = i.file;
  if (i.message_index !== undefined) where += ` message ${i.message_index}`;
  if (i.segment !== undefined) where += ` segment ${i.segment} (${i.segment_type})`;
  if (i.line !== undefined) where += ` line ${i.line}`;
  const field = i.field !== undefined ? ` at ${i.field}${i.target ? ` -> ${i.target}` : ""}` : "";
  return `${where}: ${i.severity} ${i.code}${field}: ${i.message}`;
}
