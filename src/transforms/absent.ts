// What counts as no value, one rule for the mapper, conditions (`present`), key parts and the transforms
// that read other fields: undefined, null, "" and a string of whitespace only ("   " from a fixed-width
// export, a lone NBSP), which no target holds as a value (a FHIR string needs a character that is not
// whitespace; an OMOP source value of spaces says nothing).

/** A string with no character that is not whitespace (as String.prototype.trim counts whitespace). */
export function isBlank(s: string): boolean {
  if (s.length === 0) return true;
  const c = s.charCodeAt(0);
  // Most values start with a printable ASCII character: no trim for them.
  if (c > 32 && c < 0xa0) return false;
  return s.trim() === "";
}

export const isAbsent = (v: unknown): boolean =>
  v === undefined || v === null || (typeof v === "string" && isBlank(v));

/**
 * The narrower rule of the combinators and list transforms: undefined, null or "" (a string of spaces is
 * still a value there: the transform it is handed to decides).
 */
export const isUnset = (v: unknown): boolean => v === undefined || v === null || v === "";
