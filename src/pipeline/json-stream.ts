// Reads whole JSON documents of any size in constant memory with stream-json's tokenizer: a FHIR Bundle
// (its entry[].resource records) or a JSON array (its elements). Only one element is assembled at a
// time; integers beyond 2^53 arrive as their digits and become bigint, exactly as the NDJSON reader does.
import { jsonParser, type Token } from "stream-json/core/parser.js";
import type { SourceRecord } from "../crossmap/types.js";
import { entryRecord } from "./bundle-entry.js";
import type { ParsedRecord, RecordsBatch } from "./types.js";
import { Utf8Stream, utf8Message } from "./utf8.js";

export interface JsonStreamOptions {
  file: string;
  entity: string | undefined;
  /** `bundle`: entry[].resource of each top-level Bundle; `array`: each element of each top-level array. */
  mode: "bundle" | "array";
  batchRecords: number;
  /** An element longer than this many characters of JSON text is an issue, not a record. */
  maxRecordChars: number;
  limitLabel: string;
  /** What the document is, for byte offsets in issues: the whole input (default), or one line of it. */
  within?: "input" | "line";
}

/** stream-json's end-of-input marker (stream-chain's `none`). */
const END = Symbol.for("object-stream.none");
/** Text is fed to the tokenizer in pieces this long, so an element's size is known to within one. */
const PIECE = 64 * 1024;

type Container = Record<string, unknown> | unknown[];

/** Where the reader is in the document. */
enum At {
  /** Between top-level values. */
  Top,
  /** Inside a top-level Bundle object, outside `entry`. */
  Bundle,
  /** Inside Bundle.entry, between entries. */
  Entries,
  /** Inside a top-level array, between elements. */
  Array,
  /** Skipping a value nobody reads (depth tracked in `skipDepth`). */
  Skip,
}

export async function* jsonDocumentBatches(
  input: AsyncIterable<Uint8Array>,
  options: JsonStreamOptions,
): AsyncGenerator<RecordsBatch> {
  const { file, entity, mode, batchRecords, maxRecordChars, limitLabel } = options;
  const tokenize = jsonParser({ packValues: true, streamValues: false, jsonStreaming: true }) as unknown as (
    text: string | symbol,
  ) => { values: Token[] } | symbol;
  const utf8 = new Utf8Stream();
  let records: ParsedRecord[] = [];
  const ready: ParsedRecord[][] = [];
  const batchOf = (batch: ParsedRecord[]): RecordsBatch =>
    mode === "array"
      ? { kind: "records", file, entity, records: batch, array: true }
      : { kind: "records", file, entity, records: batch };

  let at: At = At.Top;
  /** What to go back to once a skipped value ends. */
  let afterSkip: At = At.Top;
  let skipDepth = 0;
  let key: string | undefined;
  /** The next element's index (Bundle.entry or the array). */
  let index = 0;
  /** The element being assembled: its containers, innermost last, and the keys they wait on. */
  const stack: Container[] = [];
  const keys: (string | undefined)[] = [];
  let element: { index: number; startFed: number; fault?: string; tooLarge?: boolean } | undefined;
  let fed = 0;
  /** How many elements have been handed on (as records or issues), for the message of a syntax error. */
  let done = 0;

  const push = (parsed: ParsedRecord): void => {
    records.push(parsed);
    if (records.length >= batchRecords) {
      ready.push(records);
      records = [];
    }
  };
  const problem = (code: string, message: string, at?: number): void => {
    const parsed: ParsedRecord = { record: {}, problem: message, problemCode: code };
    if (at !== undefined) parsed.entry = at;
    push(parsed);
  };

  /** An assembled element: a record, or an issue. */
  const finish = (value: unknown): void => {
    const e = element!;
    element = undefined;
    done++;
    if (e.tooLarge) {
      problem(
        "record_too_large",
        `the element is over ${limitLabel} of JSON text, the limit per record; it is not read`,
        e.index,
      );
    } else if (e.fault !== undefined) {
      problem("invalid_utf8", utf8Message(e.fault, "in the element"), e.index);
    } else if (mode === "bundle") {
      const r = entryRecord(value);
      if ("resource" in r) push({ record: r.resource, entry: e.index });
      else if ("request" in r)
        push({ record: {}, entry: e.index, skipped: r.request, skippedKind: r.method });
      else problem("invalid_record", r.problem, e.index);
    } else if (isObject(value)) {
      push({ record: value, entry: e.index });
    } else {
      problem("invalid_record", `expected a JSON object, got ${describe(value)}`, e.index);
    }
  };

  /** Adds a finished value to the element being assembled (or finishes it). */
  const add = (value: unknown): void => {
    const top = stack[stack.length - 1];
    if (top === undefined) {
      finish(value);
      return;
    }
    if (Array.isArray(top)) top.push(value);
    else {
      const k = keys[keys.length - 1] as string;
      // As JSON.parse does: a "__proto__" key is data, never the prototype.
      if (k === "__proto__")
        Object.defineProperty(top, k, { value, enumerable: true, writable: true, configurable: true });
      else top[k] = value;
    }
  };

  const startElement = (): void => {
    element = { index: index++, startFed: fed };
  };

  const onToken = (t: Token): void => {
    if (element !== undefined) {
      if (element.tooLarge) {
        skipInElement(t);
        return;
      }
      switch (t.name) {
        case "startObject":
          stack.push({});
          keys.push(undefined);
          return;
        case "startArray":
          stack.push([]);
          keys.push(undefined);
          return;
        case "endObject":
        case "endArray": {
          const done = stack.pop();
          keys.pop();
          add(done);
          return;
        }
        case "keyValue":
          keys[keys.length - 1] = t.value;
          return;
        case "stringValue":
          add(t.value);
          return;
        case "numberValue":
          add(numberOf(t.value));
          return;
        case "nullValue":
        case "trueValue":
        case "falseValue":
          add(t.value);
          return;
      }
      return;
    }
    switch (at) {
      case At.Top:
        if (mode === "array") {
          if (t.name === "startArray") at = At.Array;
          else notA(t, "a JSON array");
        } else if (t.name === "startObject") at = At.Bundle;
        else notA(t, "a FHIR Bundle object");
        return;
      case At.Array:
      case At.Entries:
        if (t.name === "endArray") {
          at = at === At.Array ? At.Top : At.Bundle;
          if (at === At.Top) index = 0;
          return;
        }
        startElement();
        onToken(t);
        return;
      case At.Bundle:
        if (t.name === "keyValue") key = t.value;
        else if (t.name === "endObject") {
          at = At.Top;
          index = 0;
        } else if (key === "entry") {
          if (t.name === "startArray") at = At.Entries;
          else {
            problem("invalid_record", "Bundle.entry is not an array");
            skip(t, At.Bundle);
          }
        } else if (key === "resourceType" && t.name === "stringValue" && t.value !== "Bundle") {
          problem("invalid_record", `expected a FHIR Bundle, got resourceType ${JSON.stringify(t.value)}`);
          // Whatever else this document holds is not a Bundle's entries.
          at = At.Skip;
          afterSkip = At.Top;
          skipDepth = 1;
        } else skip(t, At.Bundle);
        return;
      case At.Skip:
        if (t.name === "startObject" || t.name === "startArray") skipDepth++;
        else if (t.name === "endObject" || t.name === "endArray") skipDepth--;
        if (skipDepth === 0) {
          at = afterSkip;
          if (at === At.Top) index = 0;
        }
        return;
    }
  };

  /** Skips the value that `t` starts, then goes back to `then`. */
  const skip = (t: Token, then: At): void => {
    if (t.name === "startObject" || t.name === "startArray") {
      at = At.Skip;
      afterSkip = then;
      skipDepth = 1;
    }
  };

  const notA = (t: Token, what: string): void => {
    const got =
      t.name === "startObject" ? "an object" : t.name === "startArray" ? "an array" : describeToken(t);
    problem("invalid_record", `expected ${what}, got ${got}`);
    skip(t, At.Top);
  };

  /** Inside an element over the limit: only its end matters. */
  const skipInElement = (t: Token): void => {
    if (t.name === "startObject" || t.name === "startArray") skipDepth++;
    else if (t.name === "endObject" || t.name === "endArray") skipDepth--;
    if (skipDepth === 0) finish(undefined);
  };

  /** Feeds text to the tokenizer in pieces, checking the element being read against the limit. */
  const feed = (text: string): void => {
    for (let i = 0; i < text.length; i += PIECE) {
      const piece = i === 0 && text.length <= PIECE ? text : text.slice(i, i + PIECE);
      fed += piece.length;
      const out = tokenize(piece);
      if (typeof out !== "symbol") for (const t of out.values) onToken(t);
      if (element !== undefined && !element.tooLarge && fed - element.startFed > maxRecordChars) {
        // Drop what is assembled; keep counting depth until the element ends.
        element.tooLarge = true;
        skipDepth = stack.length;
        stack.length = 0;
        keys.length = 0;
        if (skipDepth === 0) finish(undefined);
      }
    }
  };

  let first = true;
  try {
    for await (const chunk of input) {
      const decoded = utf8.decode(chunk);
      let text = decoded.text;
      if (first && text.length > 0) {
        first = false;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      const shift = decoded.text.length - text.length;
      let from = 0;
      for (const f of decoded.faults) {
        // Up to the bad bytes, then note them on the element being read, then on.
        const cut = f.at - shift;
        feed(text.slice(from, cut));
        if (element !== undefined) element.fault ??= f.fault.bytes;
        else
          problem(
            "invalid_utf8",
            utf8Message(
              f.fault.bytes,
              `at byte ${f.fault.byte + 1} of the ${options.within ?? "input"}, outside any ${mode === "bundle" ? "entry" : "element"}`,
            ),
          );
        from = cut;
      }
      feed(from === 0 ? text : text.slice(from));
      for (const batch of ready.splice(0)) yield batchOf(batch);
    }
    const tail = utf8.decode(new Uint8Array(0), true);
    if (tail.faults.length > 0 && element !== undefined) element.fault ??= tail.faults[0]!.fault.bytes;
    feed(tail.text);
    let ended = true;
    try {
      const out = tokenize(END);
      if (typeof out !== "symbol") for (const t of out.values) onToken(t);
    } catch {
      ended = false;
    }
    if (!ended || at !== At.Top || element !== undefined) {
      problem("malformed_json", "malformed JSON: the input ends inside a value", element?.index);
    }
  } catch (err) {
    // The tokenizer cannot resynchronise after bad syntax: what was read stays mapped, the rest is one issue.
    const message = (err as Error).message.replace(/^Parser cannot parse input: /, "");
    const what = mode === "bundle" ? "entries" : "elements";
    problem(
      "malformed_json",
      `malformed JSON: ${message}; reading stopped there (${what} read: ${done})`,
      element?.index,
    );
  }
  for (const batch of ready.splice(0)) yield batchOf(batch);
  if (records.length > 0) yield batchOf(records);
}

/** A JSON number's digits as a value: integers beyond 2^53 as bigint, as the NDJSON reader does. */
function numberOf(text: string): number | bigint {
  const n = Number(text);
  if (Number.isSafeInteger(n) || !Number.isInteger(n)) return n;
  return /^-?\d+$/.test(text) ? BigInt(text) : n;
}

function isObject(value: unknown): value is SourceRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value === "bigint" ? "number" : typeof value}`;
}

function describeToken(t: Token): string {
  if (t.name === "stringValue") return "a string";
  if (t.name === "numberValue") return "a number";
  if (t.name === "nullValue") return "null";
  return "a boolean";
}
