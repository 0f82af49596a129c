// The suite's globalSetup: gives the test files a folder to record each skip for a missing tool in
// (tools.ts), and at the end of the run prints what was skipped and why as the run's closing lines. With
// CROSSMAP_REQUIRE_TOOLS=1 (as .ci/run sets it) any such skip fails the run, so CI still runs everything.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { HIDE_ENV, hiddenTools, isToolName, skipLine, TOOLS, type ToolName } from "./tools.js";

export const REQUIRE_ENV = "CROSSMAP_REQUIRE_TOOLS";

interface Skip {
  tool: ToolName;
  file: string;
}

/** The closing lines for the skips recorded: empty when there were none. */
export function closingLines(skips: Skip[], required: boolean): string[] {
  if (skips.length === 0) return [];
  const sorted = [...skips].sort((a, b) => a.tool.localeCompare(b.tool) || a.file.localeCompare(b.file));
  const tools = [...new Set(sorted.map((s) => s.tool))];
  const lines = [
    `${skips.length} test file${skips.length === 1 ? "" : "s"} skipped for a missing tool (${tools.join(", ")}):`,
    ...sorted.map((s) => `  ${skipLine(s.tool, s.file)}`),
  ];
  if (required) lines.push(`${REQUIRE_ENV} is set: a test skipped for a missing tool fails the run`);
  return lines;
}

export default function setup(project: TestProject): () => void {
  const unknown = hiddenTools().filter((t) => !isToolName(t));
  if (unknown.length > 0) {
    throw new Error(
      `${HIDE_ENV} names unknown tools (${unknown.join(", ")}): known are ${Object.keys(TOOLS).join(", ")}`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), "crossmap-tool-skips-"));
  project.provide("toolSkipDir", dir);
  return () => {
    const skips = readdirSync(dir).map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as Skip);
    rmSync(dir, { recursive: true, force: true });
    const required = process.env[REQUIRE_ENV] === "1";
    const lines = closingLines(skips, required);
    if (lines.length > 0) process.stdout.write(`\n${lines.join("\n")}\n`);
    if (required && skips.length > 0) process.exitCode = 1;
  };
}
