// Reads source data of any input form the command line reads (OMOP table exports as CSV, FHIR resources
// as NDJSON or Bundles, HL7 v2 ER7 messages) into a TermCollector (or another RecordSink), streaming: a file is never held whole.
// Files and folders in; a record that cannot be read is a located problem, and the records around it count.
import { createReadStream } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import { AppError } from "../../errors.js";
import { csvBatches } from "../csv.js";
import { fieldNames, parseMessage, streamMessages } from "../hl7v2/index.js";
import { jsonSyntaxMessage, parseJson } from "../json.js";
import { jsonDocumentBatches } from "../json-stream.js";
import { DEFAULT_MAX_RECORD_BYTES } from "../limits.js";
import { sniffJson } from "../sniff.js";
import type { TermCollector } from "./collect.js";

export type TermInputFormat = "csv" | "json" | "hl7v2";

/** Where the records go: the term collector, or the column profiler of schema suggestions. */
export interface RecordSink {
  readonly declaration: { readonly file: string };
  /** The entity a CSV file's name means, or undefined to leave the file out (with a warning). */
  entityNamed(name: string): string | undefined;
  add(entity: string, record: object): void;
}

export interface TermProblem {
  file: string;
  line?: number;
  entry?: number;
  severity: "error" | "warning";
  message: string;
}

export interface ReadTermsOptions {
  /** The input form of every file (default: by extension: .csv/.tsv, .hl7/.er7, else JSON). */
  format?: TermInputFormat | undefined;
  /** The entity of every record (default: the CSV file's name, the resource's resourceType, the segment). */
  entity?: string | undefined;
  problem: (p: TermProblem) => void;
}

const EXTENSIONS: Record<string, TermInputFormat> = {
  ".csv": "csv",
  ".tsv": "csv",
  ".hl7": "hl7v2",
  ".er7": "hl7v2",
  ".json": "json",
  ".ndjson": "json",
  ".jsonl": "json",
};

const LIMIT_LABEL = `${DEFAULT_MAX_RECORD_BYTES / 2 ** 20} MiB`;

/** The files of the inputs, folders expanded (their files of known extensions, in name order). */
export async function expandInputs(inputs: readonly string[], format?: TermInputFormat): Promise<string[]> {
  const out: string[] = [];
  for (const input of inputs) {
    const info = await stat(input).catch((err: NodeJS.ErrnoException) => {
      throw new AppError(
        400,
        "input_error",
        `cannot read ${input}: ${err.code === "ENOENT" ? "no such file" : err.message}`,
      );
    });
    if (!info.isDirectory()) {
      out.push(input);
      continue;
    }
    const names = (await readdir(input)).sort();
    const files = names.filter(
      (n) => format !== undefined || EXTENSIONS[extname(n).toLowerCase()] !== undefined,
    );
    if (files.length === 0) throw new AppError(400, "input_error", `${input} holds no file to read`);
    for (const n of files) if ((await stat(join(input, n))).isFile()) out.push(join(input, n));
  }
  return out;
}

/** Reads every record of `files` into the collector. */
export async function readTerms(
  files: readonly string[],
  collector: RecordSink,
  o: ReadTermsOptions,
): Promise<void> {
  for (const file of files) {
    const format = o.format ?? EXTENSIONS[extname(file).toLowerCase()] ?? "json";
    if (format === "csv") await readCsv(file, collector, o);
    else if (format === "hl7v2") await readHl7(file, collector, o);
    else await readJson(file, collector, o);
  }
}

async function readCsv(file: string, collector: RecordSink, o: ReadTermsOptions): Promise<void> {
  const name = basename(file, extname(file));
  const entity = o.entity ?? collector.entityNamed(name);
  if (entity === undefined) {
    o.problem({
      file,
      severity: "warning",
      message: `left out: ${name} is not a table whose source terms are declared (${collector.declaration.file})`,
    });
    return;
  }
  const batches = csvBatches(createReadStream(file), {
    file,
    entity,
    batchRecords: 1000,
    maxRecordChars: DEFAULT_MAX_RECORD_BYTES,
    limitLabel: LIMIT_LABEL,
  });
  for await (const batch of batches) {
    for (const r of batch.records) {
      if (r.problem !== undefined) {
        o.problem({
          file,
          ...(r.line === undefined ? {} : { line: r.line }),
          severity: "error",
          message: r.problem,
        });
      } else collector.add(entity, r.record);
    }
  }
}

/** Resources: NDJSON (a resource or a Bundle per line), or documents (a Bundle, an array of resources). */
async function readJson(file: string, collector: RecordSink, o: ReadTermsOptions): Promise<void> {
  const sniffed = await sniffJson(createReadStream(file));
  if (sniffed.shape === "document") {
    const batches = jsonDocumentBatches(sniffed.input, {
      file,
      entity: o.entity,
      mode: sniffed.opens === "[" ? "array" : "bundle",
      batchRecords: 256,
      maxRecordChars: DEFAULT_MAX_RECORD_BYTES,
      limitLabel: LIMIT_LABEL,
    });
    for await (const batch of batches) {
      for (const r of batch.records) {
        const at = r.entry === undefined ? {} : { entry: r.entry };
        if (r.problem !== undefined) o.problem({ file, ...at, severity: "error", message: r.problem });
        else addResource(r.record, file, at, collector, o);
      }
    }
    return;
  }
  let line = 0;
  let carry = "";
  const decoder = new TextDecoder("utf-8");
  const take = (text: string) => {
    line++;
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = parseJson(text);
    } catch (err) {
      o.problem({ file, line, severity: "error", message: `not JSON: ${jsonSyntaxMessage(err)}` });
      return;
    }
    addResource(value, file, { line }, collector, o);
  };
  for await (const chunk of sniffed.input) {
    const lines = (carry + decoder.decode(chunk, { stream: true })).split("\n");
    carry = lines.pop() ?? "";
    for (const l of lines) take(l);
  }
  carry += decoder.decode();
  if (carry !== "") take(carry);
}

/** A resource, or each resource of a Bundle. */
function addResource(
  value: unknown,
  file: string,
  at: { line?: number; entry?: number },
  collector: RecordSink,
  o: ReadTermsOptions,
): void {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    o.problem({ file, ...at, severity: "error", message: "not a JSON object" });
    return;
  }
  const resource = value as Record<string, unknown>;
  if (o.entity === undefined && resource.resourceType === "Bundle" && Array.isArray(resource.entry)) {
    for (const e of resource.entry) {
      const inner = (e as { resource?: unknown } | null)?.resource;
      if (inner !== undefined) addResource(inner, file, at, collector, o);
    }
    return;
  }
  const entity = o.entity ?? (typeof resource.resourceType === "string" ? resource.resourceType : undefined);
  if (entity === undefined) {
    o.problem({ file, ...at, severity: "error", message: "the record has no resourceType; give --entity" });
    return;
  }
  collector.add(entity, resource);
}

async function readHl7(file: string, collector: RecordSink, o: ReadTermsOptions): Promise<void> {
  const names = fieldNames();
  for await (const raw of streamMessages(createReadStream(file))) {
    const parsed = parseMessage(raw, { file, names });
    if (!("segments" in parsed)) {
      o.problem({
        file,
        line: parsed.line,
        severity: "error",
        message: `message ${parsed.index} is malformed and left out: ${parsed.message}`,
      });
      continue;
    }
    for (const segment of parsed.segments) collector.add(o.entity ?? segment.$ctx.type, segment);
  }
}

export interface TermListColumns {
  description: string;
  code?: string | undefined;
  frequency?: string | undefined;
  /** The code system of every code (the list does not say). */
  system?: string | undefined;
  domains?: readonly string[] | undefined;
}

/**
 * A site's own term list: a CSV with a header, one term a row, its description (and code, and
 * frequency) in the named columns. Rows of the same term add their frequencies; a row without a
 * frequency counts once.
 */
export async function readTermList(
  file: string,
  columns: TermListColumns,
  collector: TermCollector,
  o: Pick<ReadTermsOptions, "problem">,
): Promise<void> {
  const batches = csvBatches(createReadStream(file), {
    file,
    entity: undefined,
    batchRecords: 1000,
    maxRecordChars: DEFAULT_MAX_RECORD_BYTES,
    limitLabel: LIMIT_LABEL,
  });
  let checked = false;
  const field = basename(file);
  for await (const batch of batches) {
    for (const r of batch.records) {
      const at = r.line === undefined ? {} : { line: r.line };
      if (r.problem !== undefined) {
        o.problem({ file, ...at, severity: "error", message: r.problem });
        continue;
      }
      const row = r.record as Record<string, unknown>;
      if (!checked) {
        checked = true;
        const wanted = [columns.description, columns.code, columns.frequency].filter((c) => c !== undefined);
        const missing = wanted.filter((c) => !(c in row));
        if (missing.length > 0) {
          throw new AppError(400, "input_error", `${file}: the header has no column ${missing.join(", ")}`);
        }
      }
      const text = (v: unknown) =>
        v === undefined || v === null || String(v).trim() === "" ? undefined : String(v).trim();
      let frequency = 1;
      const f = columns.frequency === undefined ? undefined : text(row[columns.frequency]);
      if (f !== undefined) {
        if (!/^\d+$/.test(f) || !Number.isSafeInteger(Number(f))) {
          o.problem({
            file,
            ...at,
            severity: "error",
            message: `${columns.frequency} ${JSON.stringify(f)} is not a whole number >= 0; the row is left out`,
          });
          continue;
        }
        frequency = Number(f);
      }
      const description = text(row[columns.description]);
      const code = columns.code === undefined ? undefined : text(row[columns.code]);
      if (description === undefined && code === undefined) {
        o.problem({
          file,
          ...at,
          severity: "warning",
          message: `no ${columns.description}${columns.code ? ` and no ${columns.code}` : ""}; the row is left out`,
        });
        continue;
      }
      collector.addTerm({
        code,
        system: columns.system,
        description,
        frequency,
        field,
        domains: columns.domains,
      });
    }
  }
}
