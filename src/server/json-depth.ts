// JSON request text to a value: the nesting depth is checked before parsing (a body of 800,000 nested
// objects takes JSON.parse seconds, and its value overflows the stack of whatever walks it), and a syntax
// error becomes the API's 422. Used on the event loop and in the cross-mapping workers alike.
import { AppError } from "../errors.js";

/** Deepest nesting of objects and arrays accepted in a request body (the body itself is level 1). */
export const MAX_JSON_DEPTH = 100;

/** The position of the first `[` or `{` nested deeper than `max`, or -1. Strings are skipped whole. */
export function depthExceededAt(text: string, max = MAX_JSON_DEPTH): number {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // To the closing quote: one not preceded by an odd number of backslashes.
      let j = text.indexOf('"', i + 1);
      while (j > 0) {
        let slashes = 0;
        while (text.charCodeAt(j - 1 - slashes) === 0x5c) slashes++;
        if (slashes % 2 === 0) break;
        j = text.indexOf('"', j + 1);
      }
      if (j < 0) return -1; // unterminated: JSON.parse reports it
      i = j;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}

/** 422 for a body nested deeper than the limit, located like a JSON syntax error (at its character). */
export function checkJsonDepth(text: string): void {
  const at = depthExceededAt(text);
  if (at < 0) return;
  throw new AppError(422, "validation_error", "Invalid request", [
    {
      path: ["body", at],
      message: `JSON nested more than ${MAX_JSON_DEPTH} levels deep (the limit)`,
      code: "value_error.jsondecode.depth",
    },
  ]);
}

/** The 422 for text JSON.parse refused, at the character position the parser names. */
export function invalidJson(err: unknown): AppError {
  // JSON.parse reports where it gave up; the wording differs between Node versions, the position does not.
  const at = /position (\d+)/.exec((err as { message?: string }).message ?? "");
  return new AppError(422, "validation_error", "Invalid request", [
    {
      path: at ? ["body", Number(at[1])] : ["body"],
      message: "Invalid JSON",
      code: "value_error.jsondecode",
    },
  ]);
}
