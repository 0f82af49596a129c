// Finds where a key path sits in the YAML source, so every load error names file, line and column.
import { type Document, isMap, isPair, isScalar, isSeq, type LineCounter, type Node } from "yaml";

export interface Location {
  line: number;
  column: number;
}

/**
 * Locates `path` in `doc`: the value node when it exists (or its key, with `preferKey`), else the
 * deepest existing ancestor, so a missing key points at the entry that lacks it.
 */
export function locate(
  doc: Document,
  lines: LineCounter,
  path: readonly (string | number)[],
  preferKey = false,
): Location | undefined {
  let node: unknown = doc.contents;
  let found: { range?: [number, number, number] | null } | undefined = node as Node | undefined;
  for (let i = 0; i < path.length; i++) {
    const part = path[i];
    const last = i === path.length - 1;
    if (isMap(node)) {
      // The last of duplicate keys, as that is the value the document holds.
      let pair: (typeof node.items)[number] | undefined;
      for (const p of node.items) {
        if (isPair(p) && isScalar(p.key) && String(p.key.value) === String(part)) pair = p;
      }
      if (!pair) break;
      const target = last && preferKey ? pair.key : (pair.value ?? pair.key);
      found = target as Node;
      node = pair.value;
    } else if (isSeq(node) && typeof part === "number") {
      const item = node.items[part];
      if (item === undefined) break;
      found = item as Node;
      node = item;
    } else break;
  }
  const offset = found?.range?.[0];
  if (offset === undefined) return undefined;
  const pos = lines.linePos(offset);
  return { line: pos.line, column: pos.col };
}
