// How an HL7 v2 field split by the ER7 reader travels in a record, so that hl7v2_field never re-splits text
// the reader already split with the message's own delimiters and unescaped.
//
// A field with one repetition of one component of one subcomponent is a plain string ("M"), so value_map
// and friends work on `PID.8`. Anything richer is an Er7Node: an object whose keys "1".."n" are the
// components of the first repetition (a string, or a node of subcomponents keyed "1".."m"), so paths such
// as `PID.5.1` and `PID.5.1.1` work, plus a symbol-keyed copy of the whole split (all repetitions).

/** Repetitions -> components -> subcomponents, all unescaped. */
export type Er7Split = string[][][];

/** Marks a node's full split, and marks a record as produced by the ER7 reader. */
export const ER7 = Symbol.for("crossmap.hl7v2.er7");

export interface Er7Node {
  [ER7]: Er7Split;
  [component: string]: string | Er7Node;
}

/** True for records made by the ER7 reader: their plain strings are already unescaped leaf values. */
export const isEr7Record = (record: object): boolean => ER7 in record;

function subNode(subs: string[]): Er7Node {
  const n = { [ER7]: [[subs]] } as Er7Node;
  for (let i = 0; i < subs.length; i++) if (subs[i] !== "") n[i + 1] = subs[i] as string;
  return n;
}

/** One repetition as a node: components keyed from "1"; empty components are left out. */
export function repetitionNode(rep: string[][], all: Er7Split): Er7Node {
  const n = { [ER7]: all } as Er7Node;
  for (let i = 0; i < rep.length; i++) {
    const c = rep[i] as string[];
    if (c.length === 1) {
      if (c[0] !== "") n[i + 1] = c[0] as string;
    } else if (c.some((s) => s !== "")) n[i + 1] = subNode(c);
  }
  return n;
}

/** The record value of a split field: a string when it is a single leaf, else a node of its first repetition. */
export function fieldValue(split: Er7Split): string | Er7Node {
  const first = split[0] as string[][];
  if (split.length === 1 && first.length === 1 && (first[0] as string[]).length === 1) {
    return (first[0] as string[])[0] as string;
  }
  return repetitionNode(first, split);
}

/** The split behind a record value, when the value came from the reader. */
export function er7Split(v: unknown): Er7Split | undefined {
  return v !== null && typeof v === "object" && ER7 in v ? (v as Er7Node)[ER7] : undefined;
}
