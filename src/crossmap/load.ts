// Loads a crossmap from YAML text or a file: parse, validate (zod), compile; every problem located.
import { readFile } from "node:fs/promises";
import { LineCounter, parseDocument } from "yaml";
import { AppError } from "../errors.js";
import { builtinTransforms } from "../transforms/builtins.js";
import type { TransformRegistry } from "../transforms/registry.js";
import type { VocabularyBridge } from "../vocab/bridge.js";
import { compileDocument } from "./compile.js";
import { Crossmap } from "./crossmap.js";
import { Problems } from "./problems.js";
import { CrossmapDocumentSchema } from "./schema.js";

export interface LoadOptions {
  /** Name used in error messages (a path, or e.g. "request body"). */
  file?: string;
  /** Transforms available to the document; default the built-ins. */
  transforms?: TransformRegistry;
  vocabulary?: VocabularyBridge;
}

export function parseCrossmap(text: string, options: LoadOptions = {}): Crossmap {
  const lines = new LineCounter();
  const yamlDoc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const problems = new Problems(options.file, yamlDoc, lines);
  for (const e of yamlDoc.errors) {
    const p: Parameters<typeof problems.list.push>[0] = {
      path: [],
      code: "yaml_syntax",
      message: e.message.split("\n")[0] ?? e.message,
    };
    if (options.file !== undefined) p.file = options.file;
    const pos = lines.linePos(e.pos[0]);
    p.line = pos.line;
    p.column = pos.col;
    problems.list.push(p);
  }
  problems.throwIfAny();
  const raw: unknown = yamlDoc.toJS();
  const parsed = CrossmapDocumentSchema.safeParse(raw);
  if (!parsed.success) {
    for (const iss of parsed.error.issues) {
      const path = iss.path.map((p) => (typeof p === "symbol" ? String(p) : p));
      if (iss.code === "unrecognized_keys") {
        for (const k of iss.keys) problems.add([...path, k], "unknown_key", `unknown key "${k}"`, true);
      } else if (iss.code === "invalid_type" && /received undefined/.test(iss.message)) {
        const name = path.length > 0 ? `"${String(path[path.length - 1])}"` : "document";
        problems.add(path, "missing_key", `${name} is required`);
      } else {
        problems.add(path, "invalid_value", iss.message);
      }
    }
    problems.throwIfAny();
    throw new AppError(422, "invalid_crossmap", "crossmap is invalid");
  }
  const plans = compileDocument(parsed.data, problems, {
    registry: options.transforms ?? builtinTransforms(),
    ...(options.vocabulary ? { vocabulary: options.vocabulary } : {}),
  });
  problems.throwIfAny();
  return new Crossmap(parsed.data, plans, options.file);
}

export async function loadCrossmapFile(
  path: string,
  options: Omit<LoadOptions, "file"> = {},
): Promise<Crossmap> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (err as Error).message;
    throw new AppError(400, "crossmap_unreadable", `cannot read crossmap ${path}: ${reason}`);
  }
  return parseCrossmap(text, { ...options, file: path });
}
