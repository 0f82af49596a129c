// `describe` for test files that need a system tool (tools.ts): skipped, with one line and a record for the
// run's closing lines (tool-skips.ts), when the tool is missing.
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, inject } from "vitest";
import { findTool, skipLine, type ToolName } from "./tools.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** Where test files record a skip for a missing tool (tool-skips.ts reads it at the end of the run). */
    toolSkipDir: string;
  }
}

/**
 * `describe` when the tool is there, else `describe.skip` after printing one line and recording the skip.
 * A file whose every suite is skipped runs none of its hooks either, so top-level beforeAll/afterAll that
 * start or stop the tool's server are safe.
 */
export function describeWithTool(name: ToolName, fileUrl: string): typeof describe {
  if (findTool(name) !== undefined) return describe;
  const file = relative(process.cwd(), fileURLToPath(fileUrl));
  process.stderr.write(`${skipLine(name, file)}\n`);
  const dir = inject("toolSkipDir");
  if (dir) {
    const id = createHash("sha256").update(`${name}\0${file}`).digest("hex").slice(0, 16);
    writeFileSync(join(dir, `${id}.json`), JSON.stringify({ tool: name, file }));
  }
  return describe.skip as typeof describe;
}
