// Run issues rendered for people (stderr lines) and for programs (NDJSON for --errors).
import { stringifyJson } from "./json.js";
import type { RunIssue } from "./types.js";

/** `in.ndjson:7: error unmapped_value at person.gender_concept_id -> Patient.gender: <message>` */
export function formatIssueLine(issue: RunIssue): string {
  let where = issue.file;
  if (issue.line !== undefined) where += `:${issue.line}`;
  if (issue.entry !== undefined) where += ` entry[${issue.entry}]`;
  const field =
    issue.field !== undefined ? ` at ${issue.field}${issue.target ? ` -> ${issue.target}` : ""}` : "";
  return `${where}: ${issue.severity} ${issue.code}${field}: ${issue.message}`;
}

/** One NDJSON line, keys in a fixed order so that error files diff cleanly. */
export function issueJsonLine(issue: RunIssue): string {
  const ordered: Record<string, unknown> = { file: issue.file };
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
