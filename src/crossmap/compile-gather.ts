// Gathering, the load-time half: every `into.parent` resolved to an output that declares `key`, key arity
// checked, `at` compiled, and cycles refused; the result is the crossmap's GatherPlan.
import type { OutputState } from "./compile-output.js";
import type { GatherPlan, GatherRule } from "./gather.js";
import { compileGetter, PathError, parseSourcePath, parseTargetPath, SoftIndexResolver } from "./paths.js";
import type { KeyPath, Problems } from "./problems.js";

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
      if (candidates.length !== 1) {
        problems.add(
          [...at, "parent"],
          "unknown_parent",
          candidates.length === 0
            ? `no output is named "${rule.parent}" (outputs: ${[...byName.keys()].join(", ")})`
            : `"${rule.parent}" names outputs of several entities (${candidates.map((c) => c.key).join(", ")}); write it as <source entity>.<output name>`,
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
        return;
      }
      if (rule.join !== undefined && append) {
        problems.add([...at, "at"], "invalid_config", `join writes one string: "at" cannot end in [+]`);
        return;
      }
      if (rule.encode !== undefined && rule.join === undefined) {
        problems.add([...at, "encode"], "invalid_config", "encode applies to joined text: it needs join");
        return;
      }
      const compiledRule: GatherRule = { parent: parent.key, steps, append, at: rule.at };
      if (rule.value !== undefined) {
        try {
          compiledRule.value = compileGetter(parseSourcePath(rule.value));
        } catch (err) {
          if (!(err instanceof PathError)) throw err;
          problems.add([...at, "value"], "invalid_path", err.message);
          return;
        }
      }
      if (rule.join !== undefined) compiledRule.join = rule.join;
      if (rule.encode !== undefined) compiledRule.encode = rule.encode;
      compiled.push(compiledRule);
      parents.add(parent.key);
      if (parent.spec.doc.dedupe === true) merged.add(parent.key);
      edges.set(child.key, new Set([...(edges.get(child.key) ?? []), parent.key]));
    });
    if (compiled.length === list.length) rules.set(child.key, compiled);
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
  return { rules, parents, merged };
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
