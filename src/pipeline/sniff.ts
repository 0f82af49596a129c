// Looks at the start of a JSON input to tell one record (or Bundle) per line from one document spread
// over many lines, without consuming it: the chunks read come back first when the input is iterated.

import { delimiterOf } from "./csv-rows.js";

/** Read at most this much to find the end of the first non-blank line. */
const SNIFF_BYTES = 1 << 20;

export interface Sniffed {
  /** The whole input, the sniffed chunks first. */
  input: AsyncIterable<Uint8Array>;
  /**
   * `document`: the first non-blank line opens an object or array it does not close, so the input is one
   * JSON document over several lines (pretty-printed), not NDJSON. `lines`: the first line is whole.
   * `unknown`: no line end within the first megabyte (one long line: a minified document, or NDJSON with
   * a long first record).
   */
  shape: "document" | "lines" | "unknown";
  /** The document's first character: `{` or `[`, when it starts with one. */
  opens: "{" | "[" | undefined;
  /** Whether the bytes read name `"resourceType": "Bundle"`. */
  bundle: boolean;
  /** The start of the first non-blank line (at most 512 bytes, line end left out), for hints. */
  firstLine: string;
}

export async function sniffJson(source: AsyncIterable<Uint8Array>): Promise<Sniffed> {
  const iterator = source[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let bytes = 0;
  let done = false;
  let verdict: { shape: Sniffed["shape"]; opens: Sniffed["opens"] } | undefined;
  while (verdict === undefined) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    head.push(next.value);
    bytes += next.value.length;
    verdict = firstLine(Buffer.concat(head, bytes));
    if (verdict === undefined && bytes >= SNIFF_BYTES) verdict = { shape: "unknown", opens: undefined };
  }
  const text = Buffer.concat(head, bytes);
  verdict ??= firstLine(text, true) ?? { shape: "lines", opens: undefined };
  const bundle = /"resourceType"\s*:\s*"Bundle"/.test(text.subarray(0, 64 * 1024).toString("latin1"));
  async function* input(): AsyncGenerator<Uint8Array> {
    yield* head;
    if (done) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { input: input(), shape: verdict.shape, opens: verdict.opens, bundle, firstLine: lineStart(text) };
}

/** Where the first non-blank line of `b` starts (after blank lines, spaces and a leading BOM). */
function firstNonBlank(b: Uint8Array): number {
  let i = 0;
  while (i < b.length && (b[i] === 0x20 || b[i] === 0x09 || b[i] === 0x0d || b[i] === 0x0a)) i++;
  if (i + 2 < b.length && b[i] === 0xef && b[i + 1] === 0xbb && b[i + 2] === 0xbf) i += 3;
  return i;
}

/** The first non-blank line of `b` (a leading BOM left out), cut at 512 bytes. */
function lineStart(b: Uint8Array): string {
  const i = firstNonBlank(b);
  let end = i;
  while (end < b.length && end - i < 512 && b[end] !== 0x0a && b[end] !== 0x0d) end++;
  return Buffer.from(b.buffer, b.byteOffset + i, end - i).toString("utf8");
}

/** A CSV or TSV header row: two or more names (letters, digits, `_`, `.`, `-`, spaces; quoted or not). */
const HEADER_NAME = /^"?[A-Za-z_][\w .-]*"?$/;

export function looksLikeCsvHeader(line: string): boolean {
  const names = line.split(String.fromCharCode(delimiterOf(line)));
  return names.length >= 2 && names.every((n) => HEADER_NAME.test(n.trim()));
}

/**
 * The shape told by the first non-blank line of `b`, or undefined when that line does not end within `b`
 * (and `final` is false). Brackets are counted outside strings only.
 */
function firstLine(
  b: Uint8Array,
  final = false,
): { shape: Sniffed["shape"]; opens: Sniffed["opens"] } | undefined {
  let i = firstNonBlank(b);
  if (i >= b.length) return final ? { shape: "lines", opens: undefined } : undefined;
  const opens = b[i] === 0x7b ? "{" : b[i] === 0x5b ? "[" : undefined;
  let depth = 0;
  let inString = false;
  for (; i < b.length; i++) {
    const c = b[i]!;
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x0a) return { shape: depth > 0 && opens ? "document" : "lines", opens };
  }
  // One line with no end: a document or a record, it reads the same either way.
  return final ? { shape: "lines", opens } : undefined;
}
