// The ER7 reader as a library: messages in (text or a stream), one FHIR Bundle per message out, plus a
// run summary with malformed messages and unmapped segment types. `crossmap map --format hl7v2` uses it.
import type { Crossmap } from "../../crossmap/crossmap.js";
import type { MappingIssue } from "../../crossmap/types.js";
import {
  type BundleType,
  type MessageResult,
  messageToBundle,
  readTypes,
  type SegmentMappers,
  segmentMappers,
} from "./bundle.js";
import type { IdentifierSystems } from "./identifier-systems.js";
import { type Hl7Message, type MalformedMessage, type ParseOptions, parseMessage } from "./message.js";
import { fieldNames } from "./names.js";
import { collectReadProblems } from "./problems.js";
import { type RawMessage, splitMessages, streamMessages } from "./split.js";
import { messageStructures } from "./structure.js";

export {
  type BundleType,
  type MessageResult,
  messageToBundle,
  type SegmentMappers,
  segmentMappers,
} from "./bundle.js";
export { compileUnescape, DEFAULT_DELIMITERS, type Delimiters, readDelimiters } from "./delimiters.js";
export type { IdentifierSystems } from "./identifier-systems.js";
export { type Hl7Message, type MalformedMessage, parseMessage, type SegmentContext } from "./message.js";
export { fieldNames } from "./names.js";
export { type RawMessage, splitMessages, streamMessages } from "./split.js";

export interface ConvertOptions {
  /** Named in malformed-message reports and record positions. */
  file?: string;
  bundle?: BundleType;
  /** Offset for times sent without one (`Z`, `+02:00`); without it such a time is cut to its date. */
  assumeTimezone?: string;
  /** A segment the crossmap does not map is an error (`unmapped_segment`), not a warning. */
  strictSegments?: boolean;
  /** The site table of identifier systems (`--identifier-systems`): namespace ids -> system URIs. */
  identifierSystems?: IdentifierSystems;
}

export type ConvertResult =
  | ({ ok: true; message: Hl7Message } & MessageResult)
  | { ok: false; malformed: MalformedMessage };

/** Converts one raw message: `file` names it in issues, `faults` (decode.ts) are its invalid UTF-8. */
export type MessageConverter = (
  raw: RawMessage,
  file?: string,
  faults?: ParseOptions["faults"],
) => ConvertResult;

/** A converter for many messages: what the crossmap and the options imply is worked out once. */
export function messageConverter(
  crossmap: Crossmap | SegmentMappers,
  options: Omit<ConvertOptions, "file"> = {},
): MessageConverter {
  const mappers = segmentMappers(crossmap);
  const read = readTypes(mappers.reads);
  const bundle = options.bundle ?? "collection";
  const base: ParseOptions = {
    names: fieldNames(),
    structures: messageStructures(),
    mapped: (t) => mappers.mapperFor(t) !== undefined,
    consumed: (t) => read.has(t),
    ...(options.assumeTimezone !== undefined ? { timezone: options.assumeTimezone } : {}),
    ...(options.identifierSystems !== undefined ? { identifierSystems: options.identifierSystems } : {}),
    bundle,
  };
  const bundleOptions = {
    strictSegments: options.strictSegments === true,
    ...(options.identifierSystems !== undefined ? { identifierSystems: options.identifierSystems } : {}),
  };
  return (raw, file, faults) => {
    const parsed = parseMessage(
      raw,
      file === undefined && faults === undefined
        ? base
        : { ...base, ...(file !== undefined ? { file } : {}), ...(faults ? { faults } : {}) },
    );
    if (!("segments" in parsed)) return { ok: false, malformed: parsed };
    const lazy: MappingIssue[] = [];
    const result = collectReadProblems(lazy, () =>
      messageToBundle(parsed, mappers, options.bundle, bundleOptions),
    );
    // What reading found: the text's problems first, then those of the fields the crossmap read.
    if (parsed.problems !== undefined || lazy.length > 0) {
      result.issues = [...(parsed.problems ?? []), ...result.issues, ...lazy];
    }
    return { ok: true, message: parsed, ...result };
  };
}

/**
 * Parses and maps one raw message; never throws for bad input. For a series of messages (a feed, a
 * listener), make one `messageConverter` and call it per message: this builds one per call, so nothing it
 * works out (the link plan of each message structure) is kept for the next message.
 */
export function convertMessage(
  raw: RawMessage,
  crossmap: Crossmap | SegmentMappers,
  options: ConvertOptions = {},
): ConvertResult {
  return messageConverter(crossmap, options)(raw, options.file);
}

export function* convertText(
  text: string,
  crossmap: Crossmap | SegmentMappers,
  options: ConvertOptions = {},
): Generator<ConvertResult> {
  const convert = messageConverter(crossmap, options);
  for (const raw of splitMessages(text)) yield convert(raw, options.file);
}

export async function* convertStream(
  input: AsyncIterable<string | Uint8Array>,
  crossmap: Crossmap | SegmentMappers,
  options: ConvertOptions = {},
): AsyncGenerator<ConvertResult> {
  const convert = messageConverter(crossmap, options);
  for await (const raw of streamMessages(input)) yield convert(raw, options.file);
}

/** Totals of a run, for the run summary: what was read, written, reported and left unmapped. */
export class Hl7v2Summary {
  messages = 0;
  bundles = 0;
  resources = 0;
  issues = 0;
  readonly incomplete: MessageResult["incomplete"] = [];
  readonly malformed: MalformedMessage[] = [];
  readonly unmappedSegments = new Map<string, number>();

  add(r: ConvertResult): void {
    this.messages++;
    if (!r.ok) {
      this.malformed.push(r.malformed);
      return;
    }
    this.bundles++;
    this.resources += r.resources.length;
    this.issues += r.issues.length;
    for (const i of r.incomplete) this.incomplete.push(i);
    for (const [t, n] of r.unmapped) this.unmappedSegments.set(t, (this.unmappedSegments.get(t) ?? 0) + n);
  }

  toJSON(): Record<string, unknown> {
    return {
      messages: this.messages,
      bundles: this.bundles,
      resources: this.resources,
      issues: this.issues,
      incomplete_resources: this.incomplete,
      malformed_messages: this.malformed,
      unmapped_segments: Object.fromEntries(
        [...this.unmappedSegments].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
      ),
    };
  }
}
