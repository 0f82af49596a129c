// A message's transaction Bundle taken from the pipeline's text (`{"file":..,"message":N,"bundle":{..}}`, one
// line per message) without parsing it: each entry is the slice of the line it already is, and only what the
// writer needs (the Bundle's id, each entry's fullUrl and request) is read. Parsing each line whole and writing
// each entry out again cost the writer more CPU than anything else it does (profiled, bench/fhir-server.ts).
import { parseJson } from "../../pipeline/json.js";
import { type EntryRequest, messageOutgoing, type Outgoing } from "./bundles.js";
import { JsonScan } from "./json-scan.js";

/** One located message's transaction: the same as `messageBundle(bundle, "transaction", origin)` gives. */
export interface LocatedTransaction<O> {
  file: string;
  message: number;
  outgoing: Outgoing<O>;
  fullUrls: string[];
}

/**
 * Reads one located line. `origin` makes each entry's origin from the message's file and index. Throws a
 * SyntaxError when the line is not one JSON object of that shape, or is one the full parse reads otherwise
 * than a scan would (the caller parses it instead, and says what is wrong with it): every character is
 * checked as JSON.parse checks it, so that what is sent is valid JSON; and a key read here written twice in
 * one object (JSON.parse keeps the last), a `message` beyond 2^53 (parseJson makes it a bigint), a `file`
 * that is not a string, a `bundle` or an entry that is not an object, are left to the full parse.
 */
export function locatedTransaction<O>(
  line: string,
  origin: (file: string, message: number) => O,
): LocatedTransaction<O> {
  const scan = new JsonScan(line);
  let file: string | undefined;
  let message: number | undefined;
  let bundle: Read | undefined;
  const end = scan.members(scan.ws(0), (key, at) => {
    if (key === "file") {
      if (file !== undefined) throw twice(key);
      const e = scan.stringEnd(at);
      file = JSON.parse(line.slice(at, e)) as string;
      return e;
    }
    if (key === "message") {
      if (message !== undefined) throw twice(key);
      const e = scan.numberEnd(at);
      const n = parseJson(line.slice(at, e));
      if (typeof n !== "number") throw new SyntaxError("a message number beyond 2^53");
      message = n;
      return e;
    }
    if (key === "bundle") {
      if (bundle !== undefined) throw twice(key);
      const b: Read = { entries: [], requests: [], fullUrls: [] };
      bundle = b;
      let seen = 0;
      return scan.members(at, (k, v) => {
        if (k === "id") {
          seen = once(seen, 1, k);
          if (line.charCodeAt(v) !== QUOTE) return scan.valueEnd(v);
          const e = scan.stringEnd(v);
          b.id = JSON.parse(line.slice(v, e)) as string;
          return e;
        }
        if (k === "entry") {
          seen = once(seen, 2, k);
          return entries(scan, v, b);
        }
        return scan.valueEnd(v);
      });
    }
    return scan.valueEnd(at);
  });
  if (scan.ws(end) !== line.length || file === undefined || message === undefined || bundle === undefined)
    throw new SyntaxError("not a located Bundle line");
  const b = bundle as Read;
  const outgoing = messageOutgoing("transaction", b.entries, b.requests, origin(file, message), b.id);
  return { file, message, outgoing, fullUrls: b.fullUrls };
}

/** What is read of the Bundle. */
interface Read {
  id?: string;
  entries: string[];
  requests: EntryRequest[];
  fullUrls: string[];
}

/** The entry array at `at`: each entry's text, request and fullUrl; returns where the array ends. */
function entries(scan: JsonScan, at: number, b: Read): number {
  const line = scan.text;
  if (line.charCodeAt(at) !== 91 /* [ */) return scan.valueEnd(at);
  let i = scan.ws(at + 1);
  if (line.charCodeAt(i) === 93 /* ] */) return i + 1;
  for (;;) {
    if (line.charCodeAt(i) !== 123 /* { */) throw new SyntaxError("an entry that is not an object");
    let request: EntryRequest = {};
    let seen = 0;
    const end = scan.members(i, (k, v) => {
      if (k === "fullUrl") {
        seen = once(seen, 1, k);
        if (line.charCodeAt(v) !== QUOTE) return scan.valueEnd(v);
        const e = scan.stringEnd(v);
        b.fullUrls.push(JSON.parse(line.slice(v, e)) as string);
        return e;
      }
      const e = scan.valueEnd(v);
      if (k === "request") {
        seen = once(seen, 2, k);
        // The request is a few dozen bytes: parsed as it is, as the full parse does (its numbers included).
        if (line.charCodeAt(v) === 123) request = parseJson(line.slice(v, e)) as EntryRequest;
      }
      return e;
    });
    b.entries.push(line.slice(i, end));
    b.requests.push(request);
    i = scan.ws(end);
    const c = line.charCodeAt(i);
    if (c === 93 /* ] */) return i + 1;
    if (c !== 44 /* , */) throw new SyntaxError("expected , or ] after an entry");
    i = scan.ws(i + 1);
  }
}

const QUOTE = 34;

const twice = (key: string) => new SyntaxError(`"${key}" twice in one object`);

/** `seen` with `bit` set; throws when it was already (the key it stands for is written twice). */
function once(seen: number, bit: number, key: string): number {
  if ((seen & bit) !== 0) throw twice(key);
  return seen | bit;
}
