// The built-in crossmaps and standard definitions as `npm run build` validated them, in one JSON file
// (dist/crossmaps.json, written by scripts/compile-crossmaps.mjs): reading it costs ~2 ms where parsing
// the YAML cost most of `crossmap map`'s start-up. Each entry carries the SHA-256 of the YAML it came
// from; an entry whose file changed since the build is not used (the YAML is read instead).
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { CrossmapDocument } from "./schema.js";
import type { StandardDefinition } from "./standards.js";

/** The same file from src/ (tests) and dist/ (installed). */
export const COMPILED_FILE = fileURLToPath(new URL("../../dist/crossmaps.json", import.meta.url));

export interface CompiledCrossmap {
  /** File name inside crossmaps/. */
  file: string;
  sha256: string;
  /** The document as the schema validated it. */
  document: CrossmapDocument;
}

export interface CompiledFile {
  crossmaps: CompiledCrossmap[];
  /** File name inside crossmaps/standards/ -> its definition. */
  standards: { file: string; sha256: string; definition: StandardDefinition }[];
}

let compiled: CompiledFile | null | undefined;

/** The compiled file, or undefined when there is none (a checkout not built yet). */
export function readCompiled(): CompiledFile | undefined {
  if (compiled === undefined) {
    try {
      compiled = JSON.parse(readFileSync(COMPILED_FILE, "utf8")) as CompiledFile;
    } catch {
      compiled = null;
    }
  }
  return compiled ?? undefined;
}

export const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/** The validated document of a built-in crossmap whose text is `text`, when the build saw that text. */
export function compiledDocument(file: string, text: string): CrossmapDocument | undefined {
  const entry = readCompiled()?.crossmaps.find((c) => c.file === file);
  return entry !== undefined && entry.sha256 === sha256(text) ? entry.document : undefined;
}
