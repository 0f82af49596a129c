// Finds where a key path sits in the YAML source, so every load error names file, line and column.
import {
  type Document,
  isMap,
  isPair,
  isScalar,
  isSeq,
  type LineCounter,
  type Node,
  type Pair,
  type YAMLMap,
} from "yaml";

export interface Location {
  line: number;
  column: number;
}

/**
 * Each mapping's keys, indexed on first use: a document with thousands of problems in one mapping
 * (e.g. field_map) would otherwise scan the mapping once per problem.
 */
const indexes = new WeakMap<YAMLMap, Map<string, Pair>>();

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  let index = indexes.get(map);
  if (!index) {
    index = new Map();
    for (const p of map.items) {
      if (!isPair(p) || !isScalar(p.key)) continue;
      // The last of duplicate keys, as that is the value the document holds.
      index.set(String(p.key.value), p);
    }
    indexes.set(map, index);
  }
  return index.get(key);
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
      const pair = pairOf(node, String(part));
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
