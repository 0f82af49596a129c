// Reads crossmap YAML with bounded cost: a document's size, nesting depth and expanded node count (aliases
// and merge keys count as the nodes they repeat) are capped before anything else walks it.
import {
  Composer,
  type CST,
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  Parser,
} from "yaml";

export interface DocumentLimits {
  /** Largest document, in UTF-8 bytes. */
  bytes: number;
  /** Deepest nesting of mappings and sequences. */
  depth: number;
  /** Most nodes (scalars, mappings, sequences) once every alias is expanded. */
  nodes: number;
  /** Most alias uses (`*name`). */
  aliases: number;
}

/** The defaults; docs/crossmap-language.md ("Limits") documents them. */
export const DOCUMENT_LIMITS: Readonly<DocumentLimits> = Object.freeze({
  bytes: 4 * 1024 * 1024,
  depth: 64,
  nodes: 500_000,
  aliases: 10_000,
});

/** A problem found while reading, at a character offset of the text. */
export interface YamlIssue {
  offset: number;
  code: string;
  message: string;
  /** A duplicate key: the document can still be read (the last value wins). */
  duplicate?: true;
}

export interface ReadYaml {
  /** The document as plain data; absent unless every issue is a duplicate key. */
  value?: unknown;
  doc?: Document.Parsed;
  lines: LineCounter;
  /** In text order. */
  issues: YamlIssue[];
}

const count = (n: number) => n.toLocaleString("en-US");

/** Parses `text` into a YAML document and its plain value; never throws for bad input. */
export function readYaml(text: string, limits: DocumentLimits = DOCUMENT_LIMITS): ReadYaml {
  const lines = new LineCounter();
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > limits.bytes) {
    const message = `the document is ${count(bytes)} bytes; the limit is ${count(limits.bytes)}`;
    lines.addNewLine(0);
    return { lines, issues: [{ offset: 0, code: "document_too_large", message }] };
  }
  const tooDeepAt = (offset: number): ReadYaml => {
    const message = `nested more than ${limits.depth} levels deep (the limit)`;
    return { lines, issues: [{ offset, code: "too_deep", message }] };
  };
  let tokens: CST.Token[];
  try {
    tokens = [...new Parser(lines.addNewLine).parse(text)];
  } catch (err) {
    // yaml's parser recurses once per level of block nesting: thousands of levels overflow the stack.
    if (err instanceof RangeError) return tooDeepAt(deepBlockLine(text, limits.depth));
    throw err;
  }
  const deep = tooDeep(tokens, limits.depth);
  if (deep !== undefined) return tooDeepAt(deep);
  // Duplicate keys are found below in linear time; yaml's own check compares every key with every
  // earlier one of its mapping, which made a 1 MB document take tens of seconds.
  const composer = new Composer({ uniqueKeys: false, prettyErrors: false });
  let doc: Document.Parsed | undefined;
  const issues: YamlIssue[] = [];
  for (const d of composer.compose(tokens, true, text.length)) {
    if (!doc) doc = d;
    else {
      issues.push({ offset: d.range[0], code: "yaml_syntax", message: "Source contains multiple documents" });
      break;
    }
  }
  if (!doc) return { lines, issues };
  for (const e of doc.errors) {
    issues.push({ offset: e.pos[0], code: "yaml_syntax", message: e.message.split("\n")[0] ?? e.message });
  }
  const walk = new Walk(limits);
  walk.node(doc.contents);
  issues.push(...walk.issues);
  issues.sort((a, b) => a.offset - b.offset);
  if (issues.some((i) => !i.duplicate)) return { doc, lines, issues };
  try {
    // Alias expansion was counted above; yaml's own count re-walks the document per alias.
    return { value: doc.toJS({ maxAliasCount: -1 }), doc, lines, issues };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { doc, lines, issues: [...issues, { offset: 0, code: "yaml_syntax", message }] };
  }
}

/**
 * Where block nesting passes `max`, judged by indentation alone (each line indented deeper than the one
 * it follows opens a level): the same place the token check below reports, for documents too deep for
 * yaml's parser to build tokens of.
 */
function deepBlockLine(text: string, max: number): number {
  const indents: number[] = [];
  for (let start = 0; start < text.length; ) {
    let i = start;
    while (text.charCodeAt(i) === 32) i++;
    const c = text.charCodeAt(i);
    if (c !== 10 && c !== 13 && c !== 35 && i < text.length) {
      const indent = i - start;
      while (indents.length > 0 && (indents[indents.length - 1] as number) >= indent) indents.pop();
      indents.push(indent);
      if (indents.length > max) return i;
    }
    const end = text.indexOf("\n", i);
    if (end < 0) break;
    start = end + 1;
  }
  return 0;
}

/** The offset of the first collection nested deeper than `max`, from the token tree (before composing). */
function tooDeep(tokens: CST.Token[], max: number): number | undefined {
  const stack: [CST.Token, number][] = tokens.map((t) => [t, 0]);
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [t, depth] = top;
    if (t.type === "document") {
      if (t.value) stack.push([t.value, depth]);
    } else if (t.type === "block-map" || t.type === "block-seq" || t.type === "flow-collection") {
      if (depth + 1 > max) return t.offset;
      for (const item of t.items) {
        if (item.key) stack.push([item.key, depth + 1]);
        if (item.value) stack.push([item.value, depth + 1]);
      }
    }
  }
  return undefined;
}

/** One pass over the composed document: duplicate keys, alias uses, and the expanded node count. */
class Walk {
  readonly issues: YamlIssue[] = [];
  private aliases = 0;
  private expanded = 0;
  private overBudget = false;
  /** Anchor name -> the node it was last set on, in document order (what an alias at this point means). */
  private readonly anchors = new Map<string, Node>();
  /** Expanded sizes of anchored nodes that are complete. */
  private readonly sizes = new Map<Node, number>();
  /** Anchored nodes being walked: an alias to one of them is circular. */
  private readonly open = new Set<Node>();

  constructor(private readonly limits: DocumentLimits) {}

  /** What walking each complete anchored node spent: what yaml spends again to merge it. */
  private readonly costs = new Map<Node, number>();

  /** The expanded size of `node`; `merged` for the value of a merge key (`<<`, YAML 1.1). */
  node(node: unknown, merged = false): number {
    if (node === null || node === undefined) return 0;
    if (isAlias(node)) return this.alias(node, merged);
    const n = node as Node;
    const start = n.range?.[0] ?? 0;
    this.spend(1, start);
    const before = this.expanded;
    if (n.anchor) {
      this.anchors.set(n.anchor, n);
      this.open.add(n);
    }
    let size = 1;
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        const key = pair.key;
        if (isScalar(key) && !(typeof key.value === "number" && Number.isNaN(key.value))) {
          if (seen.has(key.value)) {
            const at = (key as Node).range?.[0] ?? start;
            this.issues.push({
              offset: at,
              code: "yaml_syntax",
              message: "Map keys must be unique",
              duplicate: true,
            });
          } else seen.add(key.value);
        }
        const merge = isScalar(key) && typeof key.value === "symbol";
        size += this.node(key) + this.node(pair.value, merge);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) size += this.node(item, merged);
    }
    if (n.anchor) {
      this.open.delete(n);
      this.sizes.set(n, size);
      this.costs.set(n, this.expanded - before);
    }
    return size;
  }

  private alias(node: Node & { source: string }, merged: boolean): number {
    const at = node.range?.[0] ?? 0;
    this.aliases++;
    if (this.aliases === this.limits.aliases + 1) {
      this.issues.push({
        offset: at,
        code: "too_many_aliases",
        message: `more than ${count(this.limits.aliases)} aliases (the limit)`,
      });
    }
    const target = this.anchors.get(node.source);
    if (target === undefined) return 1;
    if (this.open.has(target)) {
      this.issues.push({
        offset: at,
        code: "circular_alias",
        message: `alias *${node.source} refers to a node that contains it`,
      });
      return 1;
    }
    const size = this.sizes.get(target) ?? 1;
    // A merge makes yaml build the merged mapping again (its own merges included) and copy its keys.
    this.spend(merged ? (this.costs.get(target) ?? 1) + size : size, at);
    return size;
  }

  private spend(n: number, at: number): void {
    this.expanded += n;
    if (this.overBudget || this.expanded <= this.limits.nodes) return;
    this.overBudget = true;
    this.issues.push({
      offset: at,
      code: "too_many_nodes",
      message: `the document expands to more than ${count(this.limits.nodes)} nodes (the limit; an alias counts as the nodes it repeats)`,
    });
  }
}
