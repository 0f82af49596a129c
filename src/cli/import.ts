// `crossmap import FILE --project P`: a Usagi export or a SOURCE_TO_CONCEPT_MAP table into a project's
// concept items, in the data directory or, with --server, through a running server's import endpoint.
// Every bad row is reported as FILE:LINE and the others are imported; exit 1 when any row was left out.
import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { Option } from "commander";
import { AppError } from "../errors.js";
import { IMPORT_FORMATS, type ImportFormat } from "../review/import-mappings.js";
import type { ImportSummary } from "../server/handlers/project-data.js";
import { printJson, requireProject, withDataDir, withStores } from "./data-dir.js";

interface ImportFlags {
  project: string;
  dataDir: string;
  format?: ImportFormat;
  sourceVocabulary?: string;
  sourceColumn?: string;
  force?: boolean;
  vocab?: string;
  server?: string;
}

export function registerImport(program: Command): void {
  withDataDir(
    program
      .command("import <file>")
      .description("import a Usagi export or a SOURCE_TO_CONCEPT_MAP CSV into a project's concept items")
      .requiredOption("--project <id>", "the project")
      .addOption(
        new Option("--format <format>", "the file's kind (default: from its header)").choices([
          ...IMPORT_FORMATS,
        ]),
      )
      .option("--source-vocabulary <id>", "code system of every source code (Usagi files do not say)")
      .option("--source-column <name>", "source column the codes come from (part of an item's natural key)")
      .option("--force", "also overwrite items a reviewer has decided")
      .option("--vocab <dir>", "vocabulary index: fills in target names and vocabularies the file lacks")
      .option(
        "--server <url>",
        "send the file to a running server instead (key from the CROSSMAP_API_KEY environment variable)",
      ),
  ).action(async (file: string, flags: ImportFlags) => {
    // Bytes, not text: a byte that is not UTF-8 is reported on its row, never read as U+FFFD.
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch (err) {
      throw new AppError(400, "unreadable", `cannot read ${file}: ${(err as Error).message}`);
    }
    const summary = flags.server
      ? await viaServer(flags, file, bytes)
      : await intoDataDir(flags, bytes).catch((err: unknown) => {
          throw located(file, err);
        });
    for (const p of summary.problems) {
      process.stderr.write(`${file}:${p.line}: ${p.severity === "warning" ? "warning: " : ""}${p.message}\n`);
    }
    printJson(summary);
    if (summary.problems.some((p) => p.severity === "error")) process.exitCode = 1;
  });
}

/**
 * A file the importer refuses as a whole (a header of neither format) comes back as the HTTP answer's
 * 422 on the request body; on the command line it is the file's problem: `FILE:1: the header ...`.
 */
export function located(file: string, err: unknown): unknown {
  if (!(err instanceof AppError) || err.code !== "validation_error" || err.problems.length !== 1) return err;
  const problem = err.problems[0]!;
  if (problem.path.length !== 1 || problem.path[0] !== "body") return err;
  const at = /^line (\d+): (.*)$/s.exec(problem.message);
  return new AppError(400, "unreadable", at ? `${file}:${at[1]}: ${at[2]}` : `${file}: ${problem.message}`);
}

async function intoDataDir(flags: ImportFlags, bytes: Buffer): Promise<ImportSummary> {
  const { importMappings } = await import("../server/handlers/project-data.js");
  const vocabulary = flags.vocab
    ? (await import("../vocab/lmdb-bridge.js")).openVocabulary(flags.vocab)
    : undefined;
  try {
    return await withStores(flags, async (stores) => {
      requireProject(stores, flags.project, flags.dataDir);
      return importMappings(stores, flags.project, bytes, {
        format: flags.format,
        sourceVocabularyId: flags.sourceVocabulary,
        sourceColumn: flags.sourceColumn,
        force: flags.force === true,
        actor: { keyId: null, reviewer: null },
        vocabulary,
      });
    });
  } finally {
    await vocabulary?.close();
  }
}

async function viaServer(flags: ImportFlags, file: string, bytes: Buffer): Promise<ImportSummary> {
  const key = process.env.CROSSMAP_API_KEY;
  if (!key)
    throw new AppError(
      400,
      "usage",
      "--server needs the API key in the CROSSMAP_API_KEY environment variable",
    );
  if (flags.vocab)
    throw new AppError(400, "usage", "--vocab is the server's own with --server; leave it out");
  const format =
    flags.format ??
    (/^[^\n]*\bsourceCode\b/.test(bytes.subarray(0, 65_536).toString("latin1"))
      ? "usagi"
      : "source-to-concept-map");
  const query = new URLSearchParams();
  if (flags.sourceVocabulary) query.set("source_vocabulary_id", flags.sourceVocabulary);
  if (flags.sourceColumn) query.set("source_column", flags.sourceColumn);
  if (flags.force) query.set("force", "true");
  const url = `${flags.server!.replace(/\/$/, "")}/api/v1/projects/${encodeURIComponent(flags.project)}/imports/${format}${query.size > 0 ? `?${query}` : ""}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "text/csv; charset=utf-8" },
      body: new Uint8Array(bytes),
    });
  } catch (err) {
    throw new AppError(400, "unreachable", `cannot reach ${flags.server}: ${(err as Error).message}`);
  }
  const body = (await res.json().catch(() => undefined)) as { detail?: unknown } | undefined;
  if (!res.ok) {
    const detail = body?.detail;
    const text =
      typeof detail === "string"
        ? detail
        : Array.isArray(detail)
          ? detail.map((d: { msg?: string }) => d.msg).join("; ")
          : res.statusText;
    throw new AppError(
      res.status >= 500 ? 500 : 400,
      "server_error",
      `${file}: the server answered ${res.status}: ${text}`,
    );
  }
  return body as unknown as ImportSummary;
}
