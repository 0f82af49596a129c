import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { IssueReport } from "../../src/pipeline/issues.js";
import type { RunIssue } from "../../src/pipeline/types.js";

const issue = (severity: "error" | "warning", n: number): RunIssue => ({
  file: "in.ndjson",
  line: n,
  code: severity === "error" ? "invalid_value" : "unread_column",
  severity,
  message: `m${n}`,
});

async function printed(options: { maxIssueLines?: number; quietIssues?: boolean }): Promise<string> {
  const stderr = new PassThrough();
  let text = "";
  stderr.on("data", (d) => {
    text += d;
  });
  const report = new IssueReport({ stderr, ...options }, undefined);
  for (let n = 1; n <= 6; n++) await report.report(issue(n % 2 === 0 ? "error" : "warning", n));
  report.noteHidden();
  return text;
}

describe("IssueReport on stderr", () => {
  it("prints the first maxIssueLines issues of either severity and says how many more there were", async () => {
    expect(await printed({ maxIssueLines: 4 })).toBe(
      "in.ndjson:1: warning unread_column: m1\n" +
        "in.ndjson:2: error invalid_value: m2\n" +
        "in.ndjson:3: warning unread_column: m3\n" +
        "in.ndjson:4: error invalid_value: m4\n" +
        "crossmap map: 2 more issue(s) not shown; use --errors FILE\n",
    );
  });

  it("with --quiet, prints the errors only, and counts only them against the limit", async () => {
    expect(await printed({ maxIssueLines: 2, quietIssues: true })).toBe(
      "in.ndjson:2: error invalid_value: m2\n" +
        "in.ndjson:4: error invalid_value: m4\n" +
        "crossmap map: 1 more issue(s) not shown; use --errors FILE\n",
    );
  });
});
