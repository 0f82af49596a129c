// The mapping stage for HL7 v2 batches (ER7 bytes of whole messages, cut by batches.ts): each message
// becomes one FHIR Bundle line (or its resources, one line each under their target entity), its issues
// located by message and segment, and the counts of the run summary. It runs in a worker or on the main
// thread, as the record pipeline's stage does, and never throws for bad input.
import { stringifyJson } from "../json.js";
import type { MappingPlan } from "../plan.js";
import type { Er7Mapper } from "../stage.js";
import type { BatchResult, Er7Batch, OnError, RunIssue } from "../types.js";
import type { BundleType, SegmentMappers, SegmentReads } from "./bundle.js";
import { decodeBatch } from "./decode.js";
import { type ConvertResult, messageConverter } from "./index.js";
import type { MalformedMessage } from "./message.js";
import { issueOf, malformedIssue } from "./run.js";
import { splitMessages } from "./split.js";

/** What an HL7 v2 run asks of the stage; plain data, so that it reaches workers as it is. */
export interface Hl7v2StageOptions {
  bundle: BundleType;
  /** `--assume-timezone`: the offset of times sent without one. */
  assumeTimezone?: string;
  /** `--strict-segments`: a segment the crossmap does not map is an error. */
  strictSegments: boolean;
  /** The segments each entity reads through another (SegmentReads, as entries). */
  reads?: [string, ["seg" | "child", string][][]][];
  /** `--identifier-systems`: the site table (IdentifierSystems, as entries). */
  identifierSystems?: [string, string][];
  /**
   * Each Bundle line names its message, `{"file":..., "message":N, "bundle":{...}}`, for a sink that sends
   * Bundles on and reports against the message (the FHIR server writer: src/sinks/fhir-server/located-lines.ts).
   */
  located?: boolean;
}

/** The plan as the message converter sees it: the first crossmap's mappers, reads and gathering. */
export function planMappers(plan: MappingPlan, reads: Hl7v2StageOptions["reads"]): SegmentMappers {
  return {
    mapperFor: (e: string) => plan.mapperFor(e),
    ...(reads ? { reads: new Map(reads) as SegmentReads } : {}),
    ...(plan.gather ? { gather: plan.gather } : {}),
    ...(plan.stages ? { stages: plan.stages } : {}),
  };
}

export function createEr7BatchMapper(
  mappers: SegmentMappers,
  options: Hl7v2StageOptions & { onError: OnError; perEntity: boolean },
): Er7Mapper {
  const failFast = options.onError === "fail";
  const { perEntity } = options;
  const convert = messageConverter(mappers, {
    bundle: options.bundle,
    strictSegments: options.strictSegments,
    ...(options.assumeTimezone !== undefined ? { assumeTimezone: options.assumeTimezone } : {}),
    ...(options.identifierSystems !== undefined
      ? { identifierSystems: new Map(options.identifierSystems) }
      : {}),
  });
  const located = options.located === true;

  /**
   * One message's counts, issues and output; false when the run must stop (--on-error fail). `failed` is
   * what a malformed message counts as failed records: its segments, or 1 for a stretch with no MSH (a
   * run of random bytes is one unreadable thing, not as many failed segments as it has line breaks).
   */
  const mapMessage = (r: ConvertResult, file: string, failed: number, result: BatchResult): boolean => {
    const counts = result.messages!;
    counts.messages++;
    if (!r.ok) {
      counts.malformed.push(r.malformed);
      result.recordsFailed += failed;
      const issue = malformedIssue(r.malformed, file) as RunIssue;
      result.issues.push(issue);
      if (!failFast) return true;
      result.fatal = issue;
      return false;
    }
    result.recordsIn += r.message.segments.length;
    for (const [t, n] of r.unmapped) result.skipped[t] = (result.skipped[t] ?? 0) + n;
    result.recordsFailed += r.incomplete.length;
    const withErrors = new Set<unknown>();
    for (const i of r.issues) {
      const issue = issueOf(i, file, r) as RunIssue;
      result.issues.push(issue);
      if (i.severity !== "error") continue;
      withErrors.add(i.record);
      if (failFast) result.fatal ??= issue;
    }
    result.recordsWithErrors += withErrors.size;
    if (result.fatal) return false;
    result.recordsOut += r.resources.length;
    counts.bundles++;
    const output = result.output as Record<string, string>;
    if (located) {
      const from = `{"file":${JSON.stringify(file)},"message":${r.message.index},"bundle":`;
      output[""] = (output[""] ?? "") + from + stringifyJson(r.bundle) + "}\n";
      return true;
    }
    if (!perEntity) {
      output[""] = (output[""] ?? "") + stringifyJson(r.bundle) + "\n";
      return true;
    }
    for (let k = 0; k < r.resources.length; k++) {
      const entity = r.targets[k] as string;
      output[entity] = (output[entity] ?? "") + stringifyJson(r.resources[k]) + "\n";
    }
    return true;
  };

  return (batch, result) => {
    result.messages = { messages: 0, bundles: 0, malformed: [] };
    const unread = unreadMessage(batch);
    if (unread !== undefined) {
      mapMessage({ ok: false, malformed: unread }, batch.file, 1, result);
      return;
    }
    const { text, faults } = decodeBatch(batch.text);
    const located = faults ? { base: batch.firstLine, lines: faults } : undefined;
    for (const raw of splitMessages(text, batch.firstMessage, batch.firstLine)) {
      const r = convert(raw, batch.file, located);
      const failed = raw.segments[0]?.startsWith("MSH") ? raw.segments.length : 1;
      if (!mapMessage(r, batch.file, failed, result)) return;
    }
  };
}

/** A batch that stands for one message the reader did not hand on (over the size limit, cut short). */
function unreadMessage(batch: Er7Batch): MalformedMessage | undefined {
  const big = batch.tooLarge;
  const cut = batch.cutShort;
  if (big === undefined && cut === undefined) return undefined;
  return {
    file: batch.file,
    index: batch.firstMessage,
    segment: 1,
    segmentType: (big ?? cut)!.type,
    line: batch.firstLine,
    message: big
      ? `the message is ${big.bytes} bytes long, over the limit of ${big.limit} per message; it is not read`
      : `the input ended in an error inside this message (after ${cut!.lines} line${cut!.lines === 1 ? "" : "s"} of it): it may be cut short, so it is not converted`,
  };
}
