// One FHIR Bundle entry as the record to map. Transaction and batch Bundles create resources without an
// `id`: the entry's `fullUrl` (`urn:uuid:...`) names the resource, and the other entries' references use
// it. Such a resource is mapped with the id its fullUrl gives, so its rows get their keys and the references
// to it resolve to the same key (stable-id.ts reads `urn:uuid:X` and `Patient/X` alike). An entry without a
// resource (a DELETE, a GET, a conditional request) is not a record: it is named and skipped, not failed.
import type { SourceRecord } from "../crossmap/types.js";

export type EntryRecord =
  | { resource: SourceRecord }
  /** An entry that is a request only: the warning that names it. */
  | { request: string; method: string }
  | { problem: string };

/** A JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `urn:uuid:` and `urn:oid:` fullUrls, read as references to them are (stable-id.ts idPart). */
const URN = /^urn:(?:uuid:([0-9a-fA-F-]{36})|oid:([0-2](?:\.(?:0|[1-9][0-9]*))+))$/i;
/** `[base/]Type/id[/_history/v]`: the id of a RESTful fullUrl. */
const RESTFUL = /(?:^|\/)([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})(?:\/_history\/[A-Za-z0-9\-.]{1,64})?$/;

/** The id `fullUrl` gives a resource of type `type`, or undefined. */
export function idFromFullUrl(fullUrl: unknown, type: unknown): string | undefined {
  if (typeof fullUrl !== "string") return undefined;
  const urn = URN.exec(fullUrl);
  if (urn) return urn[1] ?? urn[2];
  const rest = RESTFUL.exec(fullUrl);
  return rest && rest[1] === type ? rest[2] : undefined;
}

export function entryRecord(entry: unknown): EntryRecord {
  if (!isPlainObject(entry)) return { problem: "entry has no resource object" };
  const resource = entry.resource;
  if (isPlainObject(resource)) {
    if (resource.id === undefined) {
      // A PUT names the resource's id in its url (`Patient/123`); anything else by its fullUrl.
      const request = entry.request;
      const put =
        isPlainObject(request) && request.method === "PUT" && typeof request.url === "string"
          ? idFromFullUrl(request.url, resource.resourceType)
          : undefined;
      const id = put ?? idFromFullUrl(entry.fullUrl, resource.resourceType);
      if (id !== undefined) resource.id = id;
    }
    return { resource };
  }
  const request = entry.request;
  if (resource === undefined && isPlainObject(request) && typeof request.method === "string") {
    const url = typeof request.url === "string" ? ` ${request.url}` : "";
    return {
      method: request.method,
      request: `a ${request.method}${url} request without a resource: nothing to map, left out`,
    };
  }
  return { problem: "entry has no resource object" };
}
