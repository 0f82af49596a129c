// A request body that is not valid UTF-8 is a 422 naming each field (or key) the bad bytes are in, never
// text with U+FFFD in it (a pushed id stored as "sm\uFFFD" answered 200 before). The bytes are decoded
// with each bad byte marked (utf8.ts `decodeMarked`), parsed, and the marked strings are located.
import { AppError, type Problem } from "../errors.js";
import { decodeMarked, markedBytes } from "../pipeline/utf8.js";
import { checkJsonDepth } from "./json-depth.js";

/** Most fields one answer names. */
const MAX_PROBLEMS = 100;

/** The body's text (without a byte order mark), and whether bad bytes were marked in it. */
export function decodeBody(bytes: Uint8Array): { text: string; marked: boolean } {
  const { text, marked } = decodeMarked(bytes);
  return { text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, marked };
}

const problem = (path: (string | number)[], bytes: string): Problem => ({
  path: ["body", ...path],
  message: `invalid UTF-8 (${bytes}); the body must be UTF-8`,
  code: "value_error.utf8",
});

/** Where in a parsed body the marked strings are: values by their path, keys at the key. */
export function markedProblems(value: unknown): Problem[] {
  const found: Problem[] = [];
  const walk = (v: unknown, path: (string | number)[]): void => {
    if (found.length >= MAX_PROBLEMS) return;
    if (typeof v === "string") {
      const bytes = markedBytes(v);
      if (bytes !== undefined) found.push(problem(path, bytes));
      return;
    }
    if (Array.isArray(v)) {
      for (const [i, x] of v.entries()) walk(x, [...path, i]);
      return;
    }
    if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        const bytes = markedBytes(k);
        if (bytes !== undefined && found.length < MAX_PROBLEMS) found.push(problem([...path, k], bytes));
        walk(x, [...path, k]);
      }
    }
  };
  walk(value, []);
  return found;
}

/**
 * The 422 for a body whose bytes were not all UTF-8 (`marked` text from `decodeBody`): each field they
 * are in, or the body as a whole when it does not parse (or the bytes hide in an escape's pair).
 */
export function invalidUtf8(text: string, parsed?: unknown): AppError {
  let problems: Problem[] = [];
  try {
    if (parsed === undefined) {
      checkJsonDepth(text);
      parsed = JSON.parse(text);
    }
    problems = markedProblems(parsed);
  } catch {
    // Not JSON either: the bytes are the first thing to fix.
  }
  if (problems.length === 0) problems = [problem([], markedBytes(text) ?? "?")];
  return new AppError(422, "validation_error", "Invalid request", problems);
}
