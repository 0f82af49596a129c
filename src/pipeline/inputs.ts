// Works out, before anything is read, what each input is: its format, its source entity and how to
// read it. Everything that can be wrong with the command line is found here, as an AppError.
import { lstat, readdir, readlink, stat } from "node:fs/promises";
import { extname, join } from "node:path";
import { AppError } from "../errors.js";
import { withoutGz } from "./gzip.js";
import type { MappingPlan } from "./plan.js";
import type { InputFormat, ReadFormat, RunIssue } from "./types.js";

export interface InputPlan {
  /** The path, or "-" for stdin. */
  file: string;
  format: InputFormat;
  entity: string | undefined;
  /** Size in bytes, when it is a file. */
  size: number | undefined;
  /** Why a member of an input folder cannot be read (a link to nothing): one issue, the others mapped. */
  unreadable?: string;
}

/** An input of any format a run reads: record files, or HL7 v2 messages. */
export type AnyInputPlan = Omit<InputPlan, "format"> & { format: ReadFormat };

export interface ResolveInputsOptions {
  inputs: string[];
  format: InputFormat | undefined;
  entity: string | undefined;
  plan: MappingPlan;
  /** Told about directory members that are left out, in one line, when `skipped` is not given. */
  note: (message: string) => void;
  /** Each directory member left out, as a `skipped_file` warning for the run's issues and summary. */
  skipped?: (issue: RunIssue) => void;
}

const FORMAT_BY_EXTENSION: Record<string, InputFormat> = {
  ".csv": "csv",
  ".tsv": "csv",
  ".ndjson": "ndjson",
  ".jsonl": "ndjson",
  ".json": "ndjson",
};

export async function resolveInputs(options: ResolveInputsOptions): Promise<InputPlan[]> {
  const { plan, entity, format } = options;
  const gap = entity !== undefined ? plan.gaps.get(entity) : undefined;
  if (gap !== undefined) throw new AppError(400, "unknown_entity", `--entity ${entity}: ${gap}`);
  if (entity !== undefined && plan.mapperFor(entity) === undefined) {
    throw new AppError(
      400,
      "unknown_entity",
      `--entity ${entity}: the crossmap has no mapping for it (it maps: ${plan.entities.join(", ")})`,
    );
  }
  const inputs = options.inputs.length === 0 ? ["-"] : options.inputs;
  const out: InputPlan[] = [];
  for (const file of inputs) {
    if (file === "-") {
      out.push(inputFor(file, format ?? "ndjson", undefined, options));
      continue;
    }
    const info = await stat(file).catch((err: NodeJS.ErrnoException) => {
      throw new AppError(
        400,
        "input_error",
        `cannot read ${file}: ${err.code === "ENOENT" ? "no such file" : err.message}`,
      );
    });
    if (info.isDirectory()) {
      out.push(...(await expandDirectory(file, options)));
      continue;
    }
    out.push(inputFor(file, format ?? formatOf(file), info.size, options));
  }
  return out;
}

function formatOf(file: string): InputFormat {
  return FORMAT_BY_EXTENSION[extname(withoutGz(file)).toLowerCase()] ?? "ndjson";
}

function inputFor(
  file: string,
  format: InputFormat,
  size: number | undefined,
  options: ResolveInputsOptions,
): InputPlan {
  const entity = options.entity ?? (file === "-" ? undefined : options.plan.entityForFileName(file));
  // NDJSON records and Bundle entries can name their entity (resourceType); CSV rows cannot.
  if (entity === undefined && format === "csv") {
    const what = file === "-" ? "stdin" : `${file}: the file name names no entity of the crossmap`;
    throw new AppError(
      400,
      "unknown_entity",
      `cannot tell the source entity of ${what}; give --entity (one of: ${options.plan.entities.join(", ")})`,
    );
  }
  return { file, format, entity, size };
}

/** The files of a folder of FHIR Bundles, whatever their names: a Bundle's entries name their entity. */
const JSON_EXTENSIONS = new Set([".json", ".ndjson", ".jsonl"]);

/**
 * A folder maps as the tables it holds: every file whose name is an entity of the crossmap; with
 * `--format fhir-bundle`, every JSON file in it (its entries name their resourceType).
 */
async function expandDirectory(dir: string, options: ResolveInputsOptions): Promise<InputPlan[]> {
  const names = (await readdir(dir)).sort();
  const out: InputPlan[] = [];
  const skipped: string[] = [];
  const bundles = options.format === "fhir-bundle";
  for (const name of names) {
    const path = join(dir, name);
    const ext = extname(withoutGz(name)).toLowerCase();
    let format: InputFormat | undefined;
    if (bundles) format = JSON_EXTENSIONS.has(ext) ? "fhir-bundle" : undefined;
    else format = options.format ?? FORMAT_BY_EXTENSION[ext];
    if (format === undefined) {
      // `person/`: a table written as part files (Spark, Hive, BigQuery shards into a folder).
      if (!bundles && ext === "") out.push(...(await tableFolder(path, name, undefined, options)));
      continue;
    }
    const entity = options.entity ?? options.plan.entityForFileName(name);
    if (entity === undefined && !bundles) {
      skipped.push(name);
      options.skipped?.({
        file: path,
        code: "skipped_file",
        severity: "warning",
        message: `${name} is left out: its name names no entity of the crossmap (${options.plan.entities.join(", ")})`,
      });
      continue;
    }
    const info = await stat(path).catch((err: NodeJS.ErrnoException) => whyUnreadable(path, name, err));
    if (typeof info === "string") out.push({ file: path, format, entity, size: undefined, unreadable: info });
    else if (!info.isDirectory()) out.push({ file: path, format, entity, size: info.size });
    else if (!bundles) out.push(...(await tableFolder(path, name, format, options)));
  }
  if (skipped.length > 0 && options.skipped === undefined) {
    options.note(
      `${dir}: skipping ${skipped.length} file(s) named after no entity of the crossmap: ${skipped.join(", ")}`,
    );
  }
  if (out.length === 0) {
    throw new AppError(
      400,
      "input_error",
      bundles
        ? `${dir} holds no JSON file (${[...JSON_EXTENSIONS].join(", ")}) of FHIR Bundles`
        : `${dir} holds no file named after an entity of the crossmap (${options.plan.entities.join(", ")})`,
    );
  }
  return out;
}

/**
 * The part files of a folder named after a table: `person/` or `person.csv/` (as Spark's `df.write.csv`
 * names it), `part-00000-....csv.gz` inside, each read as that table. Hidden and `_` files (`_SUCCESS`,
 * `.part-00000.csv.crc`) are Spark's bookkeeping; other files by their extension, or the folder's.
 */
async function tableFolder(
  dir: string,
  name: string,
  folderFormat: InputFormat | undefined,
  options: ResolveInputsOptions,
): Promise<InputPlan[]> {
  const entity = options.entity ?? options.plan.entityForFileName(name);
  const info = await stat(dir).catch(() => undefined);
  if (entity === undefined || info === undefined || !info.isDirectory()) return [];
  const out: InputPlan[] = [];
  for (const part of (await readdir(dir)).sort()) {
    if (part.startsWith(".") || part.startsWith("_")) continue;
    const format =
      options.format ?? FORMAT_BY_EXTENSION[extname(withoutGz(part)).toLowerCase()] ?? folderFormat;
    if (format === undefined) continue;
    const path = join(dir, part);
    const partInfo = await stat(path).catch((err: NodeJS.ErrnoException) => whyUnreadable(path, part, err));
    if (typeof partInfo === "string")
      out.push({ file: path, format, entity, size: undefined, unreadable: partInfo });
    else if (partInfo.isFile()) out.push({ file: path, format, entity, size: partInfo.size });
  }
  return out;
}

/** Why a folder member cannot be read: a link to nothing, or what the file system said. */
async function whyUnreadable(path: string, name: string, err: NodeJS.ErrnoException): Promise<string> {
  const target = await lstat(path).then(
    (l) => (l.isSymbolicLink() ? readlink(path) : undefined),
    () => undefined,
  );
  if (target !== undefined && err.code === "ENOENT") {
    return `${name} is a symbolic link to ${target}, which does not exist; nothing of it is read`;
  }
  return `cannot read ${name}: ${err.message}; nothing of it is read`;
}

export { type ReadOptions, readAnyInput, readInput } from "./readers.js";
