// Message structures (segment groups such as ORDER_OBSERVATION, OBSERVATION, INSURANCE) read from
// crossmaps/standards/hl7v2/message-structures.yaml, and the matcher that places each segment of a message
// in an instance of its group. Real feeds break the rules: the matcher never rejects a message, it places
// a segment the structure does not expect in the group it is in and marks it.
import { join } from "node:path";
import { readBuiltinYaml } from "../../crossmap/builtin-data.js";
import { BUILTIN_DIR } from "../../crossmap/catalog.js";

export interface SegmentNode {
  kind: "segment";
  /** One type, or the alternatives of a choice (ORM_O01's OBR|RQD|RQ1|RXO|ODS|ODT). */
  types: string[];
  optional: boolean;
  repeating: boolean;
}

export interface GroupNode {
  kind: "group";
  name: string;
  optional: boolean;
  repeating: boolean;
  children: StructureNode[];
  /** Segment types that can open an instance of this group (its leading optional items and first required one). */
  starts: Set<string>;
}

export type StructureNode = SegmentNode | GroupNode;

export interface MessageStructures {
  /** `ADT^A04` -> `ADT_A01` (HL7 table 0354). */
  events: ReadonlyMap<string, string>;
  structures: ReadonlyMap<string, GroupNode>;
}

/** An occurrence of a group in a message; the message itself is the root instance (name ""). */
export interface GroupInstance {
  name: string;
  parent: GroupInstance | undefined;
  /** The instance's segments (indexes into the message) and child instances, in message order. */
  members: (number | GroupInstance)[];
  /** Whether the group repeats (its instances are not looked into from outside, see `visible`). */
  repeating: boolean;
}

/** Where one segment was placed. */
export interface Placement {
  instance: GroupInstance;
  /** The structure item it matched, or undefined when the structure does not expect it there. */
  node: SegmentNode | undefined;
}

const NOTATION = /^(\[)?(\{)?([A-Z0-9_|]+)(\})?(\])?$/;

function item(text: string, where: string): { name: string; optional: boolean; repeating: boolean } {
  const m = NOTATION.exec(text);
  if (!m || Boolean(m[2]) !== Boolean(m[4]) || Boolean(m[1]) !== Boolean(m[5])) {
    throw new Error(`${where}: "${text}" is not HL7 notation (X, [X], {X}, [{X}])`);
  }
  return { name: m[3] as string, optional: m[1] !== undefined, repeating: m[2] !== undefined };
}

function compileItems(list: unknown, where: string): StructureNode[] {
  if (!Array.isArray(list)) throw new Error(`${where}: expected a list of segments and groups`);
  return list.map((x): StructureNode => {
    if (typeof x === "string") {
      const { name, optional, repeating } = item(x, where);
      return { kind: "segment", types: name.split("|"), optional, repeating };
    }
    if (x === null || typeof x !== "object" || Object.keys(x).length !== 1) {
      throw new Error(`${where}: a group is a map of one key, its name, to its items`);
    }
    const [key, children] = Object.entries(x as Record<string, unknown>)[0] as [string, unknown];
    const { name, optional, repeating } = item(key, where);
    return group(name, optional, repeating, compileItems(children, `${where}.${name}`));
  });
}

function group(name: string, optional: boolean, repeating: boolean, children: StructureNode[]): GroupNode {
  const starts = new Set<string>();
  for (const c of children) {
    for (const t of c.kind === "segment" ? c.types : c.starts) starts.add(t);
    if (!c.optional) break;
  }
  return { kind: "group", name, optional, repeating, children, starts };
}

interface StructuresFile {
  events?: Record<string, string>;
  structures?: Record<string, { segments?: unknown }>;
}

let cached: MessageStructures | undefined;

/** The structures file (default: the built-in one), compiled once per process. */
export function messageStructures(file?: string): MessageStructures {
  if (cached && file === undefined) return cached;
  const path = file ?? join(BUILTIN_DIR, "standards", "hl7v2", "message-structures.yaml");
  const doc = readBuiltinYaml(path) as StructuresFile;
  const structures = new Map<string, GroupNode>();
  for (const [name, def] of Object.entries(doc.structures ?? {})) {
    structures.set(name, group("", false, false, compileItems(def.segments, `${path}: ${name}`)));
  }
  const out = { events: new Map(Object.entries(doc.events ?? {})), structures };
  if (file === undefined) cached = out;
  return out;
}

/** The structure of a message from MSH-9: the event (`ADT^A04`) first, else the structure it names (MSH-9.3). */
export function structureOf(
  s: MessageStructures,
  type: string | undefined,
  event: string | undefined,
  named: string | undefined,
): GroupNode | undefined {
  const byEvent = type && event ? s.events.get(`${type}^${event}`) : undefined;
  return s.structures.get(byEvent ?? named ?? "");
}

interface Frame {
  node: GroupNode;
  instance: GroupInstance;
  /** Index of the child matched last (-1 before the first). */
  at: number;
}

const opens = (c: StructureNode, type: string): boolean =>
  c.kind === "segment" ? c.types.includes(type) : c.starts.has(type);

/**
 * Places every segment type of a message in the structure: a segment goes to the first item at or after
 * the current one that can take it, in the innermost open group first, then outwards (closing groups),
 * opening a new instance of a repeating group when it starts again. A segment no open group can take stays
 * in the innermost group, unmatched.
 */
export function placeSegments(root: GroupNode, types: readonly string[]): Placement[] {
  const top: GroupInstance = { name: "", parent: undefined, members: [], repeating: false };
  const stack: Frame[] = [{ node: root, instance: top, at: -1 }];
  const out: Placement[] = [];
  types.forEach((type, index) => {
    for (let depth = stack.length - 1; depth >= 0; depth--) {
      const frame = stack[depth] as Frame;
      const children = frame.node.children;
      // The child matched last may take another occurrence only when it repeats; an inner group's
      // repetition is a new instance of it.
      for (let j = Math.max(frame.at, 0); j < children.length; j++) {
        const child = children[j] as StructureNode;
        if (!opens(child, type)) continue;
        if (j === frame.at && !child.repeating) continue;
        stack.length = depth + 1;
        frame.at = j;
        out.push(descend(stack, frame, child, type, index));
        return;
      }
    }
    const inner = stack[stack.length - 1] as Frame;
    inner.instance.members.push(index);
    out.push({ instance: inner.instance, node: undefined });
  });
  return out;
}

/** Opens the group instances down to the segment that takes `type`, and places it. */
function descend(stack: Frame[], frame: Frame, child: StructureNode, type: string, index: number): Placement {
  if (child.kind === "segment") {
    frame.instance.members.push(index);
    return { instance: frame.instance, node: child };
  }
  const instance: GroupInstance = {
    name: child.name,
    parent: frame.instance,
    members: [],
    repeating: child.repeating,
  };
  frame.instance.members.push(instance);
  const inner: Frame = { node: child, instance, at: -1 };
  stack.push(inner);
  const k = child.children.findIndex((c) => opens(c, type));
  inner.at = k;
  return descend(stack, inner, child.children[k] as StructureNode, type, index);
}
