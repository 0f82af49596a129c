// Gathering, the load-time half: every `into.parent` resolved to an output that declares `key`, key arity
// checked, `at` compiled, and cycles refused; the result is the crossmap's GatherPlan.
import type { OutputState } from "./compile-output.js";
import type { GatherPlan, GatherRule } from "./gather.js";
import {
  compileGetter,
  PathError,
  parseSourcePath,
  parseTargetPath,
  SoftIndexResolver,
  type Step,
} from "./paths.js";
import type { KeyPath, Problems } from "./problems.js";
import type { IntoRule } from "./schema.js";

const arity = (paths: unknown): number => (Array.isArray(paths) ? paths.length : 1);

export function compileGatherPlan(outputs: readonly OutputState[], problems: Problems): GatherPlan {
  const byName = new Map<string, OutputState[]>();
  const byKey = new Map<string, OutputState>();
  for (const o of outputs) {
    byKey.set(o.key, o);
    byName.set(o.spec.name, [...(byName.get(o.spec.name) ?? []), o]);
  }
  const rules = new Map<string, GatherRule[]>();
  const parents = new Set<string>();
  const merged = new Set<string>();
  const groups = new Map<string, string>();
  const siblings = new Set<string>();
  const appendLists = new Map<string, Step[][]>();
  for (const o of outputs) {
    const lists = compileAppendLists(o, problems);
    if (lists) appendLists.set(o.key, lists);
    if (o.spec.doc.dedupe === true && o.spec.doc.into !== undefined && o.spec.doc.id !== undefined)
      siblings.add(o.key);
  }
  const edges = new Map<string, Set<string>>();
  for (const child of outputs) {
    const into = child.spec.doc.into;
    if (into === undefined) continue;
    const list = [into].flat();
    const compiled: GatherRule[] = [];
    list.forEach((rule, i) => {
      const at: KeyPath = Array.isArray(into) ? [...child.spec.at, "into", i] : [...child.spec.at, "into"];
      const named = byKey.get(rule.parent) ?? byName.get(rule.parent);
      const candidates = Array.isArray(named) ? named : named ? [named] : [];
      // Outputs of several entities with one name, each with a key and dedupe: one group of parents (the
      // per-person, per-day composition that rows of every table make).
      if (
        candidates.length > 1 &&
        candidates.every((c) => c.spec.doc.dedupe === true && c.spec.doc.key !== undefined)
      ) {
        const arities = new Set(candidates.map((c) => arity(c.spec.doc.key)));
        if (arities.size !== 1 || !arities.has(arity(rule.key))) {
          problems.add(
            [...at, "key"],
            "invalid_config",
            `the outputs named "${rule.parent}" (${candidates.map((c) => c.key).join(", ")}) and this key must have as many parts`,
          );
          return;
        }
        const group = rule.parent;
        const compiledRule = compileRule(rule, group, at, problems);
        if (!compiledRule) return;
        compiled.push(compiledRule);
        for (const c of candidates) {
          parents.add(c.key);
          merged.add(c.key);
          groups.set(c.key, group);
          edges.set(child.key, new Set([...(edges.get(child.key) ?? []), c.key]));
        }
        return;
      }
      if (candidates.length !== 1) {
        problems.add(
          [...at, "parent"],
          "unknown_parent",
          candidates.length === 0
            ? `no output is named "${rule.parent}" (outputs: ${[...byName.keys()].join(", ")})`
            : `"${rule.parent}" names outputs of several entities (${candidates.map((c) => c.key).join(", ")}); write it as <source entity>.<output name>, or give each of them a key and dedupe: true to make them one group of parents`,
        );
        return;
      }
      const parent = candidates[0] as OutputState;
      const parentKey = parent.spec.doc.key;
      if (parentKey === undefined) {
        problems.add(
          [...at, "parent"],
          "unknown_parent",
          `output "${parent.key}" declares no key for records to be gathered into it`,
        );
        return;
      }
      if (arity(parentKey) !== arity(rule.key)) {
        problems.add(
          [...at, "key"],
          "invalid_config",
          `this key has ${arity(rule.key)} part(s) but ${parent.key}'s key has ${arity(parentKey)}`,
        );
        return;
      }
      const compiledRule = compileRule(rule, parent.key, at, problems);
      if (!compiledRule) return;
      compiled.push(compiledRule);
      parents.add(parent.key);
      if (parent.spec.doc.dedupe === true) merged.add(parent.key);
      edges.set(child.key, new Set([...(edges.get(child.key) ?? []), parent.key]));
    });
    if (compiled.length === list.length) rules.set(child.key, compiled);
  }
  // A rule naming one member of a group (`<entity>.<name>`) gathers into the group like the others.
  for (const list of rules.values())
    for (const r of list) {
      const group = groups.get(r.parent);
      if (group !== undefined) r.parent = group;
    }
  const cycle = findCycle(edges);
  if (cycle) {
    const first = byKey.get(cycle[0] as string);
    problems.add(
      first ? [...first.spec.at, "into"] : ["entity_map"],
      "gather_cycle",
      `gathering goes round in a circle: ${cycle.join(" -> ")}`,
    );
  }
  return { rules, parents, merged, siblings, appendLists, groups };
}

/** `merge_append` of an output: each a path relative to its record, without [+] or [=]. */
function compileAppendLists(o: OutputState, problems: Problems): Step[][] | undefined {
  const paths = o.spec.doc.merge_append;
  if (paths === undefined) return undefined;
  if (o.spec.doc.dedupe !== true) {
    problems.add(
      [...o.spec.at, "merge_append"],
      "invalid_config",
      "merge_append says how records are merged: it needs dedupe: true",
    );
    return undefined;
  }
  const out: Step[][] = [];
  paths.forEach((path, i) => {
    try {
      const segments = parseTargetPath(path);
      if (segments.some((s) => s.index === "+" || s.index === "=")) {
        throw new PathError(`"${path}": a list to append to is named without [+] or [=]`);
      }
      out.push(new SoftIndexResolver().resolve(path, segments));
    } catch (err) {
      if (!(err instanceof PathError)) throw err;
      problems.add([...o.spec.at, "merge_append", i], "invalid_path", err.message);
    }
  });
  return out.length === paths.length ? out : undefined;
}

/** One `into` rule's path, value, join and encode, compiled for the parent (or group of parents) it names. */
function compileRule(
  rule: IntoRule,
  parent: string,
  at: KeyPath,
  problems: Problems,
): GatherRule | undefined {
  let steps: (string | number)[];
  let append = false;
  try {
    const segments = parseTargetPath(rule.at);
    const last = segments[segments.length - 1];
    if (segments.slice(0, -1).some((s) => s.index === "+" || s.index === "=") || last?.index === "=") {
      throw new PathError(`"${rule.at}": only the last step of "at" may be [+] (append)`);
    }
    if (last?.index === "+") {
      append = true;
      segments[segments.length - 1] = { name: last.name };
    }
    steps = new SoftIndexResolver().resolve(rule.at, segments);
  } catch (err) {
    if (!(err instanceof PathError)) throw err;
    problems.add([...at, "at"], "invalid_path", err.message);
    return undefined;
  }
  if (rule.join !== undefined && append) {
    problems.add([...at, "at"], "invalid_config", `join writes one string: "at" cannot end in [+]`);
    return undefined;
  }
  if (rule.encode !== undefined && rule.join === undefined) {
    problems.add([...at, "encode"], "invalid_config", "encode applies to joined text: it needs join");
    return undefined;
  }
  const compiledRule: GatherRule = { parent, steps, append, at: rule.at };
  if (rule.value !== undefined) {
    try {
      compiledRule.value = compileGetter(parseSourcePath(rule.value));
    } catch (err) {
      if (!(err instanceof PathError)) throw err;
      problems.add([...at, "value"], "invalid_path", err.message);
      return undefined;
    }
  }
  if (rule.join !== undefined) compiledRule.join = rule.join;
  if (rule.encode !== undefined) compiledRule.encode = rule.encode;
  return compiledRule;
}

function findCycle(edges: ReadonlyMap<string, ReadonlySet<string>>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (n: string): string[] | undefined => {
    if (state.get(n) === "done") return undefined;
    if (state.get(n) === "open") return [...path.slice(path.indexOf(n)), n];
    state.set(n, "open");
    path.push(n);
    for (const m of edges.get(n) ?? []) {
      const c = visit(m);
      if (c) return c;
    }
    path.pop();
    state.set(n, "done");
    return undefined;
  };
  for (const n of edges.keys()) {
    const c = visit(n);
    if (c) return c;
  }
  return undefined;
}
