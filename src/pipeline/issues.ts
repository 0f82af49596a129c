// Run issues rendered for people (stderr lines) and for programs (NDJSON for --errors), and written there.
import { once } from "node:events";
import type { WriteStream } from "node:fs";
import type { Writable } from "node:stream";
import { stringifyJson } from "./json.js";
import type { RunIssue } from "./types.js";
import { writeText } from "./writers.js";

/**
 * `in.ndjson:7: error unmapped_value at person.gender_concept_id -> Patient.gender: <message>`, or for HL7 v2
 * `in.hl7 message 2 segment 5 (OBX): error unmapped_value at OBX.3 -> Observation.code: <message>`.
 */
export function formatIssueLine(issue: RunIssue): string {
  let where = issue.file;
  if (issue.message_index !== undefined) {
    where += ` message ${issue.message_index}`;
    if (issue.segment !== undefined) where += ` segment ${issue.segment} (${issue.segment_type})`;
    if (issue.line !== undefined) where += ` line ${issue.line}`;
  } else if (issue.line !== undefined) where += `:${issue.line}`;
  if (issue.entry !== undefined) where += ` entry[${issue.entry}]`;
  const field =
    issue.field !== undefined ? ` at ${issue.field}${issue.target ? ` -> ${issue.target}` : ""}` : "";
  return `${where}: ${issue.severity} ${issue.code}${field}: ${issue.message}`;
}

/** One NDJSON line, keys in a fixed order so that error files diff cleanly. */
export function issueJsonLine(issue: RunIssue): string {
  const ordered: Record<string, unknown> = { file: issue.file };
  if (issue.message_index !== undefined) ordered.message_index = issue.message_index;
  if (issue.segment !== undefined) ordered.segment = issue.segment;
  if (issue.segment_type !== undefined) ordered.segment_type = issue.segment_type;
  if (issue.line !== undefined) ordered.line = issue.line;
  if (issue.entry !== undefined) ordered.entry = issue.entry;
  if (issue.entity !== undefined) ordered.entity = issue.entity;
  if (issue.field !== undefined) ordered.field = issue.field;
  if (issue.target !== undefined) ordered.target = issue.target;
  ordered.code = issue.code;
  ordered.severity = issue.severity;
  ordered.message = issue.message;
  if (issue.value !== undefined) ordered.value = issue.value;
  return stringifyJson(ordered) + "\n";
}

/**
 * Issues to the --errors file as NDJSON, or the first `maxIssueLines` to stderr for a person (with
 * `quietIssues`, errors only: a quiet run's stderr says what went wrong, not what it noticed).
 */
export class IssueReport {
  private lines = 0;
  private readonly max: number;

  constructor(
    private readonly options: { stderr: Writable; maxIssueLines?: number; quietIssues?: boolean },
    private readonly errors: WriteStream | undefined,
  ) {
    this.max = options.maxIssueLines ?? 20;
  }

  async report(issue: RunIssue): Promise<void> {
    if (this.errors) await writeText(this.errors, issueJsonLine(issue));
    else if (this.options.quietIssues === true && issue.severity !== "error") return;
    else if (this.lines++ < this.max) this.options.stderr.write(`${formatIssueLine(issue)}\n`);
  }

  async close(): Promise<void> {
    if (!this.errors) return;
    this.errors.end();
    await once(this.errors, "close");
  }

  /** Says how many issues stderr did not show. */
  noteHidden(): void {
    if (this.errors || this.lines <= this.max) return;
    this.options.stderr.write(
      `crossmap map: ${this.lines - this.max} more issue(s) not shown; use --errors FILE\n`,
    );
  }
}
