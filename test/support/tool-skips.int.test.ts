// The suite's closing logic on a machine with Node and nothing else: `vitest run` with chromium and
// nats-server hidden (CROSSMAP_HIDE_TOOLS) and a PATH holding only `node` (no xmllint, no nats-server, no
// chromium): the files needing the tools are skipped, the run passes and its closing lines list the skips;
// the OPT XSD test runs; with CROSSMAP_REQUIRE_TOOLS=1 (.ci/run) the same skips fail the run.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { closingLines } from "./tool-skips.js";

const root = new URL("../..", import.meta.url).pathname;
const bin = mkdtempSync(join(tmpdir(), "crossmap-only-node-"));
symlinkSync(process.execPath, join(bin, "node"));
afterAll(() => rmSync(bin, { recursive: true, force: true }));

interface Run {
  status: number | null;
  /** stdout and stderr together. */
  out: string;
  stdout: string;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: strips terminal colours
const plain = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, "");

function vitest(files: string[], extra: Record<string, string>): Run {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: bin, NO_COLOR: "1", FORCE_COLOR: "0", ...extra };
  delete env.CROSSMAP_REQUIRE_TOOLS;
  // Its closing lines are what is checked: a run kept for a post-mortem would add one.
  delete env.CROSSMAP_KEEP_TMP;
  Object.assign(env, extra);
  const r = spawnSync(
    process.execPath,
    [join(root, "node_modules", "vitest", "vitest.mjs"), "run", ...files],
    {
      cwd: root,
      encoding: "utf8",
      env,
    },
  );
  return { status: r.status, out: plain(`${r.stdout}\n${r.stderr}`), stdout: plain(r.stdout) };
}

/** The lines of stdout after vitest's own summary (its "Duration" line). */
const closing = (out: string): string[] =>
  out
    .slice(out.lastIndexOf("Duration"))
    .split("\n")
    .slice(1)
    .filter((l) => l.trim() !== "");

const UI = "test/ui/workbench.e2e.test.ts";
const WORKER = "test/scale/worker.int.test.ts";
const XSD = "test/openehr/template-xsd.test.ts";

describe("a run with chromium and nats-server missing", () => {
  it("passes, runs the OPT XSD test without xmllint, and lists the skips in its closing lines", () => {
    const r = vitest([UI, WORKER, XSD], { CROSSMAP_HIDE_TOOLS: "chromium,nats-server" });
    expect(r.status, r.out.slice(-3000)).toBe(0);
    expect(r.out).toMatch(/Test Files {2}1 passed \| 2 skipped \(3\)/);
    expect(r.out).toContain("✓ crossmap.encounter.v1.opt validates");
    expect(r.out).toContain(`skipped ${UI}: chromium is missing (apt-get install chromium)\n`);
    expect(closing(r.stdout)).toEqual([
      "2 test files skipped for a missing tool (chromium, nats-server):",
      `  skipped ${UI}: chromium is missing (apt-get install chromium)`,
      `  skipped ${WORKER}: nats-server is missing (apt-get install nats-server)`,
    ]);
  }, 240_000);

  it("fails with CROSSMAP_REQUIRE_TOOLS=1, as CI runs it", () => {
    const r = vitest([WORKER], { CROSSMAP_HIDE_TOOLS: "nats-server", CROSSMAP_REQUIRE_TOOLS: "1" });
    expect(r.status, r.out.slice(-3000)).toBe(1);
    expect(closing(r.stdout)).toEqual([
      "1 test file skipped for a missing tool (nats-server):",
      `  skipped ${WORKER}: nats-server is missing (apt-get install nats-server)`,
      "CROSSMAP_REQUIRE_TOOLS is set: a test skipped for a missing tool fails the run",
    ]);
  }, 240_000);

  it("refuses a tool name it does not know in CROSSMAP_HIDE_TOOLS", () => {
    const r = vitest([XSD], { CROSSMAP_HIDE_TOOLS: "chromium,natsserver" });
    expect(r.status).toBe(1);
    expect(r.out).toContain(
      "CROSSMAP_HIDE_TOOLS names unknown tools (natsserver): known are chromium, nats-server",
    );
  }, 240_000);
});

describe("closing lines", () => {
  it("are none when nothing was skipped", () => {
    expect(closingLines([], true)).toEqual([]);
  });
});
