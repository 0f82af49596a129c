// The Bundles the FHIR server writer sends: batch Bundles of `PUT Type/id` made of resources (NDJSON
// output), and the transaction Bundles the HL7 v2 path makes, sent as they are or turned into batch
// Bundles. Entries stay JSON text: a resource is never parsed and written again, so what the pipeline wrote
// (64-bit integers included) is what the server gets.
import { stringifyJson } from "../../pipeline/json.js";

export interface Outgoing<O> {
  type: "transaction" | "batch";
  /** The Bundle's id (a message's), kept for the server's logs. */
  id?: string;
  /** Each entry as JSON text. */
  entries: string[];
  /** Each entry's request, `PUT Patient/1`, named in issues. */
  requests: string[];
  /** Where each entry came from, for issues (a transaction's entries all name its message). */
  origins: O[];
  /** What the Bundle writes (`Patient/1`, `Patient?identifier=...`): Bundles sharing one go in order. */
  keys: string[];
  /**
   * The messages' own transactions when this one is several merged (merge.ts): a transaction is all or
   * nothing, so when the server refuses the merged one each is sent again alone, to name the one it refuses.
   */
  parts?: Outgoing<O>[];
}

const bundleHead = (o: Outgoing<unknown>): string =>
  `{"resourceType":"Bundle",${o.id !== undefined ? `"id":${JSON.stringify(o.id)},` : ""}"type":"${o.type}","entry":[`;

/**
 * The Bundle as the UTF-8 bytes that go out, written entry by entry into one buffer: joining the entries
 * made a string of the whole Bundle (150 kB for 100 OMOP resources, a large-object allocation), which was
 * then scanned for its length and encoded again; this took 40% less CPU (profiled, bench/fhir-server.ts).
 */
export function bundleBody(o: Outgoing<unknown>): Buffer {
  const head = bundleHead(o);
  const n = o.entries.length;
  let size = Buffer.byteLength(head) + Math.max(0, n - 1) + 2;
  for (let i = 0; i < n; i++) size += Buffer.byteLength(o.entries[i] as string);
  const buf = Buffer.allocUnsafe(size);
  let at = buf.write(head, 0);
  for (let i = 0; i < n; i++) {
    if (i > 0) buf[at++] = 44; // ,
    at += buf.write(o.entries[i] as string, at);
  }
  buf[at++] = 93; // ]
  buf[at++] = 125; // }
  return buf;
}

export type ResourceEntry =
  | {
      entry: string;
      request: string;
      /** The resource type, and the request's URL (`Patient/1`, or `Patient` for a POST): its origin. */
      type: string;
      url: string;
      key: string | undefined;
      idless: boolean;
    }
  | { problem: string };

/**
 * One NDJSON line of resources as a batch entry: `PUT Type/id` (an update that creates the resource when the
 * server does not hold it yet), or `POST Type` for a resource without an id (`idless`: sending it again
 * makes another one).
 */
export function resourceEntry(line: string): ResourceEntry {
  const r = topLevelStrings(line) ?? parseTop(line);
  if ("problem" in r) return r;
  if (typeof r.resourceType !== "string") return { problem: "not a FHIR resource: it has no resourceType" };
  const type = r.resourceType;
  if (typeof r.id === "string" && r.id !== "") {
    const url = `${type}/${r.id}`;
    return { entry: entryText(line, "PUT", url), request: `PUT ${url}`, type, url, key: url, idless: false };
  }
  return {
    entry: entryText(line, "POST", type),
    request: `POST ${type}`,
    type,
    url: type,
    key: undefined,
    idless: true,
  };
}

type Top = { resourceType?: unknown; id?: unknown } | { problem: string };

function parseTop(line: string): Top {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (err) {
    return { problem: `not JSON: ${(err as Error).message}` };
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return { problem: "not a FHIR resource: it has no resourceType" };
  }
  return parsed as { resourceType?: unknown; id?: unknown };
}

/**
 * `resourceType` and `id` of a resource line, read by scanning its top level instead of parsing it whole:
 * the writer needs nothing else, and parsing every resource cost as much CPU as the server's own parse
 * (profiled: 0.5 s of 5.5 s sending 5,000 OMOP resources in-process). Undefined when the line is not the
 * plain shape the pipeline writes (a string with escapes, or not an object): the caller parses it. The
 * pipeline's own output is valid JSON, so the scan stops once it has both.
 */
function topLevelStrings(line: string): { resourceType?: string; id?: string } | undefined {
  // An escape anywhere: the plain scan cannot tell where its string ends; parse instead (rare).
  if (line.indexOf("\\") >= 0) return undefined;
  const n = line.length;
  let i = 0;
  while (i < n && line.charCodeAt(i) <= 32) i++;
  if (line.charCodeAt(i) !== 123 /* { */) return undefined;
  let depth = 0;
  let out: { resourceType?: string; id?: string } | undefined;
  let key: "resourceType" | "id" | undefined;
  let expectKey = false;
  for (; i < n; i++) {
    const c = line.charCodeAt(i);
    if (c === 34 /* " */) {
      const end = line.indexOf('"', i + 1);
      if (end < 0) return undefined;
      if (depth === 1) {
        // Only the two values wanted are sliced out: every other key and value is passed over in place
        // (slicing each was a third of the scan's cost).
        if (expectKey) key = keyAt(line, i + 1, end);
        else if (key !== undefined) {
          out ??= {};
          out[key] = line.slice(i + 1, end);
          if (out.resourceType !== undefined && out.id !== undefined) return out;
        }
      }
      i = end;
    } else if (c === 123 || c === 91 /* { [ */) {
      depth++;
      expectKey = c === 123 && depth === 1;
    } else if (c === 125 || c === 93 /* } ] */) {
      depth--;
      if (depth === 0) return out ?? {};
    } else if (depth === 1) {
      if (c === 58 /* : */) expectKey = false;
      else if (c === 44 /* , */) expectKey = true;
    }
  }
  return undefined;
}

/** `resourceType` or `id` when the key between `from` and `to` in `line` is one of them. */
function keyAt(line: string, from: number, to: number): "resourceType" | "id" | undefined {
  if (to - from === 2)
    return line.charCodeAt(from) === 105 && line.charCodeAt(from + 1) === 100 ? "id" : undefined;
  return to - from === 12 && line.startsWith("resourceType", from) ? "resourceType" : undefined;
}

const entryText = (resource: string, method: string, url: string): string =>
  `{"resource":${resource},"request":{"method":"${method}","url":${JSON.stringify(url)}}}`;

interface BundleEntryLike {
  fullUrl?: string;
  resource?: Record<string, unknown>;
  request?: { method?: string; url?: string; ifNoneExist?: string };
}

export type EntryRequest = BundleEntryLike["request"];

/** What an entry writes, for ordering: its URL, with the If-None-Exist query of a conditional create. */
function keyOf(request: EntryRequest): string | undefined {
  if (!request?.url) return undefined;
  if (request.method === "POST")
    return request.ifNoneExist ? `${request.url}?${request.ifNoneExist}` : undefined;
  return request.url;
}

/**
 * A transaction Bundle made of one message, to send as it is (`transaction`) or as a batch. A batch does not
 * resolve references between its entries (FHIR http.html#brules), so each `urn:uuid:` reference to an entry
 * written with `PUT Type/id` becomes `Type/id`; a reference to an entry the server names (POST, conditional
 * PUT) cannot be, and is returned in `unresolved` (the message cannot be sent as a batch).
 */
export function messageBundle<O>(
  bundle: Record<string, unknown>,
  as: "transaction" | "batch",
  origin: O,
): { outgoing: Outgoing<O>; unresolved: string[]; fullUrls: string[] } {
  const entries = (Array.isArray(bundle.entry) ? bundle.entry : []) as BundleEntryLike[];
  const unresolved: string[] = [];
  let texts: string[];
  if (as === "batch") {
    const local = new Map<string, string>();
    const named = new Set<string>();
    for (const e of entries) {
      if (!e.fullUrl?.startsWith("urn:")) continue;
      const url = e.request?.url ?? "";
      if (e.request?.method === "PUT" && /^[A-Za-z]+\/[^/?]+$/.test(url)) local.set(e.fullUrl, url);
      else named.add(e.fullUrl);
    }
    texts = entries.map((e) => {
      const resource = e.resource === undefined ? undefined : rewrite(e.resource, local, named, unresolved);
      return stringifyJson(resource === undefined ? e : { ...e, resource });
    });
  } else texts = entries.map((e) => stringifyJson(e));
  const id = typeof bundle.id === "string" ? bundle.id : undefined;
  const requests = entries.map((e) => e.request);
  const outgoing = messageOutgoing(as, texts, requests, origin, id);
  const fullUrls: string[] = [];
  for (const e of entries) if (typeof e.fullUrl === "string") fullUrls.push(e.fullUrl);
  return { outgoing, unresolved, fullUrls };
}

/** One message's Outgoing: its entries' texts, how each is named, what each writes, all from `origin`. */
export function messageOutgoing<O>(
  type: "transaction" | "batch",
  entries: string[],
  requests: readonly EntryRequest[],
  origin: O,
  id: string | undefined,
): Outgoing<O> {
  const outgoing: Outgoing<O> = {
    type,
    entries,
    requests: requests.map((r) => `${r?.method ?? "?"} ${r?.url ?? "?"}`),
    origins: entries.map(() => origin),
    keys: requests.map(keyOf).filter((k): k is string => k !== undefined),
  };
  if (id !== undefined) outgoing.id = id;
  return outgoing;
}

/** A copy of `node` with its references to local entries rewritten (only what changes is copied). */
function rewrite(
  node: Record<string, unknown>,
  local: Map<string, string>,
  named: Set<string>,
  unresolved: string[],
): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(node)) {
    let next: unknown = v;
    if (k === "reference" && typeof v === "string") {
      const to = local.get(v);
      if (to !== undefined) next = to;
      else if (named.has(v)) unresolved.push(v);
    } else if (Array.isArray(v)) {
      const items = v.map((x) => (isObject(x) ? rewrite(x, local, named, unresolved) : x));
      if (items.some((x, i) => x !== v[i])) next = items;
    } else if (isObject(v)) next = rewrite(v, local, named, unresolved);
    if (next !== v) {
      out ??= { ...node };
      out[k] = next;
    }
  }
  return out ?? node;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);
