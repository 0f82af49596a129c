// Compiles an already validated crossmap document without its YAML text: for documents the build
// checked (compiled.ts). Problems cannot be located here, so any problem means "load the YAML instead".
import { type CompileOptions, compileDocument } from "./compile.js";
import { Crossmap } from "./crossmap.js";
import { Problems } from "./problems.js";
import type { CrossmapDocument } from "./schema.js";

/**
 * The compiled crossmap, or undefined when compiling it found a problem. `lazy`: the options are those the
 * build compiled the document with, so its entities may be compiled on first use (compile.ts).
 */
export function compile(
  document: CrossmapDocument,
  file: string,
  options: CompileOptions,
  lazy = false,
): Crossmap | undefined {
  const problems = new Problems(file);
  const compiled = compileDocument(document, problems, options, lazy);
  return problems.list.length === 0
    ? new Crossmap(document, compiled.plans, file, compiled.gather, options.overlay)
    : undefined;
}
