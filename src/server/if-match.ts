// Optimistic concurrency: parsing If-Match and refusing a change made against a stale version.
import { AppError, type Problem } from "../errors.js";

/** `undefined` when the header is absent: then the change is unconditional, as the spec's clients expect. */
export type IfMatch = { raw: string; any: boolean; versions: number[] } | undefined;

export const etagOf = (version: number): string => `"${version}"`;

/**
 * The header's entity tags, or the 422 entry for a header that is not a list of them (`banana`), which
 * would otherwise be reported as a stale version. Tags are `*`, `"3"` or `W/"3"` (RFC 9110), and a bare
 * `3` is accepted too; a well-formed tag that is not one of our versions (`"abc"`) is simply stale (412).
 */
export function parseIfMatch(header: string | undefined): IfMatch | { problem: Problem } {
  if (header === undefined || header.trim() === "") return undefined;
  const tags = header.split(",").map((t) => t.trim());
  const versions: number[] = [];
  for (const tag of tags) {
    if (tag === "*") continue;
    // Weak tags are accepted too: our versions are exact either way.
    const m = /^(?:(?:W\/)?"([\x21\x23-\x7e]*)"|(\d+))$/.exec(tag);
    if (!m) {
      return {
        problem: {
          path: ["header", "if-match"],
          message: `If-Match must be * or entity tags such as "3" (the item's version, as its ETag shows it); got ${JSON.stringify(header.slice(0, 100))}`,
          code: "value_error.if_match",
        },
      };
    }
    const digits = m[1] ?? m[2] ?? "";
    if (/^\d{1,15}$/.test(digits)) versions.push(Number(digits));
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
