// One feed message in, what to publish out: FHIR Bundles (ER7) or NDJSON records, or a dead letter with
// the issues that stopped it. A message with an error-severity issue is not published in part: it goes to
// the dead-letter subject whole, so that a receiver never gets a Bundle that silently lacks a resource.
import type { BundleType, SegmentMappers } from "../pipeline/hl7v2/bundle.js";
import { convertMessage } from "../pipeline/hl7v2/index.js";
import { type Hl7v2Issue, issueOf, malformedIssue } from "../pipeline/hl7v2/run.js";
import { type RawMessage, splitMessages } from "../pipeline/hl7v2/split.js";
import { stringifyJson } from "../pipeline/json.js";
import type { BatchMapper } from "../pipeline/stage.js";
import type { RunIssue } from "../pipeline/types.js";

export interface FeedOutput {
  payload: string;
  /** The source message's id (MSH-10 for ER7), for the output's header. */
  sourceId: string | undefined;
  warnings: number;
}

export type Converted =
  | { kind: "out"; outputs: FeedOutput[] }
  | { kind: "dead"; sourceId: string | undefined; issues: (Hl7v2Issue | RunIssue)[] };

/** `data` is the message's bytes; `where` names it in issues (its subject and stream sequence). */
export type FeedConverter = (data: Uint8Array, where: string) => Converted;

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function decode(data: Uint8Array, where: string): string | Converted {
  try {
    return strictUtf8.decode(data);
  } catch {
    return {
      kind: "dead",
      sourceId: undefined,
      issues: [
        { file: where, code: "invalid_utf8", severity: "error", message: "the message is not valid UTF-8" },
      ],
    };
  }
}

/** Field `n` of an MSH segment as written (MSH-1 is the field separator itself), or "". */
export function mshField(msh: string, n: number): string {
  if (!msh.startsWith("MSH") || msh.length < 4) return "";
  const fs = msh[3]!;
  if (n === 1) return fs;
  return msh.split(fs)[n - 1] ?? "";
}

/** The first component of an MSH field (HD and EI types: the namespace id / entity id). */
export function mshComponent(msh: string, n: number): string {
  const value = mshField(msh, n);
  const cs = mshField(msh, 2)[0] ?? "^";
  return value.split(cs)[0] ?? "";
}

const controlId = (raw: RawMessage): string | undefined => mshField(raw.segments[0] ?? "", 10) || undefined;

export function er7Converter(mappers: SegmentMappers, bundle: BundleType): FeedConverter {
  return (data, where) => {
    const text = decode(data, where);
    if (typeof text !== "string") return text;
    const raws = [...splitMessages(text)];
    const sourceId = raws[0] ? controlId(raws[0]) : undefined;
    if (raws.length === 0) {
      const issue = {
        file: where,
        code: "empty_message",
        severity: "error" as const,
        message: "no HL7 v2 message",
      };
      return { kind: "dead", sourceId, issues: [issue] };
    }
    const issues: Hl7v2Issue[] = [];
    const outputs: FeedOutput[] = [];
    for (const raw of raws) {
      const r = convertMessage(raw, mappers, { file: where, bundle });
      if (!r.ok) {
        issues.push(malformedIssue(r.malformed, where));
        continue;
      }
      const mine = r.issues.map((i) => issueOf(i, where, r));
      issues.push(...mine);
      outputs.push({ payload: stringifyJson(r.bundle), sourceId: controlId(raw), warnings: mine.length });
    }
    if (issues.some((i) => i.severity === "error")) return { kind: "dead", sourceId, issues };
    return { kind: "out", outputs };
  };
}

/** NDJSON records (one or more lines per message) through the record pipeline's stage. */
export function recordConverter(mapBatch: BatchMapper, entity: string | undefined): FeedConverter {
  return (data, where) => {
    const text = decode(data, where);
    if (typeof text !== "string") return text;
    const r = mapBatch({ kind: "lines", file: where, entity, bundles: false, firstLine: 1, text });
    if (r.recordsFailed > 0 || r.recordsWithErrors > 0 || r.recordsIn === 0) {
      const issues: RunIssue[] =
        r.recordsIn === 0
          ? [{ file: where, code: "empty_message", severity: "error", message: "no record" }]
          : r.issues;
      return { kind: "dead", sourceId: undefined, issues };
    }
    const out = r.output[""] ?? "";
    const payload = typeof out === "string" ? out : new TextDecoder().decode(out);
    return { kind: "out", outputs: [{ payload, sourceId: undefined, warnings: r.issues.length }] };
  };
}
