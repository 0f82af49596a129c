// A message's transaction Bundle taken from the pipeline's text (`{"file":..,"message":N,"bundle":{..}}`, one
// line per message) without parsing it: each entry is the slice of the line it already is, and only what the
// writer needs (the Bundle's id, each entry's fullUrl and request) is read. Parsing each line whole and writing
// each entry out again cost the writer more CPU than anything else it does (profiled, bench/fhir-server.ts).
import { type EntryRequest, messageOutgoing, type Outgoing } from "./bundles.js";

/** One located message's transaction: the same as `messageBundle(bundle, "transaction", origin)` gives. */
export interface LocatedTransaction<O> {
  file: string;
  message: number;
  outgoing: Outgoing<O>;
  fullUrls: string[];
}

/**
 * Reads one located line. `origin` makes each entry's origin from the message's file and index. Throws a
 * SyntaxError when the line is not one JSON object of that shape (the caller parses it instead, and says
 * what is wrong with it).
 */
export function locatedTransaction<O>(
  line: string,
  origin: (file: string, message: number) => O,
): LocatedTransaction<O> {
  let file: string | undefined;
  let message: number | undefined;
  let bundle: { id?: string; entries: string[]; requests: EntryRequest[]; fullUrls: string[] } | undefined;
  const end = members(line, ws(line, 0), (key, at) => {
    if (key === "file") {
      const e = stringEnd(line, at);
      file = JSON.parse(line.slice(at, e)) as string;
      return e;
    }
    if (key === "message") {
      const e = valueEnd(line, at);
      message = Number(line.slice(at, e));
      return e;
    }
    if (key === "bundle") {
      const b: NonNullable<typeof bundle> = { entries: [], requests: [], fullUrls: [] };
      bundle = b;
      return members(line, at, (k, v) => {
        if (k === "id" && line.charCodeAt(v) === QUOTE) {
          const e = stringEnd(line, v);
          b.id = JSON.parse(line.slice(v, e)) as string;
          return e;
        }
        return k === "entry" ? entries(line, v, b) : valueEnd(line, v);
      });
    }
    return valueEnd(line, at);
  });
  if (ws(line, end) !== line.length || file === undefined || message === undefined || bundle === undefined)
    throw new SyntaxError("not a located Bundle line");
  const b = bundle as NonNullable<typeof bundle>;
  const outgoing = messageOutgoing("transaction", b.entries, b.requests, origin(file, message), b.id);
  return { file, message, outgoing, fullUrls: b.fullUrls };
}

/** The entry array at `at`: each entry's text, request and fullUrl; returns where the array ends. */
function entries(
  line: string,
  at: number,
  b: { entries: string[]; requests: EntryRequest[]; fullUrls: string[] },
): number {
  if (line.charCodeAt(at) !== 91 /* [ */) return valueEnd(line, at);
  let i = ws(line, at + 1);
  if (line.charCodeAt(i) === 93 /* ] */) return i + 1;
  for (;;) {
    if (line.charCodeAt(i) !== 123 /* { */) throw new SyntaxError("an entry that is not an object");
    let request: EntryRequest = {};
    const end = members(line, i, (k, v) => {
      if (k === "fullUrl" && line.charCodeAt(v) === QUOTE) {
        const e = stringEnd(line, v);
        b.fullUrls.push(JSON.parse(line.slice(v, e)) as string);
        return e;
      }
      const e = valueEnd(line, v);
      // The request is a few dozen bytes: parsed as it is.
      if (k === "request" && line.charCodeAt(v) === 123)
        request = JSON.parse(line.slice(v, e)) as EntryRequest;
      return e;
    });
    b.entries.push(line.slice(i, end));
    b.requests.push(request);
    i = ws(line, end);
    const c = line.charCodeAt(i);
    if (c === 93 /* ] */) return i + 1;
    if (c !== 44 /* , */) throw new SyntaxError("expected , or ] after an entry");
    i = ws(line, i + 1);
  }
}

const QUOTE = 34;

/** Calls `on` with each member's key and where its value starts; `on` returns where the value ends. */
function members(line: string, at: number, on: (key: string, value: number) => number): number {
  if (line.charCodeAt(at) !== 123 /* { */) throw new SyntaxError("expected an object");
  let i = ws(line, at + 1);
  if (line.charCodeAt(i) === 125 /* } */) return i + 1;
  for (;;) {
    if (line.charCodeAt(i) !== QUOTE) throw new SyntaxError("expected a key");
    const keyEnd = stringEnd(line, i);
    // A key with an escape is decoded (none of the wanted ones has one, but it must not be mistaken for one).
    const raw = line.slice(i + 1, keyEnd - 1);
    const key = raw.includes("\\") ? (JSON.parse(line.slice(i, keyEnd)) as string) : raw;
    i = ws(line, keyEnd);
    if (line.charCodeAt(i) !== 58 /* : */) throw new SyntaxError("expected :");
    i = ws(line, on(key, ws(line, i + 1)));
    const c = line.charCodeAt(i);
    if (c === 125 /* } */) return i + 1;
    if (c !== 44 /* , */) throw new SyntaxError("expected , or }");
    i = ws(line, i + 1);
  }
}

/** Where the string starting at `at` (its opening quote) ends, past its closing quote. */
function stringEnd(line: string, at: number): number {
  let from = at + 1;
  for (;;) {
    const q = line.indexOf('"', from);
    if (q < 0) throw new SyntaxError("unterminated string");
    let slashes = 0;
    while (line.charCodeAt(q - 1 - slashes) === 92 /* \ */) slashes++;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** Where the value starting at `at` ends: a string, an object or array (nested), or a number or literal. */
function valueEnd(line: string, at: number): number {
  const c = line.charCodeAt(at);
  if (c === QUOTE) return stringEnd(line, at);
  if (c === 123 || c === 91 /* { [ */) {
    let depth = 0;
    for (let i = at; i < line.length; i++) {
      const d = line.charCodeAt(i);
      if (d === QUOTE) i = stringEnd(line, i) - 1;
      else if (d === 123 || d === 91) depth++;
      else if (d === 125 || d === 93) {
        if (--depth === 0) return i + 1;
      }
    }
    throw new SyntaxError("unterminated object or array");
  }
  let i = at;
  for (; i < line.length; i++) {
    const d = line.charCodeAt(i);
    if (d === 44 || d === 125 || d === 93 || d <= 32) break;
  }
  if (i === at) throw new SyntaxError("expected a value");
  return i;
}

/** Past any whitespace at `at`. */
function ws(line: string, at: number): number {
  let i = at;
  while (i < line.length && line.charCodeAt(i) <= 32) i++;
  return i;
}
