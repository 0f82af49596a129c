// The shapes that move between the pipeline's stages: input batches, batch results and run issues.
import type { IssueCode, SourceRecord } from "../crossmap/types.js";
import type { MalformedMessage } from "./hl7v2/message.js";

/** Input formats of record files (`--format`). */
export type InputFormat = "ndjson" | "csv" | "fhir-bundle" | "json-array";

/** Every format a reader exists for: record files, and HL7 v2 ER7 messages (pipeline/hl7v2). */
export type ReadFormat = InputFormat | "hl7v2";

export type OnError = "skip" | "fail";

/**
 * A slice of NDJSON text holding whole lines, as the main thread cut it. Workers parse it, so the main
 * thread never touches a record.
 */
export interface LinesBatch {
  kind: "lines";
  /** Input label for issues: the file path, or "-" for stdin. */
  file: string;
  /** The source entity every record of the file has, when known from --entity or the file name. */
  entity: string | undefined;
  /** NDJSON of records, or (fhir-bundle) NDJSON of Bundles. */
  bundles: boolean;
  /** 1-based number of the first line in `text`. */
  firstLine: number;
  /** Bytes as read (moved to a worker as they are, see pool.ts), or text. */
  text: Uint8Array | string;
}

/** Records a reader already parsed (CSV rows, entries of a Bundle document, elements of a JSON array). */
export interface RecordsBatch {
  kind: "records";
  file: string;
  entity: string | undefined;
  records: ParsedRecord[];
  /** The records are elements of a JSON array, not Bundle entries, though they carry an `entry` index. */
  array?: boolean;
}

/**
 * HL7 v2 ER7 text holding whole messages, as the main thread cut it (at message starts, see
 * hl7v2/batches.ts): workers decode, split and map it, one FHIR Bundle (or its resources) per message.
 */
export interface Er7Batch {
  kind: "er7";
  file: string;
  /** 1-based index in its input of the first message in `text`, and the line that message starts on. */
  firstMessage: number;
  firstLine: number;
  /** Bytes as read (moved to a worker as they are), or text. */
  text: Uint8Array | string;
  /** Set instead of `text` for a message over the per-message limit: its size, the limit, its first segment id. */
  tooLarge?: { bytes: number; limit: string; type: string };
  /**
   * Set instead of `text` for the last message of an input that ended in an error (corrupt gzip, a read
   * error): what was read of it looks whole and is not. Its first segment id and the lines read of it.
   */
  cutShort?: { type: string; lines: number };
}

/** The batches of record files (NDJSON, CSV, Bundles, arrays): what a NATS worker is sent. */
export type Batch = LinesBatch | RecordsBatch;

/** Every batch the stage maps. */
export type AnyBatch = Batch | Er7Batch;

/** One input record with the place it came from. */
export interface ParsedRecord {
  record: SourceRecord;
  /** 1-based line (row for CSV), when the input has lines. */
  line?: number;
  /** Index in the Bundle's `entry` array, for FHIR Bundles; in the top-level array, for json-array. */
  entry?: number;
  /** Why the reader could not make a whole record of it (e.g. a CSV row with more cells than the header). */
  problem?: string;
  /** Issue code for `problem`; default "invalid_record". */
  problemCode?: string;
  /** Not a record and not a fault (a Bundle entry that is a DELETE request): the warning that names it. */
  skipped?: string;
  /** What `skipped` is counted as in the run's summary (the request's method). */
  skippedKind?: string;
}

/** One thing that went wrong with one input record, located for a human. */
export interface RunIssue {
  file: string;
  /** HL7 v2: the message (1-based in its input), the segment in it and the segment's type. */
  message_index?: number;
  segment?: number;
  segment_type?: string;
  line?: number;
  entry?: number;
  entity?: string;
  /** The field_map key, when a field caused it. */
  field?: string;
  target?: string;
  code: IssueCode;
  severity: "error" | "warning";
  message: string;
  value?: unknown;
}

/**
 * A produced record that takes part in gathering (a child, or a parent others gather into): held by the main
 * thread until its group is complete (see gatherer.ts), serialised so that it can cross from a worker.
 */
export interface HeldRecord {
  output: string;
  entity: string;
  json: string;
  key?: string;
  into?: { rule: number; key: string };
  /** The derived id (outputs with `id`), for merging siblings with one id. */
  id?: string;
  /** Where its source record was, for issues. */
  place: { file: string; line?: number; entry?: number; entity?: string };
}

/** What a batch turned into. Counts are per input record, but `recordsOut` counts target records written. */
export interface BatchResult {
  /**
   * NDJSON, by target entity when writing per-entity files, else all under "". Workers send it as UTF-8
   * bytes so that encoding happens off the main thread and the buffer can be moved, not copied.
   */
  output: Record<string, string | Uint8Array>;
  recordsIn: number;
  /** Target records written (a record may produce several, or none). */
  recordsOut: number;
  /** Records not written (malformed, wrong shape, no entity). */
  recordsFailed: number;
  /** Records with at least one error-severity issue, written or not. */
  recordsWithErrors: number;
  /** Records the crossmap has no mapping for (e.g. Bundle entries of other resource types). */
  skipped: Record<string, number>;
  /** Records held for gathering, in input order; absent when the crossmap gathers nothing. */
  held?: HeldRecord[];
  issues: RunIssue[];
  /** With --on-error fail: the first error; `output` stops just before its record. */
  fatal?: RunIssue;
  /** HL7 v2 batches: messages read, Bundles written and the messages that could not be read. */
  messages?: MessageCounts;
}

/** What an HL7 v2 batch counted of its messages (records are segments, see hl7v2/run.ts). */
export interface MessageCounts {
  messages: number;
  bundles: number;
  malformed: MalformedMessage[];
}
