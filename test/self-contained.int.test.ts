// The repository is all a user has: no test, benchmark, script or document may read or link a file outside
// it. Checked twice: no file names a path outside the checkout, and the data-dependent tests pass in a copy
// of the repository in a fresh temporary folder with nothing beside it.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = new URL("..", import.meta.url).pathname;

/** Files of the checkout as a clone has them (tracked), plus new files not yet committed. */
function repositoryFiles(): string[] {
  const out = execFileSync("git", ["ls-files", "-z", "-c", "-o", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  });
  return out.split("\0").filter((f) => f !== "");
}

// Spelled in pieces so this file does not match itself.
const OUTSIDE = new RegExp(
  ["\\.\\./" + "shared", "shared/" + "samples", "shared/" + "reference", "CROSSMAP_" + "SAMPLES"].join("|"),
);

/**
 * Test files that read test/fixtures, one per kind of data (OMOP CSV, FHIR Bundles, HL7 v2, the CDM
 * reference, golden pairs; CLI processes included: dist is copied in). The rest read the same fixtures
 * through the same helpers, which the first check keeps inside the repository.
 */
const DATA_TESTS = [
  "test/golden.test.ts",
  "test/crossmaps/standards.test.ts",
  "test/crossmaps/fhir-to-omop.test.ts",
  "test/pipeline/hl7v2/samples.test.ts",
  "test/cli/map-synthea.test.ts",
];

let copy: string | undefined;
afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe("the repository is self-contained", () => {
  const files = repositoryFiles();

  it("names no file outside the checkout in code, tests, benchmarks, scripts or docs", () => {
    const offenders = files
      .filter((f) => /\.(ts|mjs|js|json|md|yaml|yml|sh)$/.test(f) || f === ".ci/run")
      .filter((f) => !f.startsWith("test/fixtures/"))
      .filter((f) => OUTSIDE.test(readFileSync(join(root, f), "utf8")));
    expect(offenders).toEqual([]);
  });

  it("passes its data-dependent tests in a copy with nothing beside it", () => {
    copy = mkdtempSync(join(tmpdir(), "crossmap-clone-"));
    const repo = join(copy, "repo");
    for (const f of files) {
      const to = join(repo, f);
      mkdirSync(dirname(to), { recursive: true });
      cpSync(join(root, f), to);
    }
    // Installed packages are not part of a clone: link them instead of installing again. The build is
    // copied, not linked, so that the CLI reads crossmaps/ of the copy.
    symlinkSync(join(root, "node_modules"), join(repo, "node_modules"));
    cpSync(join(root, "dist"), join(repo, "dist"), { recursive: true });
    const r = spawnSync(
      process.execPath,
      [join(root, "node_modules", "vitest", "vitest.mjs"), "run", ...DATA_TESTS],
      { cwd: repo, encoding: "utf8", env: { ...process.env, CI: "1", NO_COLOR: "1", FORCE_COLOR: "0" } },
    );
    // biome-ignore lint/suspicious/noControlCharactersInRegex: strips terminal colours
    const tail = `${r.stdout}\n${r.stderr}`.replace(/\u001b\[[0-9;]*m/g, "").slice(-4000);
    expect(r.status, tail).toBe(0);
    expect(tail).toMatch(/Test Files\s+\d+ passed/);
    expect(tail).not.toMatch(/failed/);
  }, 300_000);
});
