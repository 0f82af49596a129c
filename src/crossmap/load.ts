// Loads a crossmap from YAML text or a file: parse, validate (zod), compile; every problem located.
import { readFile } from "node:fs/promises";
import { AppError, type Problem } from "../errors.js";
import { builtinTransforms } from "../transforms/builtins.js";
import type { OverlaySlot } from "../transforms/overlay.js";
import type { TransformRegistry } from "../transforms/registry.js";
import type { VocabularyBridge } from "../vocab/bridge.js";
import { compileDocument } from "./compile.js";
import { Crossmap } from "./crossmap.js";
import { locate } from "./locate.js";
import { addZodIssues, type KeyPath, Problems } from "./problems.js";
import { salvage } from "./salvage.js";
import { type CrossmapDocument, CrossmapDocumentSchema } from "./schema.js";
import { loadStandard } from "./standards.js";
import { checkStandards } from "./standards-check.js";
import { DOCUMENT_LIMITS, type DocumentLimits, readYaml } from "./yaml-read.js";

export interface LoadOptions {
  /** Name used in error messages (a path, or e.g. "request body"). */
  file?: string;
  /** Transforms available to the document; default the built-ins. */
  transforms?: TransformRegistry;
  vocabulary?: VocabularyBridge;
  /**
   * Check names against the standard definitions in crossmaps/standards/ and push what they lack here
   * (warnings, located like errors). Off when absent: built-in crossmaps are checked by the test suite.
   */
  warnings?: Problem[];
  /** Values for the crossmap's `parameters` (`--param name=value`); unknown names are checked by the caller. */
  parameters?: Readonly<Record<string, string>>;
  /**
   * Where a project-scoped run puts its reviewed decisions (overlay.ts); the crossmap keeps it
   * (`Crossmap.overlay`). Without it, decisions cannot be applied to this crossmap.
   */
  overlay?: OverlaySlot;
  /** Caps on the document's size and shape; default DOCUMENT_LIMITS. */
  limits?: Partial<DocumentLimits>;
}

/** Everything wrong with one crossmap text, found in one pass. */
export interface CrossmapAnalysis {
  /** The compiled crossmap, when there are no errors. */
  crossmap: Crossmap | undefined;
  errors: Problem[];
  warnings: Problem[];
  /** Errors found beyond the first MAX_PROBLEMS, counted but not listed. */
  omitted: number;
}

/**
 * Parses, validates and compiles `text`, collecting every problem rather than stopping at the first kind:
 * parts the schema rejects are left out and the rest is still compiled (see salvage.ts). Only YAML syntax
 * errors (other than duplicate keys) stop it early, since then nothing about the document's shape can be
 * trusted.
 */
export function analyseCrossmap(
  text: string,
  options: LoadOptions & { standards?: boolean } = {},
): CrossmapAnalysis {
  const read = readYaml(text, { ...DOCUMENT_LIMITS, ...options.limits });
  const yamlDoc = read.doc;
  const where =
    yamlDoc && ((path: KeyPath, preferKey: boolean) => locate(yamlDoc, read.lines, path, preferKey));
  const problems = new Problems(options.file, where);
  const warnings = new Problems(options.file, where, "warning");
  const result = (crossmap?: Crossmap): CrossmapAnalysis => ({
    crossmap: problems.list.length === 0 ? crossmap : undefined,
    errors: problems.list,
    warnings: warnings.list,
    omitted: problems.omitted,
  });
  // After the first syntax error the parser's view of the text is lost, so the errors after it are mostly
  // echoes of that one (a bracket in an unquoted path gives one per token to the end of the file): only the
  // first is reported, saying how many follow. Duplicate keys and exceeded limits are each real, and all reported.
  const isSyntax = (i: (typeof read.issues)[number]) => i.code === "yaml_syntax" && i.duplicate !== true;
  const syntax = read.issues.filter(isSyntax);
  const reported = read.issues.filter((i) => !isSyntax(i) || i === syntax[0]);
  for (const issue of reported) {
    const pos = read.lines.linePos(issue.offset);
    let message = issue.message;
    if (issue === syntax[0]) {
      const hint = quotingHint(text, pos.line);
      if (hint) message += `; ${hint}`;
      if (syntax.length > 1) {
        message += ` (${syntax.length - 1} more syntax error${syntax.length === 2 ? "" : "s"} after it, most likely caused by this one)`;
      }
    }
    problems.located([], issue.code, message, pos.line, pos.col);
  }
  // A duplicate key leaves a readable document (the last value wins), so the rest is still checked;
  // any other problem of reading leaves no value.
  if (read.value === undefined) return result();
  const raw: unknown = read.value;
  let doc: CrossmapDocument | undefined;
  const parsed = CrossmapDocumentSchema.safeParse(raw);
  if (parsed.success) doc = parsed.data;
  else {
    addZodIssues(problems, [], parsed.error);
    const rest = CrossmapDocumentSchema.safeParse(salvage(raw, parsed.error.issues));
    if (rest.success) doc = rest.data;
  }
  if (doc === undefined) return result();
  const compiled = compileDocument(doc, problems, {
    registry: options.transforms ?? builtinTransforms(),
    ...(options.vocabulary ? { vocabulary: options.vocabulary } : {}),
    ...(options.parameters ? { parameters: options.parameters } : {}),
    ...(options.overlay ? { overlay: options.overlay } : {}),
  });
  const crossmap = new Crossmap(doc, compiled.plans, options.file, compiled.gather, options.overlay);
  if (options.standards) {
    const reads = new Map<string, string[]>();
    for (const f of crossmap.fieldMappings()) {
      const list = reads.get(f.key);
      if (list) list.push(...f.reads);
      else reads.set(f.key, [...f.reads]);
    }
    checkStandards(doc, warnings, {
      source: loadStandard(doc.source),
      target: loadStandard(doc.target),
      reads,
    });
  }
  return result(crossmap);
}

export function parseCrossmap(text: string, options: LoadOptions = {}): Crossmap {
  const analysis = analyseCrossmap(text, { ...options, standards: options.warnings !== undefined });
  if (analysis.crossmap === undefined) {
    const n = analysis.errors.length + analysis.omitted;
    const listed = analysis.omitted > 0 ? `; the first ${analysis.errors.length} are listed` : "";
    throw new AppError(
      422,
      "invalid_crossmap",
      `crossmap ${options.file ?? "document"} is invalid (${n} problem${n === 1 ? "" : "s"}${listed})`,
      analysis.errors,
    );
  }
  options.warnings?.push(...analysis.warnings);
  return analysis.crossmap;
}

/** Reads a crossmap file; an unreadable file is a 400 AppError naming it. */
export async function readCrossmapText(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (err as Error).message;
    throw new AppError(400, "crossmap_unreadable", `cannot read crossmap ${path}: ${reason}`);
  }
}

export async function loadCrossmapFile(
  path: string,
  options: Omit<LoadOptions, "file"> = {},
): Promise<Crossmap> {
  return parseCrossmap(await readCrossmapText(path), { ...options, file: path });
}

/**
 * The usual cause of a syntax error in a crossmap: a path with `[...]` (or a `,`) written unquoted inside a
 * flow collection (`{target: code.coding[0].code}`), where YAML reads `[` as the start of a list.
 */
function quotingHint(text: string, line: number): string | undefined {
  const source = text.split("\n", line)[line - 1] ?? "";
  return /[{,]\s*[\w.$-]+\s*:\s*[^"'\s{[][^,}"']*\[/.test(source)
    ? 'inside { } or [ ], a value holding [ ] or a comma must be quoted, e.g. {field: "code.coding[0].code"}'
    : undefined;
}
