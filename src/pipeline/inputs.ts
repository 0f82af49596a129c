// Works out, before anything is read, what each input is: its format, its source entity and how to
// read it. Everything that can be wrong with the command line is found here, as an AppError.
import { createReadStream } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { extname, join } from "node:path";
import type { Readable } from "node:stream";
import { AppError } from "../errors.js";
import { bundleFileBatches } from "./bundle-file.js";
import { csvBatches } from "./csv.js";
import { lineBatches } from "./lines.js";
import type { MappingPlan } from "./plan.js";
import type { Batch, InputFormat } from "./types.js";

export interface InputPlan {
  /** The path, or "-" for stdin. */
  file: string;
  format: InputFormat;
  entity: string | undefined;
  /** Size in bytes, when it is a file. */
  size: number | undefined;
}

export interface ResolveInputsOptions {
  inputs: string[];
  format: InputFormat | undefined;
  entity: string | undefined;
  plan: MappingPlan;
  /** Told about directory members that are left out. */
  note: (message: string) => void;
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
  return FORMAT_BY_EXTENSION[extname(file).toLowerCase()] ?? "ndjson";
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

/** A folder maps as the tables it holds: every file whose name is an entity of the crossmap. */
async function expandDirectory(dir: string, options: ResolveInputsOptions): Promise<InputPlan[]> {
  const names = (await readdir(dir)).sort();
  const out: InputPlan[] = [];
  const skipped: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const format = options.format ?? FORMAT_BY_EXTENSION[extname(name).toLowerCase()];
    if (format === undefined) continue;
    const entity = options.entity ?? options.plan.entityForFileName(name);
    if (entity === undefined) {
      skipped.push(name);
      continue;
    }
    const info = await stat(path);
    if (info.isFile()) out.push({ file: path, format, entity, size: info.size });
  }
  if (skipped.length > 0) {
    options.note(
      `${dir}: skipping ${skipped.length} file(s) named after no entity of the crossmap: ${skipped.join(", ")}`,
    );
  }
  if (out.length === 0) {
    throw new AppError(
      400,
      "input_error",
      `${dir} holds no file named after an entity of the crossmap (${options.plan.entities.join(", ")})`,
    );
  }
  return out;
}

export interface ReadOptions {
  stdin: Readable;
  batchBytes: number;
  batchRecords: number;
  onBytes: (n: number) => void;
}

const READ_BYTES = 1 << 20;

type Reader = (input: InputPlan, open: () => Readable, options: ReadOptions) => AsyncIterable<Batch>;

/**
 * One reader per input format. The HL7 v2 ER7 reader (`--format hl7v2`, a separate issue) plugs in here:
 * add "hl7v2" to InputFormat and the --format choices, and a reader that yields batches of messages.
 */
const READERS: Record<InputFormat, Reader> = {
  ndjson: ({ file, entity }, open, o) =>
    lineBatches(open(), { file, entity, bundles: false, batchBytes: o.batchBytes, onBytes: o.onBytes }),
  csv: ({ file, entity }, open, o) => {
    const stream = open();
    stream.on("data", (chunk: Buffer) => o.onBytes(chunk.length));
    return csvBatches(stream, { file, entity, batchRecords: o.batchRecords });
  },
  "fhir-bundle": ({ file, entity }, open, o) =>
    // One Bundle per file, unless the file (or stdin) is NDJSON: then one Bundle per line.
    file !== "-" && !/\.(ndjson|jsonl)$/i.test(file)
      ? bundleFileBatches(file, entity, o.batchRecords, o.onBytes)
      : lineBatches(open(), { file, entity, bundles: true, batchBytes: o.batchBytes, onBytes: o.onBytes }),
};

/** The batches of one input, read lazily: nothing is read until the caller asks for the next batch. */
export function readInput(input: InputPlan, options: ReadOptions): AsyncIterable<Batch> {
  const open = (): Readable =>
    input.file === "-"
      ? options.stdin
      : // Large reads: fewer syscalls; the line batcher cuts each read into batches.
        createReadStream(input.file, { highWaterMark: READ_BYTES });
  return READERS[input.format](input, open, options);
}
