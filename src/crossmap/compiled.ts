// The built-in crossmaps and standard definitions as `npm run build` validated them, in one JSON file
// (dist/crossmaps.json, written by scripts/compile-crossmaps.mjs): reading it costs ~2 ms where parsing
// the YAML cost most of `crossmap map`'s start-up. Each entry carries the SHA-256 of the YAML it came
// from; an entry whose file changed since the build is not used (the YAML is read instead).

import { readFileSync, statSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { createHash } from "../hash.js";
import type { CrossmapSummary } from "./catalog.js";
import type { CrossmapDocument } from "./schema.js";
import type { StandardDefinition } from "./standards.js";

/** The same file from src/ (tests) and dist/ (installed). */
export const COMPILED_FILE = fileURLToPath(new URL("../../dist/crossmaps.json", import.meta.url));

export interface CompiledCrossmap {
  /** File name inside crossmaps/. */
  file: string;
  sha256: string;
  /** The file's size and modification time when the build read it: unchanged, it need not be read again. */
  size: number;
  mtime_ms: number;
  /** What the catalog lists of it (catalog.ts). */
  summary: CrossmapSummary;
  /** The document as the schema validated it (parsed from the file on first use). */
  readonly document: CrossmapDocument;
}

export interface CompiledStandard {
  file: string;
  sha256: string;
  readonly definition: StandardDefinition;
}

/** A YAML data file under crossmaps/standards/ (HL7 v2 field names, message structures) as plain JSON. */
export interface CompiledData {
  /** Path inside crossmaps/, with `/`: `standards/hl7v2/message-structures.yaml`. */
  file: string;
  sha256: string;
  readonly value: unknown;
}

export interface CompiledFile {
  crossmaps: CompiledCrossmap[];
  /** File name inside crossmaps/standards/ -> its definition. */
  standards: CompiledStandard[];
  data: CompiledData[];
}

/**
 * As written: each document is kept as JSON text inside the JSON, so reading the file parses a few long
 * strings (~3 ms) instead of every document's objects (~30 ms and as much garbage), and a run parses the
 * one document it maps with.
 */
type CrossmapEntry = Omit<CompiledCrossmap, "document">;

interface StoredFile {
  crossmaps: (CrossmapEntry & { document: string })[];
  standards: { file: string; sha256: string; definition: string }[];
  data?: { file: string; sha256: string; json: string }[];
}

/** What scripts/compile-crossmaps.mjs writes for these documents. */
export function storedFile(
  crossmaps: (CrossmapEntry & { document: CrossmapDocument })[],
  standards: { file: string; sha256: string; definition: StandardDefinition }[],
  data: { file: string; sha256: string; value: unknown }[] = [],
): string {
  const stored: StoredFile = {
    crossmaps: crossmaps.map((c) => ({ ...c, document: JSON.stringify(c.document) })),
    standards: standards.map((s) => ({ ...s, definition: JSON.stringify(s.definition) })),
    data: data.map(({ file, sha256, value }) => ({ file, sha256, json: JSON.stringify(value) })),
  };
  return JSON.stringify(stored);
}

let compiled: CompiledFile | null | undefined;

/** A getter that parses `text` once, on first use. */
function parsedOnce<T>(text: string): () => T {
  let value: T | undefined;
  return () => {
    value ??= JSON.parse(text) as T;
    return value;
  };
}

/** The compiled file, or undefined when there is none (a checkout not built yet). */
export function readCompiled(): CompiledFile | undefined {
  if (compiled === undefined) {
    try {
      const stored = JSON.parse(readFileSync(COMPILED_FILE, "utf8")) as StoredFile;
      compiled = {
        crossmaps: stored.crossmaps.map(({ document, ...entry }) => {
          const parse = parsedOnce<CrossmapDocument>(document);
          return {
            ...entry,
            get document() {
              return parse();
            },
          };
        }),
        standards: stored.standards.map(({ file, sha256, definition }) => {
          const parse = parsedOnce<StandardDefinition>(definition);
          return {
            file,
            sha256,
            get definition() {
              return parse();
            },
          };
        }),
        data: (stored.data ?? []).map(({ file, sha256, json }) => {
          const parse = parsedOnce<unknown>(json);
          return {
            file,
            sha256,
            get value() {
              return parse();
            },
          };
        }),
      };
    } catch {
      compiled = null;
    }
  }
  return compiled ?? undefined;
}

export const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/** The build's entry for a built-in crossmap whose text is `text`, when the build saw that text. */
function compiledEntry(file: string, text: string): CompiledCrossmap | undefined {
  const entry = readCompiled()?.crossmaps.find((c) => c.file === file);
  return entry !== undefined && entry.sha256 === sha256(text) ? entry : undefined;
}

/** The validated document of a built-in crossmap whose text is `text`, when the build saw that text. */
export function compiledDocument(file: string, text: string): CrossmapDocument | undefined {
  return compiledEntry(file, text)?.document;
}

/**
 * The build's entry for the built-in crossmap file at `path` when the file is as the build saw it: with the
 * same size and modification time it is not read at all (nor node:crypto loaded); otherwise (a checkout
 * touched it, or it was edited) only the same SHA-256 will do.
 */
export function compiledEntryAt(path: string): CompiledCrossmap | undefined {
  const entry = readCompiled()?.crossmaps.find((c) => c.file === basename(path));
  if (entry === undefined) return undefined;
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return undefined;
  if (stat.size === entry.size && stat.mtimeMs === entry.mtime_ms) return entry;
  return entry.sha256 === sha256(readFileSync(path, "utf8")) ? entry : undefined;
}
