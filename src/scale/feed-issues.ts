// How a published feed output carries its issues: in its own headers, so that a Bundle and what was lost
// making it travel as one stored message (no second subject to correlate, nothing to lose between two
// publishes). `Crossmap-Errors` and `Crossmap-Warnings` count them; `Crossmap-Issues` is the issues
// themselves, a JSON array of the objects `crossmap map --errors` writes, in ASCII (other characters as
// \uXXXX escapes: header values are read as text by every client).
import type { MsgHdrs } from "@nats-io/transport-node";
import { stringifyJson } from "../pipeline/json.js";
import type { FeedIssue } from "./feed-convert.js";
import { HEADER } from "./names.js";

/** Bytes of issues one output carries at most; the rest are counted in `Crossmap-Issues-Omitted`. */
export const ISSUES_HEADER_BYTES = 16 * 1024;

const asciiOnly = (json: string): string =>
  json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/**
 * Sets the issue headers of an output (none when it has no issue); `room` is what the message has left
 * for them under the server's largest message. Returns the counts.
 */
export function issueHeaders(
  h: MsgHdrs,
  issues: readonly FeedIssue[],
  room: number,
): { errors: number; warnings: number } {
  const errors = issues.filter((i) => i.severity === "error").length;
  const warnings = issues.length - errors;
  if (errors > 0) h.set(HEADER.errors, String(errors));
  if (warnings > 0) h.set(HEADER.warnings, String(warnings));
  if (issues.length === 0) return { errors, warnings };
  const budget = Math.min(ISSUES_HEADER_BYTES, room);
  const kept: string[] = [];
  let bytes = 2;
  for (const issue of issues) {
    const json = asciiOnly(stringifyJson(issue));
    if (bytes + json.length + 1 > budget) break;
    kept.push(json);
    bytes += json.length + 1;
  }
  h.set(HEADER.issues, `[${kept.join(",")}]`);
  if (kept.length < issues.length) h.set(HEADER.issuesOmitted, String(issues.length - kept.length));
  return { errors, warnings };
}
