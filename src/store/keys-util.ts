// Key layout and clock helpers shared by the stores: composite string keys and the two timestamp forms.

// Ids and natural-key parts are validated to contain no control characters, so the unit separator can
// join the parts of a composite key and a prefix range is [prefix + US, prefix + space). Not NUL: lmdb's
// ordered-binary key encoding gives NUL a meaning of its own.
const SEP = "\u001f";

/** Longest id or natural-key part the server accepts (UTF-16 code units); validated at the API. */
export const MAX_ID_LENGTH = 200;

/**
 * Whether `s` could be an id or key part of something stored: what the API accepts (1-200 characters, no
 * control character, no lone UTF-16 surrogate). Anything else names nothing, and is not looked up: a
 * few KB of id does not even fit in an LMDB key.
 */
export const isStorableId = (s: string): boolean =>
  s.length >= 1 && s.length <= MAX_ID_LENGTH && !/[\p{Cc}\p{Cs}]/u.test(s);

export const compositeKey = (...parts: string[]): string => parts.join(SEP);

export function prefixRange(...parts: string[]): { start: string; end: string } {
  const prefix = parts.join(SEP);
  return { start: prefix + SEP, end: prefix + "\u0020" };
}

/** Server timestamps (updated_at, audit events): UTC with milliseconds, so events sort and compare. */
export const nowIso = (): string => new Date().toISOString();

/** Run timestamps as the spec shows them: ISO 8601 without zone suffix, whole seconds, UTC. */
export const runTimestamp = (d: Date = new Date()): string => d.toISOString().slice(0, 19);
