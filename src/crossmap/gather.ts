// Gathering, the runtime half: records produced with `into` are placed inside the parent record whose
// `key` matches, at the rule's path (appended, set, or joined into one string). The same function serves
// every scope (an HL7 v2 message, an HTTP call, a CLI run's held records): the caller decides what a unit is.
import { fillIn } from "./fill-in.js";
import type { Getter, Step } from "./paths.js";
import type { TargetRecord } from "./types.js";

/** One compiled `into` rule of a child output. */
export interface GatherRule {
  /** Output key (`<source entity>.<output name>`) of the parent, or the name of a group of parents. */
  parent: string;
  /** Path inside the parent; `append` adds to the array there, else the value is set. */
  steps: Step[];
  append: boolean;
  /** Reads the part of the child record that is placed (default: the whole record). */
  value?: Getter;
  join?: string;
  encode?: "base64";
  /** `at` as written, for messages. */
  at: string;
}

export interface GatherPlan {
  /** Child output key -> its rules, in document order (`into.rule` indexes them). */
  readonly rules: ReadonlyMap<string, readonly GatherRule[]>;
  /** Output keys other outputs gather into: their records must be held until their group is complete. */
  readonly parents: ReadonlySet<string>;
  /** Parent outputs with `dedupe`: a later parent with the same key is merged into the first, not written. */
  readonly merged?: ReadonlySet<string>;
  /** Child outputs with `dedupe` and `id`: children of one parent with the same id are merged into the first. */
  readonly siblings?: ReadonlySet<string>;
  /**
   * Parent outputs of several entities with one name (each with key and dedupe) -> that name: parents of one
   * group with one key are one record, and `into` rules name the group.
   */
  readonly groups?: ReadonlyMap<string, string>;
  /** Outputs with `merge_append`: the lists a merge appends (paths relative to the record). */
  readonly appendLists?: ReadonlyMap<string, readonly (readonly Step[])[]>;
}

/** A produced record taking part in gathering. `place` is whatever the caller needs to report it. */
export interface GatherItem<P> {
  output: string;
  entity: string;
  value: TargetRecord;
  key?: string;
  into?: { rule: number; key: string };
  /** The record's derived id (outputs with `id`): siblings with one id are one record (`dedupe`). */
  id?: string | number | bigint;
  place: P;
}

export interface GatherOutcome<P> {
  /** Records written as themselves (parents with their children inside, and records outside gathering), in order. */
  top: GatherItem<P>[];
  /** Children whose parent is not among the items. */
  orphans: GatherItem<P>[];
  /** Parents whose key an earlier parent of the same output already had: written, but given no children. */
  duplicates: GatherItem<P>[];
  /** Records merged into an earlier one: parents with its key, or siblings with its id (outputs with `dedupe`). */
  merged: number;
}

export const EMPTY_GATHER_PLAN: GatherPlan = { rules: new Map(), parents: new Set() };

/** Whether a produced record must wait for its group: it is a child, or a parent others gather into. */
export const isHeld = (plan: GatherPlan, output: string, into: unknown): boolean =>
  into !== undefined || plan.parents.has(output);

/** Places every child inside its parent; objects are shared, so nesting (a parent that is itself a child) composes. */
export function gather<P>(plan: GatherPlan, items: readonly GatherItem<P>[]): GatherOutcome<P> {
  const parents = new Map<string, GatherItem<P>>();
  const duplicates: GatherItem<P>[] = [];
  const mergedAway = new Set<GatherItem<P>>();
  for (const item of items) {
    if (item.key === undefined || !plan.parents.has(item.output)) continue;
    const k = `${plan.groups?.get(item.output) ?? item.output}\u0000${item.key}`;
    const first = parents.get(k);
    if (first === undefined) parents.set(k, item);
    else if (plan.merged?.has(item.output)) {
      mergeRecord(first.value, item.value, plan.appendLists?.get(item.output));
      mergedAway.add(item);
    } else duplicates.push(item);
  }
  const orphans: GatherItem<P>[] = [];
  const top: GatherItem<P>[] = [];
  const joins = new Map<TargetRecord, Map<GatherRule, string[]>>();
  // Per parent record: `<output>\0<id>` -> the first sibling placed with that id.
  const siblings = new Map<TargetRecord, Map<string, TargetRecord>>();
  let siblingsMerged = 0;
  for (const item of items) {
    if (mergedAway.has(item)) continue;
    if (item.into === undefined) {
      top.push(item);
      continue;
    }
    const rule = plan.rules.get(item.output)?.[item.into.rule];
    const parent = rule && parents.get(`${rule.parent}\u0000${item.into.key}`);
    if (!rule || !parent) {
      orphans.push(item);
      continue;
    }
    if (item.id !== undefined && rule.value === undefined && plan.siblings?.has(item.output)) {
      let byId = siblings.get(parent.value);
      if (!byId) {
        byId = new Map();
        siblings.set(parent.value, byId);
      }
      const k = `${item.output}\u0000${String(item.id)}`;
      const first = byId.get(k);
      if (first !== undefined) {
        mergeRecord(first, item.value, plan.appendLists?.get(item.output));
        siblingsMerged++;
        continue;
      }
      byId.set(k, item.value);
    }
    const v = rule.value ? rule.value(item.value) : item.value;
    if (v === undefined || v === null || v === "") continue;
    if (rule.join !== undefined) {
      let byRule = joins.get(parent.value);
      if (!byRule) {
        byRule = new Map();
        joins.set(parent.value, byRule);
      }
      const parts = byRule.get(rule) ?? [];
      parts.push(typeof v === "string" ? v : String(v));
      byRule.set(rule, parts);
    } else place(parent.value, rule, v);
  }
  for (const [record, byRule] of joins) {
    for (const [rule, parts] of byRule) {
      const text = parts.join(rule.join);
      place(record, rule, rule.encode === "base64" ? Buffer.from(text, "utf8").toString("base64") : text);
    }
  }
  return { top, orphans, duplicates, merged: mergedAway.size + siblingsMerged };
}

/**
 * Merges a later copy of a `dedupe` output (same entity and id within a unit) into the first: the lists
 * its `merge_append` names are appended, the rest fills in what the first lacks.
 */
export function mergeCopy(plan: GatherPlan, output: string, into: TargetRecord, from: TargetRecord): void {
  mergeRecord(into, from, plan.appendLists?.get(output));
}

/**
 * Merges a later record into the first that stands for the same thing: the lists at `append` paths are
 * appended to the first's (two rows that each hold one element of one list), then the rest fills in
 * what the first lacks. `from` is consumed.
 */
function mergeRecord(into: TargetRecord, from: TargetRecord, append?: readonly (readonly Step[])[]): void {
  for (const steps of append ?? []) {
    const holder = containerAt(from, steps);
    const last = steps[steps.length - 1] as Step;
    const list = holder?.[last];
    if (!holder || !Array.isArray(list)) continue;
    const target = containerAt(into, steps, true) as Record<Step, unknown>;
    const have = target[last];
    if (Array.isArray(have)) have.push(...list);
    else if (have === undefined) target[last] = list;
    delete holder[last];
  }
  fillIn(into, from);
}

/** The object or array holding the last step of `steps` (made on the way with `create`). */
function containerAt(
  record: TargetRecord,
  steps: readonly Step[],
  create = false,
): Record<Step, unknown> | undefined {
  let cur: Record<Step, unknown> = record;
  for (let i = 0; i < steps.length - 1; i++) {
    const s = steps[i] as Step;
    let next = cur[s];
    if (next === undefined || next === null || typeof next !== "object") {
      if (!create) return undefined;
      next = typeof steps[i + 1] === "number" ? [] : {};
      cur[s] = next;
    }
    cur = next as Record<Step, unknown>;
  }
  return cur;
}

function place(record: TargetRecord, rule: GatherRule, value: unknown): void {
  let cur: Record<Step, unknown> = record;
  const steps = rule.steps;
  for (let i = 0; i < steps.length - 1; i++) {
    const s = steps[i] as Step;
    let next = cur[s];
    if (next === undefined || next === null || typeof next !== "object") {
      next = typeof steps[i + 1] === "number" ? [] : {};
      cur[s] = next;
    }
    cur = next as Record<Step, unknown>;
  }
  const last = steps[steps.length - 1] as Step;
  if (rule.append) {
    const list = cur[last];
    if (Array.isArray(list)) list.push(value);
    else cur[last] = [value];
  } else cur[last] = value;
}
