// Shared by the CDM database tests: the sample vocabulary completed for foreign keys (see
// test/fixtures/omop-db/vocabulary-completion/SOURCE.md), its LMDB index, and CLI runs in this process or as
// child processes, with their stderr lines.
import { spawnSync } from "node:child_process";
import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { vi } from "vitest";
import { run } from "../../../src/cli/main.js";
import { buildVocabulary } from "../../../src/vocab/build.js";

export const repo = fileURLToPath(new URL("../../..", import.meta.url));
export const FHIR_BUNDLES = readdirSync(join(repo, "test/fixtures/fhir/synthea"))
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => join(repo, "test/fixtures/fhir/synthea", f));
export const OMOP_SAMPLE = join(repo, "test/fixtures/synthea27nj");
const COMPLETION = join(repo, "test/fixtures/omop-db/vocabulary-completion");

/** `vocab/` with the completion rows appended, in a new temporary directory (Athena's TAB form). */
export function completedVocabulary(): string {
  const dir = mkdtempSync(join(tmpdir(), "crossmap-cdm-vocab-"));
  for (const f of readdirSync(join(repo, "vocab"))) {
    if (f.endsWith(".csv")) copyFileSync(join(repo, "vocab", f), join(dir, f));
  }
  for (const f of readdirSync(COMPLETION)) {
    if (!f.endsWith(".csv")) continue;
    const rows = readFileSync(join(COMPLETION, f), "utf8");
    if (existsSync(join(dir, f))) appendFileSync(join(dir, f), rows.slice(rows.indexOf("\n") + 1));
    else copyFileSync(join(COMPLETION, f), join(dir, f));
  }
  return dir;
}

/** The LMDB index of the sample vocabulary, for `map --vocab`. */
export async function vocabularyIndex(): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), "crossmap-cdm-index-")), "index");
  await buildVocabulary({ sourceDir: resolve(repo, "vocab"), outDir: dir });
  return dir;
}

export interface CliResult {
  code: number;
  /** stderr, lines without the timing of the summary line (`; 1.23 s, 456 records/s`). */
  lines: string[];
}

const untimed = (line: string) => line.replace(/; \d+\.\d\d s, \d+ records\/s/, "");

/** Runs the CLI in this process (PGlite databases stay open between commands): exit code and stderr lines. */
export async function cli(...args: string[]): Promise<CliResult> {
  let err = "";
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    err += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString();
    return true;
  });
  const before = process.exitCode;
  try {
    const code = await run(["node", "crossmap", ...args]);
    return {
      code,
      lines: err
        .split("\n")
        .filter((l) => l !== "")
        .map(untimed),
    };
  } finally {
    spy.mockRestore();
    process.exitCode = before;
  }
}

/** Runs bin/crossmap.js as a child process. */
export function cliProcess(...args: string[]): CliResult {
  const r = spawnSync(process.execPath, [join(repo, "bin/crossmap.js"), ...args], {
    cwd: repo,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  return {
    code: r.status ?? -1,
    lines: r.stderr
      .split("\n")
      .filter((l) => l !== "")
      .map(untimed),
  };
}
