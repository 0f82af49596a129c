// Links the segments of a message placed in its structure: each one's group, the segments it sees
// (`$ctx.seg`, `$ctx.ref`), its parent and the parent's children (see SegmentContext). The links depend
// only on the structure and the message's sequence of segment types, which a feed repeats message after
// message: they are worked out once per sequence as a plan of indexes, and each message only applies it
// (measured: linking was ~10% of a message's CPU, with most of it placing and searching the groups).
import type { Hl7Message } from "./message.js";
import { type GroupInstance, type GroupNode, type Placement, placeSegments } from "./structure.js";

/** What one segment is linked to, by index into the message's segments. */
interface SegmentLinks {
  group?: string;
  path?: string;
  /** The segments `$ctx.seg.<TYPE>` names, in order: [type, index, whether `$ctx.ref.<TYPE>` names it]. */
  seg: [string, number, boolean][];
  /** The segment it belongs to, and whether both are mapped (`ref.parent`, the parent's `children`). */
  parent?: { index: number; linked: boolean };
}

interface LinkPlan {
  structure: string;
  segments: SegmentLinks[];
}

/**
 * Plans per mapping (the `mapped` function of a run) and per structure and type sequence. Bounded: a feed
 * has a few dozen sequences; an input of endless variety only stops being cached, it never grows memory.
 */
const plans = new WeakMap<(type: string) => boolean, Map<string, LinkPlan>>();
const MAX_PLANS = 1024;
let planned = 0;

/**
 * Link plans worked out so far in this thread. A converter made once per run plans each message structure
 * and segment sequence once; one made per message (as the listener's did) plans every message again.
 */
export const linkPlansMade = (): number => planned;

/** Fills the context of every segment of `records` from its placement in `root` (named `structure`). */
export function linkByStructure(
  records: Hl7Message["segments"],
  root: GroupNode,
  structure: string,
  mapped: (type: string) => boolean,
): void {
  const types = records.map((r) => r.$ctx.type);
  let byKey = plans.get(mapped);
  if (byKey === undefined) {
    byKey = new Map();
    plans.set(mapped, byKey);
  }
  // JSON: a segment id is any bytes before the field separator, so no separator character is safe.
  const key = JSON.stringify([structure, types]);
  let plan = byKey.get(key);
  if (plan === undefined) {
    plan = planLinks(types, placeSegments(root, types), mapped, structure);
    planned++;
    if (byKey.size < MAX_PLANS) byKey.set(key, plan);
  }
  applyLinks(records, plan);
}

function applyLinks(records: Hl7Message["segments"], plan: LinkPlan): void {
  for (let i = 0; i < records.length; i++) {
    const r = records[i] as Hl7Message["segments"][number];
    const c = r.$ctx;
    const links = plan.segments[i] as SegmentLinks;
    c.structure = plan.structure;
    if (links.group !== undefined) {
      c.group = links.group;
      c.path = links.path as string;
    }
    for (const [t, j, ref] of links.seg) {
      const r2 = records[j] as Hl7Message["segments"][number];
      c.seg[t] = r2;
      if (ref) c.ref[t] = r2.$ctx.fullUrl;
    }
    const p = links.parent;
    if (p === undefined) continue;
    const pc = (records[p.index] as Hl7Message["segments"][number]).$ctx;
    c.parent_type = pc.type;
    if (p.linked) {
      c.ref.parent = pc.fullUrl;
      const siblings = pc.children[c.type] ?? [];
      siblings.push({ reference: c.fullUrl });
      pc.children[c.type] = siblings;
    }
    pc.child[c.type] ??= r;
  }
}

const single = (p: Placement | undefined): boolean =>
  p?.node !== undefined && !p.node.optional && !p.node.repeating;

/**
 * The links of a sequence of segment types placed in its structure. A segment sees the segments of its
 * group and of the groups around it (not inside other repetitions), the nearest of each type, before it
 * first; its parent is the nearest required single segment before it in its group or, for the first of a
 * group, before the group. MSH is nobody's parent: it heads the message, not a group.
 */
function planLinks(
  types: readonly string[],
  placed: Placement[],
  mapped: (type: string) => boolean,
  structure: string,
): LinkPlan {
  const visibleIn = visibility(types);
  const parentOf = parents(placed);
  // The message's first PID and PV1, for the segments no group shows one (found once, not per segment).
  const firstOf = new Map(["PID", "PV1"].map((t) => [t, types.indexOf(t)]));
  const segments = types.map((type, i): SegmentLinks => {
    const p = placed[i] as Placement;
    const links: SegmentLinks = { seg: [] };
    const names: string[] = [];
    for (let g: GroupInstance | undefined = p.instance; g?.parent !== undefined; g = g.parent)
      names.unshift(g.name);
    if (names.length > 0) {
      links.group = names[names.length - 1] as string;
      links.path = names.join(".");
    }
    const seen = new Set<string>();
    const see = (t: string, m: number) => {
      seen.add(t);
      links.seg.push([t, m, mapped(t)]);
    };
    // Per group, from the innermost out: each type's nearest segment before this one, in the order the
    // types first appear; then, for the types with none before, the first after, in message order. Found
    // per type by binary search, not by walking the group's segments for every segment of it (which made a
    // message of thousands of segments in one group take seconds: 8,000 took 1.6 s, 1,000 77 ms).
    for (let g: GroupInstance | undefined = p.instance; g !== undefined; g = g.parent) {
      const after: [string, number][] = [];
      for (const [t, at] of visibleIn(g)) {
        if (seen.has(t) || t === "MSH") continue;
        const k = firstAtLeast(at, i);
        if (k > 0) see(t, at[k - 1] as number);
        else {
          const m = at[at[k] === i ? k + 1 : k];
          if (m !== undefined) after.push([t, m]);
        }
      }
      after.sort((a, b) => a[1] - b[1]);
      for (const [t, m] of after) see(t, m);
    }
    for (const [t, first] of firstOf) {
      if (seen.has(t) || type === t) continue;
      if (first >= 0) see(t, first);
    }
    const parent = parentOf(i);
    if (parent !== undefined) {
      links.parent = { index: parent, linked: mapped(types[parent] as string) && mapped(type) };
    }
    return links;
  });
  return { structure, segments };
}

/** The index of the first element of the ascending list `at` that is >= `i` (its length when none is). */
function firstAtLeast(at: readonly number[], i: number): number {
  let lo = 0;
  let hi = at.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((at[mid] as number) < i) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The segments a group instance shows to the segments inside it: its own, and those of the non-repeating
 * groups in it (a PATIENT group's PID), but not those of other repetitions; by type, in the order the types
 * first appear, each type's segments in message order.
 */
function visibility(types: readonly string[]): (instance: GroupInstance) => Map<string, number[]> {
  const members = new Map<GroupInstance, number[]>();
  const membersOf = (instance: GroupInstance): number[] => {
    let v = members.get(instance);
    if (v === undefined) {
      v = [];
      for (const m of instance.members) {
        if (typeof m === "number") v.push(m);
        else if (!m.repeating) v.push(...membersOf(m));
      }
      v.sort((a, b) => a - b);
      members.set(instance, v);
    }
    return v;
  };
  const byType = new Map<GroupInstance, Map<string, number[]>>();
  return (instance) => {
    let out = byType.get(instance);
    if (out === undefined) {
      out = new Map();
      for (const m of membersOf(instance)) {
        const t = types[m] as string;
        const list = out.get(t);
        if (list === undefined) out.set(t, [m]);
        else list.push(m);
      }
      byType.set(instance, out);
    }
    return out;
  };
}

/**
 * Each segment's parent: the nearest required single segment before it in its group or, for the first of
 * a group, before the group. Per group instance, its single segments are listed once and searched.
 */
function parents(placed: Placement[]): (i: number) => number | undefined {
  const singles = new Map<GroupInstance, number[]>();
  const singlesOf = (instance: GroupInstance): number[] => {
    let list = singles.get(instance);
    if (list === undefined) {
      list = [];
      for (const m of instance.members) if (typeof m === "number" && m > 0 && single(placed[m])) list.push(m);
      singles.set(instance, list);
    }
    return list;
  };
  const firstSegment = (instance: GroupInstance): number => {
    const m = instance.members[0];
    return typeof m === "number" ? m : m === undefined ? Number.MAX_SAFE_INTEGER : firstSegment(m);
  };
  return (i) => {
    let instance = (placed[i] as Placement).instance;
    let before = i;
    for (;;) {
      const list = singlesOf(instance);
      const k = firstAtLeast(list, before);
      if (k > 0) return list[k - 1];
      if (instance.parent === undefined) return undefined;
      before = firstSegment(instance);
      instance = instance.parent;
    }
  };
}
