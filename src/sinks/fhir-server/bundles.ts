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
}

export function bundleText(o: Outgoing<unknown>): string {
  const id = o.id !== undefined ? `"id":${JSON.stringify(o.id)},` : "";
  return `{"resourceType":"Bundle",${id}"type":"${o.type}","entry":[${o.entries.join(",")}]}`;
}

export type ResourceEntry =
  | { entry: string; request: string; key: string | undefined; idless: boolean }
  | { problem: string };

/**
 * One NDJSON line of resources as a batch entry: `PUT Type/id` (an update that creates the resource when the
 * server does not hold it yet), or `POST Type` for a resource without an id (`idless`: sending it again
 * makes another one).
 */
export function resourceEntry(line: string): ResourceEntry {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (err) {
    return { problem: `not JSON: ${(err as Error).message}` };
  }
  const r = parsed as { resourceType?: unknown; id?: unknown } | null;
  if (r === null || typeof r !== "object" || Array.isArray(r) || typeof r.resourceType !== "string") {
    return { problem: "not a FHIR resource: it has no resourceType" };
  }
  const type = r.resourceType;
  if (typeof r.id === "string" && r.id !== "") {
    const url = `${type}/${r.id}`;
    return { entry: entryText(line, "PUT", url), request: `PUT ${url}`, key: url, idless: false };
  }
  return { entry: entryText(line, "POST", type), request: `POST ${type}`, key: undefined, idless: true };
}

const entryText = (resource: string, method: string, url: string): string =>
  `{"resource":${resource},"request":{"method":"${method}","url":${JSON.stringify(url)}}}`;

interface BundleEntryLike {
  fullUrl?: string;
  resource?: Record<string, unknown>;
  request?: { method?: string; url?: string; ifNoneExist?: string };
}

/** What an entry writes, for ordering: its URL, with the If-None-Exist query of a conditional create. */
function keyOf(request: BundleEntryLike["request"]): string | undefined {
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
): { outgoing: Outgoing<O>; unresolved: string[] } {
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
  const outgoing: Outgoing<O> = {
    type: as,
    entries: texts,
    requests: entries.map((e) => `${e.request?.method ?? "?"} ${e.request?.url ?? "?"}`),
    origins: entries.map(() => origin),
    keys: entries.map((e) => keyOf(e.request)).filter((k): k is string => k !== undefined),
  };
  if (typeof bundle.id === "string") outgoing.id = bundle.id;
  return { outgoing, unresolved };
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
