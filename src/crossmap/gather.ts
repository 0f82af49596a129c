// Gathering, the runtime half: records produced with `into` are placed inside the parent record whose
// `key` matches, at the rule's path (appended, set, or joined into one string). The same function serves
// every scope (an HL7 v2 message, an HTTP call, a CLI run's held records): the caller decides what a unit is.
import { fillIn } from "./fill-in.js";
import type { Getter, Step } from "./paths.js";
import type { TargetRecord } from "./types.js";

/** One compiled `into` rule of a child output. */
export interface GatherRule {
  /** Output key (`<source entity>.<output name>`) of the parent. */
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
}

/** A produced record taking part in gathering. `place` is whatever the caller needs to report it. */
export interface GatherItem<P> {
  output: string;
  entity: string;
  value: TargetRecord;
  key?: string;
  into?: { rule: number; key: string };
  place: P;
}

export interface GatherOutcome<P> {
  /** Records written as themselves (parents with their children inside, and records outside gathering), in order. */
  top: GatherItem<P>[];
  /** Children whose parent is not among the items. */
  orphans: GatherItem<P>[];
  /** Parents whose key an earlier parent of the same output already had: written, but given no children. */
  duplicates: GatherItem<P>[];
  /** Parents merged into an earlier one with the same key (outputs with `dedupe`): not written. */
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
    const k = `${item.output}\u0000${item.key}`;
    const first = parents.get(k);
    if (first === undefined) parents.set(k, item);
    else if (plan.merged?.has(item.output)) {
      fillIn(first.value, item.value);
      mergedAway.add(item);
    } else duplicates.push(item);
  }
  const orphans: GatherItem<P>[] = [];
  const top: GatherItem<P>[] = [];
  const joins = new Map<TargetRecord, Map<GatherRule, string[]>>();
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
  return { top, orphans, duplicates, merged: mergedAway.size };
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
