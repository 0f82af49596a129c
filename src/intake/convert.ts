// One kept message -> its FHIR Bundle (as JSON text, with the issues of its records), or a dead letter
// when it cannot be converted at all. The same reader and mapper as `crossmap map --format hl7v2`; this
// runs on the conversion threads (convert-threads.ts), or on the main thread with --workers 0.
import { readFile } from "node:fs/promises";
import { parseYaml } from "../crossmap/catalog.js";
import { compiledEntryAt } from "../crossmap/compiled.js";
import type { BundleType, SegmentMappers } from "../pipeline/hl7v2/bundle.js";
import { segmentReadsOfDocument } from "../pipeline/hl7v2/bundle.js";
import { type ConvertResult, messageConverter } from "../pipeline/hl7v2/index.js";
import { type Hl7v2Issue, issueOf, malformedIssue } from "../pipeline/hl7v2/run.js";
import { splitMessages } from "../pipeline/hl7v2/split.js";
import { stringifyJson } from "../pipeline/json.js";
import { loadPlan, type PlanSpec } from "../pipeline/load-plan.js";
import { issuesLine } from "./reports.js";
import type { Source } from "./sink.js";

export interface ConvertSettings {
  plan: PlanSpec;
  bundle: BundleType;
  assumeTimezone?: string;
  strictSegments?: boolean;
}

export type Outcome =
  /**
   * A Bundle (UTF-8 JSON) and, when its records had issues, its line for the issues file; both made on
   * the conversion thread and moved to the main thread without a copy.
   */
  | { kind: "bundle"; bundle: Uint8Array; issuesLine?: Uint8Array; warnings: number; errors: number }
  /** Nothing could be made of it: the issues that say why. */
  | { kind: "dead"; issues: Hl7v2Issue[] };

export type ConvertOne = (text: string, source: Source) => Outcome;

/** Where an issue is: the message's place in the journal. */
export const whereOf = (source: Source): string => `journal#${source.id}`;

/**
 * The segment mappers of a plan, as `crossmap map` builds them: the segments the first crossmap reads
 * through a parent (`PID.$ctx.child.PD1`) are parsed, and gathering happens within each message.
 */
export async function planMappers(spec: PlanSpec): Promise<SegmentMappers> {
  const plan = await loadPlan(spec, [], () => true);
  const first = spec.crossmaps[0];
  const file = typeof first === "object" ? first.file : first;
  const doc =
    typeof first === "object"
      ? parseYaml(first.text)
      : file === undefined
        ? undefined
        : (compiledEntryAt(file)?.document ?? parseYaml(await readFile(file, "utf8")));
  const reads = doc === undefined ? undefined : segmentReadsOfDocument(doc);
  return {
    mapperFor: (e: string) => plan.mapperFor(e),
    ...(reads ? { reads } : {}),
    ...(plan.gather ? { gather: plan.gather } : {}),
    ...(plan.stages ? { stages: plan.stages } : {}),
  };
}

export function failedIssue(where: string, message: string): Hl7v2Issue {
  return { file: where, code: "conversion_failed", severity: "error", message };
}

export async function createConverter(settings: ConvertSettings): Promise<ConvertOne> {
  const mappers = await planMappers(settings.plan);
  const options = {
    bundle: settings.bundle,
    strictSegments: settings.strictSegments === true,
    ...(settings.assumeTimezone !== undefined ? { assumeTimezone: settings.assumeTimezone } : {}),
  };
  // Once, not per message: the converter keeps what a run reuses (the link plans of each message
  // structure and segment sequence among them); built per message, each message planned its links again
  // (~6% of its CPU) and rebuilt the rest.
  const converter = messageConverter(mappers, options);
  const encoder = new TextEncoder();
  return (text, source) => {
    const where = whereOf(source);
    const raw = splitMessages(text).next().value;
    if (raw === undefined)
      return { kind: "dead", issues: [failedIssue(where, "the message holds no segment")] };
    let r: ConvertResult;
    try {
      r = converter(raw, where);
    } catch (err) {
      return { kind: "dead", issues: [failedIssue(where, (err as Error).message)] };
    }
    if (!r.ok) return { kind: "dead", issues: [malformedIssue(r.malformed, where)] };
    const issues = r.issues.map((i) => issueOf(i, where, r));
    if (r.resources.length === 0) {
      issues.push(failedIssue(where, "no segment of the message became a resource"));
      return { kind: "dead", issues };
    }
    const errors = issues.filter((i) => i.severity === "error").length;
    const out: Outcome = {
      kind: "bundle",
      bundle: encoder.encode(stringifyJson(r.bundle)),
      warnings: issues.length - errors,
      errors,
    };
    if (issues.length > 0) out.issuesLine = encoder.encode(issuesLine(source, issues));
    return out;
  };
}
