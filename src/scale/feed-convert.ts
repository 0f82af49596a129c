// One feed message in, what to publish out: FHIR Bundles (ER7) or NDJSON records with their issues, and a
// dead letter for what could not be converted at all. A feed loses no more than a file run does: what
// `crossmap map` writes (a Bundle whose field could not be mapped, with that field reported) is
// published with its issues; only what `map` would not write (a malformed message, a record that fails)
// is a dead letter.
import type { BundleType, SegmentMappers } from "../pipeline/hl7v2/bundle.js";
import { messageConverter } from "../pipeline/hl7v2/index.js";
import { type Hl7v2Issue, issueOf, malformedIssue } from "../pipeline/hl7v2/run.js";
import { type RawMessage, splitMessages } from "../pipeline/hl7v2/split.js";
import { stringifyJson } from "../pipeline/json.js";
import type { BatchMapper } from "../pipeline/stage.js";
import type { RunIssue } from "../pipeline/types.js";

export type FeedIssue = Hl7v2Issue | RunIssue;

export interface FeedOutput {
  payload: string;
  /** The source message's id (MSH-10 for ER7), for the output's header. */
  sourceId: string | undefined;
  /** What `map --errors` would say about it: fields left out (errors) and losses (warnings). */
  issues: FeedIssue[];
}

export interface DeadLetter {
  sourceId: string | undefined;
  issues: FeedIssue[];
  /** The text that was not converted, when it is not the whole input message. */
  text?: string;
}

/** Outputs to publish, and at most one dead letter (for what of the message could not be converted). */
export interface Converted {
  outputs: FeedOutput[];
  dead?: DeadLetter;
}

/** `data` is the message's bytes; `where` names it in issues (its subject and stream sequence). */
export type FeedConverter = (data: Uint8Array, where: string) => Converted;

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

const deadOnly = (sourceId: string | undefined, issue: FeedIssue): Converted => ({
  outputs: [],
  dead: { sourceId, issues: [issue] },
});

function decode(data: Uint8Array, where: string): string | Converted {
  try {
    return strictUtf8.decode(data);
  } catch {
    return deadOnly(undefined, {
      file: where,
      code: "invalid_utf8",
      severity: "error",
      message: "the message is not valid UTF-8",
    });
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
  // One converter for the feed: it keeps the link plans of the message structures it has seen.
  const convert = messageConverter(mappers, { bundle });
  return (data, where) => {
    const text = decode(data, where);
    if (typeof text !== "string") return text;
    const raws = [...splitMessages(text)];
    const sourceId = raws[0] ? controlId(raws[0]) : undefined;
    if (raws.length === 0) {
      return deadOnly(sourceId, {
        file: where,
        code: "empty_message",
        severity: "error",
        message: "no HL7 v2 message",
      });
    }
    const outputs: FeedOutput[] = [];
    const malformed: { raw: RawMessage; issue: Hl7v2Issue }[] = [];
    for (const raw of raws) {
      const r = convert(raw, where);
      if (!r.ok) malformed.push({ raw, issue: malformedIssue(r.malformed, where) });
      else {
        const issues = r.issues.map((i) => issueOf(i, where, r));
        outputs.push({ payload: stringifyJson(r.bundle), sourceId: controlId(raw), issues });
      }
    }
    if (malformed.length === 0) return { outputs };
    const dead: DeadLetter = {
      sourceId: controlId(malformed[0]!.raw),
      issues: malformed.map((m) => m.issue),
    };
    // Only the messages that were not converted, when others of the same input were.
    if (outputs.length > 0) dead.text = malformed.map((m) => `${m.raw.segments.join("\r")}\r`).join("");
    return { outputs, dead };
  };
}

/**
 * NDJSON records (one or more lines per message) through the record pipeline's stage, one line at a time:
 * the records `map` writes are published (one message, their lines in order), those it would not write
 * (malformed, no entity, ...) make the dead letter, with only their lines.
 */
export function recordConverter(mapBatch: BatchMapper, entity: string | undefined): FeedConverter {
  return (data, where) => {
    const text = decode(data, where);
    if (typeof text !== "string") return text;
    let payload = "";
    const issues: FeedIssue[] = [];
    const failed: { line: string; issues: FeedIssue[] }[] = [];
    let records = 0;
    for (const [k, line] of text.split("\n").entries()) {
      const r = mapBatch({
        kind: "lines",
        file: where,
        entity,
        bundles: false,
        firstLine: k + 1,
        text: line,
      });
      records += r.recordsIn;
      if (r.recordsFailed > 0) failed.push({ line: line.replace(/\r$/, ""), issues: r.issues });
      else {
        const out = r.output[""] ?? "";
        payload += typeof out === "string" ? out : new TextDecoder().decode(out);
        issues.push(...r.issues);
      }
    }
    if (records === 0)
      return deadOnly(undefined, {
        file: where,
        code: "empty_message",
        severity: "error",
        message: "no record",
      });
    const outputs: FeedOutput[] = records > failed.length ? [{ payload, sourceId: undefined, issues }] : [];
    if (failed.length === 0) return { outputs };
    const dead: DeadLetter = { sourceId: undefined, issues: failed.flatMap((f) => f.issues) };
    // Only the lines that were not converted, when others were.
    if (outputs.length > 0) dead.text = failed.map((f) => f.line).join("\n");
    return { outputs, dead };
  };
}
