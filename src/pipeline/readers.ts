// How each input format is read into batches, from a file or stdin: decompressed when it is gzip, and
// ended with one issue when it cannot be read (further).
import type { Readable } from "node:stream";
import { bundleLines } from "./bundle-lines.js";
import { type InputFailure, inputBytes } from "./input-bytes.js";
import type { AnyInputPlan, InputPlan } from "./inputs.js";
import type { JsonStreamOptions } from "./json-stream.js";
import { lineBatches } from "./lines.js";
import { looksLikeCsvHeader, sniffJson } from "./sniff.js";
import type { AnyBatch, Batch, InputFormat, RecordsBatch } from "./types.js";

export interface ReadOptions {
  stdin: Readable;
  batchBytes: number;
  batchRecords: number;
  /** A record (line, row, Bundle entry or array element) longer than this is an issue, not a record. */
  maxRecordBytes: number;
  onBytes: (n: number) => void;
  /** The fields the crossmap reads of a source entity (CSV header names in another case are read so). */
  readFields?: (entity: string) => ReadonlySet<string> | undefined;
  /** CSV cells holding exactly one of these texts are absent, as empty ones are. */
  csvNulls?: readonly string[];
}

type Reader = (
  input: InputPlan,
  bytes: AsyncIterable<Uint8Array>,
  options: ReadOptions,
  /** True once the bytes have ended in an error (corrupt gzip, a read error). */
  failed: () => boolean,
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
  let problem: string | undefined;
  if (sniffed.shape === "document") {
    const hint =
      sniffed.opens === "["
        ? "it looks like a JSON array: give --format json-array to map its elements"
        : sniffed.bundle
          ? "it looks like a FHIR Bundle: give --format fhir-bundle to map its entries"
          : "give --format fhir-bundle for a FHIR Bundle, or --format json-array for an array of records";
    problem = `the input is one JSON document over several lines, not NDJSON (one record per line); ${hint}; nothing of it is read`;
  } else if (sniffed.opens === undefined && looksLikeCsvHeader(sniffed.firstLine)) {
    // CSV on stdin (`zcat PERSON.csv.gz | crossmap map ...`) or under a name without .csv: one hint, not
    // one malformed_json per row of a file that may hold millions.
    const head = sniffed.firstLine.length > 60 ? `${sniffed.firstLine.slice(0, 57)}...` : sniffed.firstLine;
    const entity = input.entity === undefined ? " and --entity" : "";
    problem = `the input is not NDJSON: its first line is a CSV header row (${head}); give --format csv${entity} to map its rows; nothing of it is read`;
  }
  if (problem !== undefined) {
    yield {
      kind: "records",
      file: input.file,
      entity: input.entity,
      records: [{ record: {}, line: 1, problem, problemCode: "not_ndjson" }],
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

function documentOptions(
  input: InputPlan,
  o: ReadOptions,
  mode: "bundle" | "array",
  within: "input" | "line" = "input",
): JsonStreamOptions {
  const { file, entity } = input;
  return {
    file,
    entity,
    mode,
    within,
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
  if (sniffed.shape === "lines") {
    yield* bundleLines(lineBatches(sniffed.input, lineOptions(input, o, true)), (bytes) =>
      jsonDocument(bytes, documentOptions(input, o, "bundle", "line")),
    );
  } else yield* jsonDocument(sniffed.input, documentOptions(input, o, "bundle"));
}

/** The readers of CSV and whole documents are imported when first used (start-up of the others). */
async function* csv(
  input: InputPlan,
  bytes: AsyncIterable<Uint8Array>,
  o: ReadOptions,
  failed: () => boolean,
): AsyncGenerator<Batch> {
  const { csvBatches } = await import("./csv.js");
  yield* csvBatches(bytes, {
    file: input.file,
    entity: input.entity,
    batchRecords: o.batchRecords,
    maxRecordChars: o.maxRecordBytes,
    limitLabel: limitLabel(o.maxRecordBytes),
    failed,
    readFields: input.entity === undefined ? undefined : o.readFields?.(input.entity),
    ...(o.csvNulls ? { nulls: new Set(o.csvNulls) } : {}),
  });
}

async function* jsonDocument(
  bytes: AsyncIterable<Uint8Array>,
  options: JsonStreamOptions,
): AsyncGenerator<RecordsBatch> {
  const { jsonDocumentBatches } = await import("./json-stream.js");
  yield* jsonDocumentBatches(bytes, options);
}

const READERS: Record<InputFormat, Reader> = {
  ndjson,
  csv,
  "fhir-bundle": fhirBundles,
  "json-array": (input, bytes, o) => jsonDocument(bytes, documentOptions(input, o, "array")),
};

/**
 * The batches of one input, read lazily: nothing is read until the caller asks for the next batch. An
 * input that cannot be read, or stops being readable (a read error, corrupt gzip), ends with one issue
 * saying so, after the records read before it.
 */
export function readInput(input: InputPlan, options: ReadOptions): AsyncGenerator<Batch> {
  return readWith(input, options, (bytes, failed) => READERS[input.format](input, bytes, options, failed));
}

/**
 * The same for an input of any format: HL7 v2 messages (gzip or not) are cut into batches of whole
 * messages; an HL7 v2 input that cannot be read (further) ends with the same one issue.
 */
export function readAnyInput(input: AnyInputPlan, options: ReadOptions): AsyncGenerator<AnyBatch> {
  if (input.format !== "hl7v2") return readInput(input as InputPlan, options);
  return readWith(input, options, (bytes, failed) => er7(input, bytes, options, failed));
}

async function* er7(
  input: AnyInputPlan,
  bytes: AsyncIterable<Uint8Array>,
  o: ReadOptions,
  failed: () => boolean,
): AsyncGenerator<AnyBatch> {
  const { er7Batches } = await import("./hl7v2/batches.js");
  yield* er7Batches(bytes, {
    file: input.file,
    batchBytes: o.batchBytes,
    maxRecordBytes: o.maxRecordBytes,
    limitLabel: limitLabel(o.maxRecordBytes),
    failed,
  });
}

async function* readWith<B extends AnyBatch>(
  input: AnyInputPlan,
  options: ReadOptions,
  read: (bytes: AsyncIterable<Uint8Array>, failed: () => boolean) => AsyncIterable<B>,
): AsyncGenerator<B | Batch> {
  if (input.unreadable !== undefined) {
    yield problemBatch(input, "unreadable_file", input.unreadable);
    return;
  }
  let failure: InputFailure | undefined;
  const bytes = inputBytes(input.file, options.stdin, {
    onBytes: options.onBytes,
    failed: (f) => {
      failure = f;
    },
  });
  yield* read(bytes, () => failure !== undefined);
  // Read after the reader is done with the bytes: the failure is known only once they end.
  const f = failure as InputFailure | undefined;
  if (f) yield problemBatch(input, f.code, f.message);
}

function problemBatch(input: AnyInputPlan, code: string, message: string): Batch {
  return {
    kind: "records",
    file: input.file,
    entity: input.entity,
    records: [{ record: {}, problem: message, problemCode: code }],
  };
}
