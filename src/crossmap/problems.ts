// Collects every load problem of one document, each located in the YAML source, then throws them together.
import type { z } from "zod";
import { AppError, type Problem } from "../errors.js";

export type KeyPath = (string | number)[];

/** Where a key path sits in the source text (locate.ts, over the parsed YAML), when it can be told. */
export type Locator = (path: KeyPath, preferKey: boolean) => { line: number; column: number } | undefined;

/** Most problems one document reports; a 1 MB document of mistakes would otherwise answer with megabytes. */
export const MAX_PROBLEMS = 1000;

export class Problems {
  readonly list: Problem[] = [];
  /** Problems found beyond MAX_PROBLEMS: counted, not listed. */
  omitted = 0;

  constructor(
    private readonly file: string | undefined,
    private readonly where?: Locator,
    /** Marks every problem added as a warning (e.g. names the standard definitions lack). */
    private readonly severity?: "warning",
  ) {}

  /** No more problems are listed, only counted. */
  get full(): boolean {
    return this.list.length >= MAX_PROBLEMS;
  }

  add(path: KeyPath, code: string, message: string, preferKey = false): void {
    if (this.list.length >= MAX_PROBLEMS) {
      this.omitted++;
      return;
    }
    const where = this.where?.(path, preferKey);
    const p: Problem = { path, code, message };
    if (this.file !== undefined) p.file = this.file;
    if (this.severity !== undefined) p.severity = this.severity;
    if (where) {
      p.line = where.line;
      p.column = where.column;
    }
    this.list.push(p);
  }

  /** A problem whose line and column are already known (e.g. from the YAML reader). */
  located(path: KeyPath, code: string, message: string, line: number, column: number): void {
    if (this.list.length >= MAX_PROBLEMS) {
      this.omitted++;
      return;
    }
    const p: Problem = { path, code, message };
    if (this.file !== undefined) p.file = this.file;
    if (this.severity !== undefined) p.severity = this.severity;
    p.line = line;
    p.column = column;
    this.list.push(p);
  }

  throwIfAny(): void {
    if (this.list.length === 0) return;
    const n = this.list.length + this.omitted;
    const listed = this.omitted > 0 ? `; the first ${this.list.length} are listed` : "";
    throw new AppError(
      422,
      "invalid_crossmap",
      `crossmap ${this.file ?? "document"} is invalid (${n} problem${n === 1 ? "" : "s"}${listed})`,
      this.list,
    );
  }
}

/** `a, b, c`, or the first `max` names and how many more, so a message stays short for any document. */
export function listNames(names: readonly string[], max = 50): string {
  if (names.length <= max) return names.join(", ");
  return `${names.slice(0, max).join(", ")}, ... (${names.length - max} more)`;
}

/** Names longer than this, or lists longer than MAX_SUGGEST_NAMES, get no suggestion (bounded cost). */
const MAX_SUGGEST_LENGTH = 64;
const MAX_SUGGEST_NAMES = 200;

/** Levenshtein-based "did you mean" for unknown names. */
export function suggest(name: string, known: readonly string[]): string {
  if (name.length > MAX_SUGGEST_LENGTH || known.length > MAX_SUGGEST_NAMES) return "";
  let best: string | undefined;
  let bestD = Number.POSITIVE_INFINITY;
  for (const k of known) {
    if (k.length > MAX_SUGGEST_LENGTH) continue;
    const d = distance(name.toLowerCase(), k.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(name.length / 3))
    ? ` (did you mean "${best}"?)`
    : "";
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j] as number;
      row[j] = Math.min(
        (row[j] as number) + 1,
        (row[j - 1] as number) + 1,
        prev + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      prev = tmp;
    }
  }
  return row[b.length] as number;
}

/** Adds every issue of a failed zod parse, located under `base`: unknown keys at the key, missing keys by name. */
export function addZodIssues(problems: Problems, base: KeyPath, error: z.ZodError): void {
  for (const iss of error.issues) {
    const path = [...base, ...iss.path.map((p) => (typeof p === "symbol" ? String(p) : p))];
    if (iss.code === "unrecognized_keys") {
      for (const k of iss.keys) problems.add([...path, k], "unknown_key", `unknown key "${k}"`, true);
    } else if (iss.code === "invalid_type" && /received undefined/.test(iss.message)) {
      const name = path.length > 0 ? `"${String(path[path.length - 1])}"` : "document";
      problems.add(path, "missing_key", `${name} is required`);
    } else {
      problems.add(path, "invalid_value", iss.message);
    }
  }
}
