// Loads a built-in crossmap from the compiled file (compiled.ts) when the build saw its text, so mapping
// with one never loads the YAML parser; any other case (edited since the build, not built, a problem to
// locate) goes through the YAML loader, which says where every problem is.
import { readFileSync } from "node:fs";
import { builtinTransforms } from "../transforms/builtins.js";
import { compile } from "./compile-document.js";
import { compiledEntryAt } from "./compiled.js";
import type { Crossmap } from "./crossmap.js";
import type { LoadOptions } from "./load.js";

export async function loadBuiltinCrossmap(
  path: string,
  options: Pick<LoadOptions, "transforms" | "vocabulary" | "parameters" | "overlay"> = {},
): Promise<Crossmap> {
  const document = compiledEntryAt(path)?.document;
  if (document !== undefined) {
    const registry = options.transforms ?? builtinTransforms();
    // The build compiled the document with the built-in transforms, no vocabulary and no project: under
    // the same options no entity can fail to compile, so each is compiled when a record first needs it
    // (parameters only give values that records read). Otherwise everything is compiled now, and a problem
    // sends the document through the YAML loader, which locates it.
    const lazy =
      registry === builtinTransforms() && options.vocabulary === undefined && options.overlay === undefined;
    const crossmap = compile(
      document,
      path,
      {
        registry,
        ...(options.vocabulary ? { vocabulary: options.vocabulary } : {}),
        ...(options.parameters ? { parameters: options.parameters } : {}),
        ...(options.overlay ? { overlay: options.overlay } : {}),
      },
      lazy,
    );
    if (crossmap !== undefined) return crossmap;
  }
  const { parseCrossmap } = await import("./load.js");
  return parseCrossmap(readFileSync(path, "utf8"), { ...options, file: path });
}
