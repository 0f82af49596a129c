// What reading an ER7 message's text finds wrong, as issues of the segment and field it is in: invalid
// UTF-8 (the decoder put U+FFFD in), characters FHIR strings may not hold (left out), and escape sequences
// that are no HL7 ones (kept as written; found when the crossmap reads the field, see segment.ts).
import type { MappingIssue } from "../../crossmap/types.js";
import type { LineFault } from "./decode.js";
import { codePoints, type Delimiters, type EscapeProblem, FORBIDDEN_CONTROL } from "./delimiters.js";
import { HEADER_SEGMENTS, reading } from "./segment.js";
import type { RawMessage } from "./split.js";

const FORBIDDEN_ALL = new RegExp(FORBIDDEN_CONTROL.source, "g");

/** `file#3/5 OBX`: a segment's `$ctx.position`, which issues name as their record. */
export const segmentPosition = (file: string | undefined, message: number, segment: number, type: string) =>
  `${file ?? ""}#${message}/${segment} ${type}`;

/** The field of a segment that `before` (the segment's text up to a place) ends in: `PID.5`, or `PID`. */
function fieldAt(type: string, before: string, fs: string): string {
  let n = 0;
  for (let i = before.indexOf(fs); i !== -1; i = before.indexOf(fs, i + 1)) n++;
  if (HEADER_SEGMENTS.has(type)) n++;
  return n === 0 ? type : `${type}.${n}`;
}

/**
 * The problems of a message's segments found from their text, and the segments to parse: with the
 * characters FHIR strings may not hold left out (delimiters excepted). Undefined problems when none.
 */
export function segmentProblems(
  raw: RawMessage,
  d: Delimiters,
  file: string | undefined,
  faults: { base: number; lines: ReadonlyMap<number, LineFault[]> } | undefined,
): { problems?: MappingIssue[]; segments: string[] } {
  let problems: MappingIssue[] | undefined;
  let segments = raw.segments;
  for (let i = 0; i < raw.segments.length; i++) {
    const text = raw.segments[i] as string;
    const type = text.slice(0, 3);
    const record = segmentPosition(file, raw.index, i + 1, type);
    const line = raw.lines?.[i];
    const bad = faults && line !== undefined ? faults.lines.get(line - faults.base) : undefined;
    for (const f of bad ?? []) {
      problems ??= [];
      problems.push({
        record,
        field: fieldAt(type, f.before, d.field),
        target: "",
        code: "invalid_utf8",
        severity: "error",
        message: `invalid UTF-8 (${f.bytes}); read as U+FFFD (the input must be UTF-8)`,
      });
    }
    if (!FORBIDDEN_CONTROL.test(text)) continue;
    const keep = new Set(Object.values(d));
    const byField = new Map<string, string>();
    const cleaned = text.replace(FORBIDDEN_ALL, (c, at: number) => {
      if (keep.has(c)) return c;
      const field = fieldAt(type, text.slice(0, at), d.field);
      byField.set(field, (byField.get(field) ?? "") + c);
      return "";
    });
    if (cleaned === text) continue;
    if (segments === raw.segments) segments = [...raw.segments];
    segments[i] = cleaned;
    for (const [field, chars] of byField) {
      problems ??= [];
      problems.push({
        record,
        field,
        target: "",
        code: "invalid_character",
        severity: "warning",
        message: `${codePoints(chars)}, which FHIR strings may not hold, left out`,
      });
    }
  }
  return problems ? { problems, segments } : { segments };
}

/** Where escape problems found while reading fields go: the message being converted (see collect). */
let sink: MappingIssue[] | undefined;

/** Runs `f` (mapping one message), gathering into `into` the problems its field reads find. */
export function collectReadProblems<T>(into: MappingIssue[], f: () => T): T {
  const outer = sink;
  sink = into;
  try {
    return f();
  } finally {
    sink = outer;
  }
}

/** An escape problem of the field being read (segment.ts says which), as an issue of its segment. */
export function readProblem(p: EscapeProblem): void {
  const ctx = (reading.record as { $ctx?: { position: string; type: string } } | undefined)?.$ctx;
  if (sink === undefined || ctx === undefined) return;
  sink.push({
    record: ctx.position,
    field: `${ctx.type}.${reading.field}`,
    target: "",
    code: p.code,
    severity: "warning",
    message: p.message,
  });
}
