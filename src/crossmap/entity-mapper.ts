// The per-record path of a source entity with several outputs, conditions, for_each, ids or gathering:
// groups in document order, each output built by its own compiled field chain (mapper.ts). Everything here
// was decided at load; per record there are only closure calls.

import type { Predicate } from "./conditions.js";
import { fillIn } from "./fill-in.js";
import type { Identity } from "./identity.js";
import type { Getter } from "./paths.js";
import { elementScope } from "./scope.js";
import type {
  MapAllResult,
  MapOutput,
  MappingIssue,
  MapResult,
  Position,
  RecordMapper,
  SourceRecord,
} from "./types.js";

export interface CompiledOutput {
  /** `<source entity>.<name>` */
  key: string;
  name: string;
  entity: string;
  when?: Predicate;
  build: RecordMapper;
  id?: (scope: SourceRecord) => string | number | bigint | undefined;
  /** With `id.identity`: the id, and why it is not from a business identifier when it is not. */
  identity?: (scope: SourceRecord) => Identity;
  /** Only for outputs other outputs gather into. */
  gatherKey?: (scope: SourceRecord) => string | undefined;
  /** The key of each `into` rule, in order: the first present one applies. */
  into?: ((scope: SourceRecord) => string | undefined)[];
  dedupe: boolean;
}

export interface CompiledGroup {
  choose: boolean;
  when?: Predicate;
  forEach?: Getter;
  outputs: CompiledOutput[];
}

/** An `exclude` rule: a record for which `when` holds gives no output, only an `excluded` warning. */
export interface CompiledExclusion {
  when: Predicate;
  reason: string;
}

export interface EntityMapperParts {
  source: string;
  target: string;
  sourceEntity: string;
  groups: CompiledGroup[];
  exclusions?: CompiledExclusion[];
}

const EMPTY: readonly MappingIssue[] = Object.freeze([]);

/**
 * The ids of the outputs of the record being mapped, for `$id` / `$id.<output>` getters: mapping is
 * synchronous, so one slot is enough, and a derived id (a SHA hash, or a walk of business identifiers) is
 * computed once per record and output instead of once per reader (the HL7 v2 samples read a Patient's id
 * from a dozen other outputs: ~4% of a message's CPU went to deriving the same ids again).
 */
export const idMemo: {
  scope: SourceRecord | undefined;
  ids: Map<string, Identity>;
} = {
  scope: undefined,
  ids: new Map(),
};

/** The id of output `key` for `scope`, derived at most once while that record is being mapped. */
export function memoizedId(key: string, scope: SourceRecord, derive: () => Identity): Identity {
  if (idMemo.scope !== scope) {
    idMemo.scope = scope;
    idMemo.ids.clear();
  }
  let r = idMemo.ids.get(key);
  if (r === undefined) {
    r = derive();
    idMemo.ids.set(key, r);
  }
  return r;
}

export function createEntityMapper(parts: EntityMapperParts): RecordMapper {
  const { groups, sourceEntity } = parts;
  const exclusions = parts.exclusions ?? [];
  const first = groups[0]?.outputs[0];
  const anyDedupe = groups.some((g) => g.outputs.some((o) => o.dedupe));

  const produce = (
    o: CompiledOutput,
    scope: SourceRecord,
    position: Position | undefined,
    outputs: MapOutput[],
    issues: MappingIssue[],
  ): void => {
    // The id first: the output's own fields read it as `$id` (see idMemo), so it is derived once.
    let id: string | number | bigint | undefined;
    let fellBack: string | undefined;
    if (o.identity !== undefined || o.id !== undefined) {
      const r = memoizedId(o.key, scope, () =>
        o.identity !== undefined ? o.identity(scope) : { id: o.id?.(scope) },
      );
      id = r.id;
      fellBack = r.fallback;
    }
    const r = o.build.map(scope, position);
    // Said only of a record that is complete: one missing a required field is not written anyway.
    if (fellBack !== undefined && !r.issues.some((i) => i.code === "missing_required")) {
      issues.push(
        located(position, {
          field: sourceEntity,
          target: `${o.name}.id`,
          code: "no_identity",
          severity: "warning",
          message: `${o.name}: ${fellBack}`,
        }),
      );
    }
    for (const i of r.issues) issues.push(i);
    const out: MapOutput = { output: o.key, entity: o.entity, value: r.value };
    if (o.dedupe) out.dedupe = true;
    if (id !== undefined) out.id = id;
    if (o.gatherKey !== undefined) {
      const key = o.gatherKey(scope);
      if (key !== undefined) out.key = key;
    }
    if (o.into !== undefined) {
      let rule = -1;
      let key: string | undefined;
      for (let i = 0; i < o.into.length && key === undefined; i++) {
        key = (o.into[i] as (s: SourceRecord) => string | undefined)(scope);
        rule = i;
      }
      if (key === undefined) {
        issues.push(
          located(position, {
            field: sourceEntity,
            target: o.name,
            code: "no_parent_key",
            severity: "error",
            message: `${o.name} is gathered into a parent, but the record has no value for any of its "into" keys; it was not written`,
          }),
        );
        return;
      }
      out.into = { rule, key };
    }
    outputs.push(out);
  };

  const runGroup = (
    g: CompiledGroup,
    scope: SourceRecord,
    position: Position | undefined,
    outputs: MapOutput[],
    issues: MappingIssue[],
  ): void => {
    if (g.when !== undefined && !g.when(scope)) return;
    if (!g.choose) {
      const o = g.outputs[0] as CompiledOutput;
      if (o.when === undefined || o.when(scope)) produce(o, scope, position, outputs, issues);
      return;
    }
    for (const o of g.outputs) {
      if (o.when === undefined || o.when(scope)) {
        produce(o, scope, position, outputs, issues);
        return;
      }
    }
    issues.push(
      located(position, {
        field: sourceEntity,
        target: g.outputs.map((o) => o.name).join("|"),
        code: "no_route",
        severity: "warning",
        message: `no alternative of ${sourceEntity}'s choose (${g.outputs.map((o) => o.name).join(", ")}) applies to this record, and there is no default`,
      }),
    );
  };

  const mapAll = (record: SourceRecord, position?: Position): MapAllResult => {
    for (let i = 0; i < exclusions.length; i++) {
      const x = exclusions[i] as CompiledExclusion;
      if (x.when(record)) return excluded(x, position);
    }
    const outputs: MapOutput[] = [];
    const issues: MappingIssue[] = [];
    idMemo.scope = undefined;
    for (const g of groups) {
      if (g.forEach === undefined) {
        runGroup(g, record, position, outputs, issues);
        continue;
      }
      const list = g.forEach(record);
      if (list === undefined || list === null) continue;
      const elements = Array.isArray(list) ? list : [list];
      for (let i = 0; i < elements.length; i++) {
        const el = elements[i];
        if (el === undefined || el === null) continue;
        runGroup(g, elementScope(record, el, i), position, outputs, issues);
      }
    }
    // Not kept past the record: it would hold the record alive, and ids are only shared within one.
    idMemo.scope = undefined;
    idMemo.ids.clear();
    return {
      outputs: anyDedupe ? dedupe(outputs, groups) : outputs,
      issues: issues.length > 0 ? issues : EMPTY,
    };
  };

  const excluded = (x: CompiledExclusion, position: Position | undefined): MapAllResult => ({
    outputs: [],
    issues: [
      located(position, {
        field: sourceEntity,
        target: "",
        code: "excluded",
        severity: "warning",
        message: `left out: ${x.reason}`,
      }),
    ],
  });

  return {
    source: parts.source,
    target: parts.target,
    sourceEntity,
    targetEntity: first?.entity ?? "",
    multi: true,
    mapAll,
    map(record: SourceRecord, position?: Position): MapResult {
      const r = mapAll(record, position);
      return { value: r.outputs[0]?.value ?? {}, issues: r.issues };
    },
  };
}

function located(position: Position | undefined, i: Omit<MappingIssue, "record">): MappingIssue {
  return position === undefined ? i : { record: position, ...i };
}

/** Within one record's outputs: one record per (entity, id) of a `dedupe` output; later ones fill in gaps. */
function dedupe(outputs: MapOutput[], groups: readonly CompiledGroup[]): MapOutput[] {
  const deduped = new Set<string>();
  for (const g of groups) for (const o of g.outputs) if (o.dedupe) deduped.add(o.key);
  const seen = new Map<string, MapOutput>();
  const kept: MapOutput[] = [];
  for (const o of outputs) {
    if (o.id === undefined || !deduped.has(o.output)) {
      kept.push(o);
      continue;
    }
    const k = `${o.entity}\u0000${String(o.id)}`;
    const earlier = seen.get(k);
    if (earlier) fillIn(earlier.value, o.value);
    else {
      seen.set(k, o);
      kept.push(o);
    }
  }
  return kept;
}
