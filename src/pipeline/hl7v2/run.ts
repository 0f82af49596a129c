// `crossmap map --format hl7v2`: ER7 files (or stdin) -> one FHIR Bundle per message as NDJSON, or with
// an output folder one `<ResourceType>.ndjson` of resources per type. Runs on the main thread (a message
// is mapped as a whole, so the line batches of the record pipeline do not fit). The summary has the
// record pipeline's keys (records are segments; `skipped` counts unmapped segments by type) plus the
// message counts.
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { mkdir, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import type { MappingIssue } from "../../crossmap/types.js";
import { AppError } from "../../errors.js";
import { type InputFailure, inputBytes } from "../input-bytes.js";
import { stringifyJson } from "../json.js";
import { emptySummary, finishSummary, type RunSummary } from "../summary.js";
import type { BundleSink } from "../writers.js";
import { type BundleType, type SegmentMappers, segmentMappers } from "./bundle.js";
import type { IdentifierSystems } from "./identifier-systems.js";
import { type ConvertResult, convertMessage } from "./index.js";
import type { MalformedMessage } from "./message.js";
import { streamMessages } from "./split.js";

export interface Hl7v2RunOptions {
  mappers: SegmentMappers;
  /** Files, or folders (every *.hl7 and *.er7 inside, gzip or not); none or "-" reads stdin. */
  inputs: string[];
  bundle: BundleType;
  /** `--assume-timezone`: the offset of times sent without one. */
  assumeTimezone?: string;
  /** `--identifier-systems`: the site table of identifier systems. */
  identifierSystems?: IdentifierSystems;
  /** `--strict-segments`: a segment the crossmap does not map is an error. */
  strictSegments?: boolean;
  output:
    | { kind: "stdout" }
    | { kind: "file"; path: string }
    | { kind: "dir"; path: string }
    /** Each message's Bundle handed over as it is (the FHIR server writer), committed when the run ends. */
    | { kind: "sink"; sink: BundleSink };
  onError: "skip" | "fail";
  errorsFile?: string;
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** Issues printed to stderr when there is no errors file. */
  maxIssueLines?: number;
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
 * in and resources out; failed counts segments of malformed messages and segments whose resource lacked a
 * required field; errors counts resources with an error issue; skipped counts segments no crossmap entity
 * maps, by segment type. Plus the message-level counts.
 */
export interface Hl7v2RunSummary extends RunSummary {
  messages: number;
  bundles: number;
  malformed_messages: MalformedMessage[];
}

const ER7_FILE = /\.(hl7|er7)(\.gz)?$/i;

export async function listHl7v2Inputs(inputs: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const input of inputs.length === 0 ? ["-"] : inputs) {
    if (input === "-") {
      out.push(input);
      continue;
    }
    const info = await stat(input).catch((err: NodeJS.ErrnoException) => {
      const why = err.code === "ENOENT" ? "no such file" : err.message;
      throw new AppError(400, "input_error", `cannot read ${input}: ${why}`);
    });
    if (!info.isDirectory()) {
      out.push(input);
      continue;
    }
    const names = (await readdir(input)).filter((n) => ER7_FILE.test(n)).sort();
    if (names.length === 0) throw new AppError(400, "input_error", `${input}: no .hl7 or .er7 files`);
    out.push(...names.map((n) => join(input, n)));
  }
  return out;
}

export function issueOf(i: MappingIssue, file: string, r: ConvertResult & { ok: true }): Hl7v2Issue {
  const ctx = r.message.segments.find((s) => s.$ctx.position === i.record)?.$ctx;
  const where = ctx ? { message_index: ctx.message, segment: ctx.segment, segment_type: ctx.type } : {};
  const out: Hl7v2Issue = {
    file,
    ...where,
    // A segment-level issue (unmapped_segment) names no field.
    ...(i.field !== "" ? { field: i.field, target: i.target } : {}),
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

async function write(stream: Writable, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, "drain");
}

async function close(stream: Writable): Promise<void> {
  stream.end();
  await once(stream, "finish");
}

export async function runHl7v2(
  options: Hl7v2RunOptions,
): Promise<{ summary: Hl7v2RunSummary; fatal?: Hl7v2Issue }> {
  const started = performance.now();
  const mappers = segmentMappers(options.mappers);
  const files = await listHl7v2Inputs(options.inputs);
  const summary: Hl7v2RunSummary = {
    ...emptySummary(),
    messages: 0,
    bundles: 0,
    malformed_messages: [],
  };
  const out = options.output;
  const single: Writable | undefined =
    out.kind === "stdout" ? options.stdout : out.kind === "file" ? createWriteStream(out.path) : undefined;
  const perType = new Map<string, Writable>();
  if (out.kind === "dir") await mkdir(out.path, { recursive: true });
  const errors = options.errorsFile ? createWriteStream(options.errorsFile) : undefined;
  const maxLines = options.maxIssueLines ?? 20;
  let shown = 0;
  let fatal: Hl7v2Issue | undefined;

  const report = async (i: Hl7v2Issue): Promise<void> => {
    summary.issues_by_code[i.code] = (summary.issues_by_code[i.code] ?? 0) + 1;
    if (i.severity === "warning") summary.warnings++;
    if (errors) await write(errors, `${stringifyJson(i)}\n`);
    else if (shown++ < maxLines) options.stderr.write(`${formatHl7v2Issue(i)}\n`);
    if (i.severity === "error" && options.onError === "fail") fatal ??= i;
  };

  try {
    for (const file of files) {
      let failure: InputFailure | undefined;
      const input = inputBytes(file, options.stdin, { failed: (f) => (failure = f) });
      for await (const raw of streamMessages(input)) {
        const r = convertMessage(raw, mappers, {
          file,
          bundle: options.bundle,
          strictSegments: options.strictSegments === true,
          ...(options.assumeTimezone !== undefined ? { assumeTimezone: options.assumeTimezone } : {}),
          ...(options.identifierSystems !== undefined
            ? { identifierSystems: options.identifierSystems }
            : {}),
        });
        summary.messages++;
        if (!r.ok) {
          summary.malformed_messages.push(r.malformed);
          summary.records_failed += raw.segments.length;
          await report(malformedIssue(r.malformed, file));
          if (fatal) break;
          continue;
        }
        summary.records_in += r.message.segments.length;
        for (const [t, n] of r.unmapped) summary.skipped[t] = (summary.skipped[t] ?? 0) + n;
        summary.records_failed += r.incomplete.length;
        const withErrors = new Set<unknown>();
        for (const i of r.issues) {
          if (i.severity === "error") withErrors.add(i.record);
          await report(issueOf(i, file, r));
        }
        summary.errors += withErrors.size;
        if (fatal) break;
        summary.records_out += r.resources.length;
        summary.bundles++;
        if (out.kind === "sink") await out.sink.send(r.bundle, { file, message: r.message.index });
        else if (single) await write(single, `${stringifyJson(r.bundle)}\n`);
        else {
          for (const [k, res] of r.resources.entries()) {
            const type = r.targets[k] as string;
            let s = perType.get(type);
            if (!s) {
              s = createWriteStream(join((out as { path: string }).path, `${type}.ndjson`));
              perType.set(type, s);
            }
            await write(s, `${stringifyJson(res)}\n`);
          }
        }
      }
      // A file that vanished, a read error or cut gzip: one issue after what was read, and on.
      const f = failure as InputFailure | undefined;
      if (f && !fatal) {
        summary.records_failed++;
        await report({ file, code: f.code, severity: "error", message: f.message });
      }
      if (fatal) break;
    }
    if (out.kind === "sink") await (fatal ? out.sink.abort() : out.sink.commit());
  } catch (err) {
    if (out.kind === "sink") await out.sink.abort().catch(() => {});
    throw err;
  } finally {
    if (single && single !== options.stdout) await close(single);
    for (const s of perType.values()) await close(s);
    if (errors) await close(errors);
  }
  if (!errors && shown > maxLines) {
    options.stderr.write(`crossmap map: ${shown - maxLines} more issue(s) not shown; use --errors FILE\n`);
  }
  finishSummary(summary, started, fatal === undefined);
  return fatal ? { summary, fatal } : { summary };
}
