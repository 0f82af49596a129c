// The one error type that crosses layers: engine, stores, CLI and HTTP all throw AppError;
// only the CLI's top level and the Koa error middleware turn it into output.

/** One thing wrong, located as precisely as the layer that found it can. */
export interface Problem {
  /** Key path inside the document or body, e.g. ["field_map", "person.gender_concept_id", "transform"]. */
  path: (string | number)[];
  message: string;
  /** Machine-readable kind, e.g. "unknown_transform", "value_error.missing". */
  code: string;
  file?: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  column?: number;
  /** Absent for errors; "warning" for what is suspicious but loads (e.g. a name its standard lacks). */
  severity?: "warning";
}

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly problems: Problem[];

  constructor(status: number, code: string, message: string, problems: Problem[] = []) {
    super(message);
    this.name = "AppError";
    this.status = status;
    this.code = code;
    this.problems = problems;
  }

  /** Human-readable summary of the message and every problem, one per line. */
  describe(): string {
    if (this.problems.length === 0) return this.message;
    return [this.message, ...this.problems.map((p) => `  ${formatProblem(p)}`)].join("\n");
  }
}

/** Renders a problem the way compilers do: `file:line:col: key.path: message` (`file:line:col: warning: ...`). */
export function formatProblem(p: Problem): string {
  const where = p.file ? `${p.file}${p.line ? `:${p.line}${p.column ? `:${p.column}` : ""}` : ""}: ` : "";
  const key = p.path.length > 0 ? `${formatKeyPath(p.path)}: ` : "";
  return `${where}${p.severity === "warning" ? "warning: " : ""}${key}${p.message}`;
}

/** `field_map["person.gender_concept_id"].transform`: dotted, with keys that need it in brackets. */
export function formatKeyPath(path: readonly (string | number)[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(part)) out += out ? `.${part}` : part;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
