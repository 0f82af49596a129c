// Works out, before anything is read, what each input is: its format, its source entity and how to
// read it. Everything that can be wrong with the command line is found here, as an AppError.
import { createReadStream } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { extname, join } from "node:path";
import type { Readable } from "node:stream";
import { AppError } from "../errors.js";
import type { JsonStreamOptions } from "./json-stream.js";
import { lineBatches } from "./lines.js";
import type { MappingPlan } from "./plan.js";
import { sniffJson } from "./sniff.js";
import type { AnyBatch, Batch, InputFormat, ReadFormat, RunIssue } from "./types.js";

export interface InputPlan {
  /** The path, or "-" for stdin. */
  file: string;
  format: InputFormat;
  entity: string | undefined;
  /** Size in bytes, when it is a file. */
  size: number | undefined;
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
      options.skipped?.({
        file: path,
        code: "skipped_file",
        severity: "warning",
        message: `${name} is left out: its name names no entity of the crossmap (${options.plan.entities.join(", ")})`,
      });
      continue;
    }
    const info = await stat(path);
    if (info.isFile()) out.push({ file: path, format, entity, size: info.size });
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
      `${dir} holds no file named after an entity of the crossmap (${options.plan.entities.join(", ")})`,
    );
  }
  return out;
}

export interface ReadOptions {
  stdin: Readable;
  batchBytes: number;
  batchRecords: number;
  /** A record (line, row, Bundle entry or array element) longer than this is an issue, not a record. */
  maxRecordBytes: number;
  onBytes: (n: number) => void;
}

const READ_BYTES = 1 << 20;

type Reader = (
  input: InputPlan,
  bytes: AsyncIterable<Uint8Array>,
  options: ReadOptions,
) => AsyncIterable<Batch>;

/** How the per-record limit is named in issues: `64 MiB (--max-record-bytes)`. */
export function limitLabel(bytes: number): string {
  const mib = bytes / 2 ** 20;
  const size = Number.isInteger(mib) ? `${mib} MiB` : `${bytes} bytes`;
  return `${size} (--max-record-bytes)`;
}

/** An input that is one JSON document over many lines, read as NDJSON, is one issue, not one per line. */
async function* ndjson(
  input: InputPlan,
  bytes: AsyncIterable<Uint8Array>,
  o: ReadOptions,
): AsyncGenerator<Batch> {
  const sniffed = await sniffJson(bytes);
  if (sniffed.shape === "document") {
    const hint =
      sniffed.opens === "["
        ? "it looks like a JSON array: give --format json-array to map its elements"
        : sniffed.bundle
          ? "it looks like a FHIR Bundle: give --format fhir-bundle to map its entries"
          : "give --format fhir-bundle for a FHIR Bundle, or --format json-array for an array of records";
    yield {
      kind: "records",
      file: input.file,
      entity: input.entity,
      records: [
        {
          record: {},
          line: 1,
          problem: `the input is one JSON document over several lines, not NDJSON (one record per line); ${hint}; nothing of it is read`,
          problemCode: "not_ndjson",
        },
      ],
    };
    return;
  }
  yield* lineBatches(sniffed.input, lineOptions(input, o, false));
}

function lineOptions(input: InputPlan, o: ReadOptions, bundles: boolean) {
  const { file, entity } = input;
  return {
    file,
    entity,
    bundles,
    batchBytes: o.batchBytes,
    maxRecordBytes: o.maxRecordBytes,
    limitLabel: limitLabel(o.maxRecordBytes),
  };
}

/**
 * Records per batch of a streamed document. Bundle entries are whole resources (~0.5-2 KB, a CSV row's
 * several times), and a batch in flight holds them parsed: 256 keeps the 32 batches a run may have in
 * flight near the NDJSON reader's 64 KB of text each.
 */
const DOCUMENT_BATCH_RECORDS = 256;

function documentOptions(input: InputPlan, o: ReadOptions, mode: "bundle" | "array"): JsonStreamOptions {
  const { file, entity } = input;
  return {
    file,
    entity,
    mode,
    batchRecords: Math.min(o.batchRecords, DOCUMENT_BATCH_RECORDS),
    maxRecordChars: o.maxRecordBytes,
    limitLabel: limitLabel(o.maxRecordBytes),
  };
}

/** FHIR Bundles: one per line (read in parallel like NDJSON), or one document of any size (streamed). */
async function* fhirBundles(
  input: InputPlan,
  bytes: AsyncIterable<Uint8Array>,
  o: ReadOptions,
): AsyncGenerator<Batch> {
  const sniffed = await sniffJson(bytes);
  if (sniffed.shape === "lines") yield* lineBatches(sniffed.input, lineOptions(input, o, true));
  else yield* jsonDocument(sniffed.input, documentOptions(input, o, "bundle"));
}

/** The readers of CSV and whole documents are imported when first used (start-up of the others). */
async function* csv(
  input: InputPlan,
  bytes: AsyncIterable<Uint8Array>,
  o: ReadOptions,
): AsyncGenerator<Batch> {
  const { csvBatches } = await import("./csv.js");
  yield* csvBatches(bytes, {
    file: input.file,
    entity: input.entity,
    batchRecords: o.batchRecords,
    maxRecordChars: o.maxRecordBytes,
    limitLabel: limitLabel(o.maxRecordBytes),
  });
}

async function* jsonDocument(
  bytes: AsyncIterable<Uint8Array>,
  options: JsonStreamOptions,
): AsyncGenerator<Batch> {
  const { jsonDocumentBatches } = await import("./json-stream.js");
  yield* jsonDocumentBatches(bytes, options);
}

const READERS: Record<InputFormat, Reader> = {
  ndjson,
  csv,
  "fhir-bundle": fhirBundles,
  "json-array": (input, bytes, o) => jsonDocument(bytes, documentOptions(input, o, "array")),
};

/** The batches of one input, read lazily: nothing is read until the caller asks for the next batch. */
export function readInput(input: InputPlan, options: ReadOptions): AsyncIterable<Batch> {
  return READERS[input.format](input, inputBytes(input, options), options);
}

/** The same for an input of any format: HL7 v2 messages are cut into batches of whole messages. */
export function readAnyInput(input: AnyInputPlan, options: ReadOptions): AsyncIterable<AnyBatch> {
  if (input.format !== "hl7v2") return readInput(input as InputPlan, options);
  return er7(input, inputBytes(input, options), options);
}

async function* er7(
  input: AnyInputPlan,
  bytes: AsyncIterable<Uint8Array>,
  o: ReadOptions,
): AsyncGenerator<AnyBatch> {
  const { er7Batches } = await import("./hl7v2/batches.js");
  yield* er7Batches(bytes, {
    file: input.file,
    batchBytes: o.batchBytes,
    maxRecordBytes: o.maxRecordBytes,
    limitLabel: limitLabel(o.maxRecordBytes),
  });
}

function inputBytes(input: AnyInputPlan, options: ReadOptions): AsyncIterable<Uint8Array> {
  const stream =
    input.file === "-"
      ? options.stdin
      : // Large reads: fewer syscalls; the readers cut each read into batches.
        createReadStream(input.file, { highWaterMark: READ_BYTES });
  return counted(stream, options.onBytes);
}

async function* counted(stream: Readable, onBytes: (n: number) => void): AsyncGenerator<Uint8Array> {
  for await (const chunk of stream as AsyncIterable<Uint8Array>) {
    onBytes(chunk.length);
    yield chunk;
  }
}
