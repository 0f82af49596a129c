// `crossmap validate --to openehr_1.0.4`: reads canonical JSON objects from NDJSON or JSON files (or stdin),
// checks each and reports every violation with file, line, object and path, then a summary.
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import type { Violation } from "./types.js";
import type { OpenehrValidator } from "./validator.js";

export interface ValidateOptions {
  files: string[];
  validator: OpenehrValidator;
  format: "text" | "json";
  /** Stop printing (not checking) after this many violations. */
  maxReported: number;
  warnings: boolean;
  write: (line: string) => void;
  stdin: () => Readable;
}

export interface ValidateSummary {
  objects: number;
  valid: number;
  errors: number;
  warnings: number;
  byType: Record<string, number>;
  byTemplate: Record<string, number>;
  byCode: Record<string, number>;
}

interface Located {
  /** `file:line` for NDJSON and single documents, `file[index]` for an element of an array document. */
  where: string;
  value: unknown;
  parseError?: string;
}

async function* objects(file: string, stdin: () => Readable): AsyncGenerator<Located> {
  const input: Readable = file === "-" ? stdin() : createReadStream(file, { encoding: "utf8" });
  const name = file === "-" ? "<stdin>" : file;
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  // A JSON document (an object or an array, possibly over many lines) or NDJSON: decided by the first line.
  let buffered: string[] | undefined;
  let n = 0;
  for await (const raw of lines) {
    n++;
    const line = n === 1 ? raw.replace(/^\uFEFF/, "") : raw;
    if (buffered) {
      buffered.push(line);
      continue;
    }
    const t = line.trim();
    if (t === "") continue;
    if (n === 1 && (t === "[" || t === "{" || !t.endsWith("}"))) {
      buffered = [line];
      continue;
    }
    try {
      yield { where: `${name}:${n}`, value: JSON.parse(t) };
    } catch (e) {
      yield { where: `${name}:${n}`, value: undefined, parseError: (e as Error).message };
    }
  }
  if (!buffered) return;
  try {
    const doc = JSON.parse(buffered.join("\n")) as unknown;
    const list = Array.isArray(doc) ? doc : [doc];
    for (const [i, value] of list.entries())
      yield { where: Array.isArray(doc) ? `${name}[${i}]` : `${name}:1`, value };
  } catch (e) {
    yield { where: `${name}:1`, value: undefined, parseError: (e as Error).message };
  }
}

const objectLabel = (type: string, templateId: string | undefined): string =>
  templateId ? `${type} ${templateId}` : type;

/** Checks every object of every file; returns the summary (the caller sets the exit code). */
export async function validateFiles(o: ValidateOptions): Promise<ValidateSummary> {
  const s: ValidateSummary = {
    objects: 0,
    valid: 0,
    errors: 0,
    warnings: 0,
    byType: {},
    byTemplate: {},
    byCode: {},
  };
  let reported = 0;
  const report = (loc: Located, label: string, v: Violation): void => {
    s.byCode[v.code] = (s.byCode[v.code] ?? 0) + 1;
    if (v.severity === "warning" && !o.warnings) return;
    if (reported++ >= o.maxReported) return;
    if (o.format === "json") o.write(JSON.stringify({ at: loc.where, object: label, ...v }));
    else
      o.write(
        `${loc.where}: ${v.severity}: ${label}${v.path ? ` ${v.path}` : ""}: ${v.message} [${v.code}]${v.node ? ` at ${v.node}` : ""}`,
      );
  };
  for (const file of o.files.length > 0 ? o.files : ["-"]) {
    for await (const loc of objects(file, o.stdin)) {
      s.objects++;
      if (loc.parseError !== undefined) {
        s.errors++;
        report(loc, "(unreadable)", {
          severity: "error",
          code: "malformed_json",
          path: "",
          message: loc.parseError,
        });
        continue;
      }
      const r = o.validator.check(loc.value);
      s.byType[r.type] = (s.byType[r.type] ?? 0) + 1;
      if (r.templateId) s.byTemplate[r.templateId] = (s.byTemplate[r.templateId] ?? 0) + 1;
      const label = objectLabel(r.type, r.templateId);
      let errors = 0;
      for (const v of r.violations) {
        if (v.severity === "error") errors++;
        else s.warnings++;
        report(loc, label, v);
      }
      s.errors += errors;
      if (errors === 0) s.valid++;
    }
  }
  if (reported > o.maxReported) o.write(`... ${reported - o.maxReported} more not shown (--max-reported)`);
  return s;
}

export function formatValidateSummary(s: ValidateSummary): string {
  const types = Object.entries(s.byType)
    .map(([t, n]) => `${n} ${t}`)
    .join(", ");
  return `checked ${s.objects} objects (${types || "none"}): ${s.valid} valid, ${s.objects - s.valid} invalid; ${s.errors} errors, ${s.warnings} warnings`;
}
