// Optimistic concurrency: parsing If-Match and refusing a change made against a stale version.
import { AppError } from "../errors.js";

/** `undefined` when the header is absent: then the change is unconditional, as the spec's clients expect. */
export type IfMatch = { raw: string; any: boolean; versions: number[] } | undefined;

export const etagOf = (version: number): string => `"${version}"`;

export function parseIfMatch(header: string | undefined): IfMatch {
  if (header === undefined || header.trim() === "") return undefined;
  const tags = header.split(",").map((t) => t.trim());
  const versions: number[] = [];
  for (const tag of tags) {
    // Weak tags are accepted too: our versions are exact either way.
    const m = /^(?:W\/)?"?(\d+)"?$/.exec(tag);
    if (m) versions.push(Number(m[1]));
  }
  return { raw: header, any: tags.includes("*"), versions };
}

/** Throws 412 unless the header is absent, `*`, or names `current`. */
export function checkIfMatch(ifMatch: IfMatch, current: number, what: string): void {
  if (ifMatch === undefined || ifMatch.any || ifMatch.versions.includes(current)) return;
  throw new AppError(
    412,
    "precondition_failed",
    `${what} is at version ${current}; If-Match ${ifMatch.raw} is stale, fetch the item and review again`,
  );
}
