// Checks a crossmap's names against the standard definitions in crossmaps/standards/: every source entity
// and field it reads, every target entity and top-level element it writes. A name the definition lacks is
// a warning with a "did you mean" (an error with `crossmap check --strict`); a standard with no definition,
// or an entity whose fields the definition does not list, is not checked.

import { headField } from "./paths.js";
import type { KeyPath } from "./problems.js";
import { suggest } from "./problems.js";
import type { StandardDefinition } from "./standards.js";

/** Where warnings go: the loader's located collector. */
export interface WarningSink {
  add(path: KeyPath, code: string, message: string, preferKey?: boolean): void;
  /** True once the sink lists no more (it only counts): a "did you mean" is then not worth its cost. */
  readonly full?: boolean;
}

export interface StandardsCheckOptions {
  source: StandardDefinition | undefined;
  target: StandardDefinition | undefined;
  /** Further source paths each field_map key's transform reads from its config (from the compiler). */
  reads?: ReadonlyMap<string, readonly string[]>;
}

/** One side of the mapping: which names the definition knows. */
class Side {
  private readonly fields = new Map<string, Set<string>>();
  /** The same names as lists, for suggestions (made once, not per unknown name). */
  private readonly lists = new Map<string, string[]>();
  private readonly names: string[];

  constructor(readonly def: StandardDefinition) {
    const common = def.common_fields ?? [];
    for (const [entity, { fields }] of Object.entries(def.entities)) {
      const known = new Set(common);
      for (const f of fields) {
        known.add(f.name);
        if (f.alias !== undefined) known.add(f.alias);
      }
      this.fields.set(entity, known);
    }
    this.names = [...Object.keys(def.entities), ...(def.more_entities ?? [])];
  }

  /** A message when the definition knows the entity list and not this entity, else undefined. */
  entityProblem(entity: string): string | undefined {
    if (this.def.complete !== true || this.names.includes(entity)) return undefined;
    return `"${entity}" is not an entity of ${this.def.standard}${suggest(entity, this.names)}`;
  }

  /**
   * A message when the entity's fields are listed and `field` is not one of them, else undefined; with a
   * "did you mean" unless `suggesting` is false (the message will only be counted).
   */
  fieldProblem(entity: string, field: string, suggesting = true): string | undefined {
    const known = this.fields.get(entity);
    if (known === undefined || known.has(field)) return undefined;
    let list = this.lists.get(entity);
    if (list === undefined) {
      list = [...known];
      this.lists.set(entity, list);
    }
    return `${entity} has no field "${field}" in ${this.def.standard}${suggesting ? suggest(field, list) : ""}`;
  }
}

/** The top-level field a path starts with: `code.coding[0].code` -> `code`. */
const head = (path: string): string => path.split(/[.[]/)[0] ?? path;

type Raw = Record<string, unknown>;
const isObject = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Adds a warning to `sink` for every name in `doc` (a schema-valid crossmap, or what of it could be
 * salvaged) that the standard definitions lack. Reads the document as data, so shapes it does not know
 * are skipped rather than misread.
 */
export function checkStandards(doc: Raw, sink: WarningSink, options: StandardsCheckOptions): void {
  const source = options.source ? new Side(options.source) : undefined;
  const target = options.target ? new Side(options.target) : undefined;
  if (!source && !target) return;
  // Source entity -> (output name -> target entity), from every form of entity_map value.
  const outputsOf = new Map<string, Map<string, string>>();
  const entityMap = isObject(doc.entity_map) ? doc.entity_map : {};
  for (const [entity, entry] of Object.entries(entityMap)) {
    const problem = source?.entityProblem(entity);
    if (problem) sink.add(["entity_map", entity], "unknown_entity", problem, true);
    const outputs = new Map<string, string>();
    outputsOf.set(entity, outputs);
    for (const o of outputDocs(entry, ["entity_map", entity])) {
      outputs.set(o.name, o.target);
      const targetProblem = target?.entityProblem(o.target);
      if (targetProblem) sink.add(o.targetAt, "unknown_entity", targetProblem);
      if (o.constants) checkConstants(o.constants, o.target, [...o.at, "constants"], target, sink);
      if (source) for (const [path, at] of o.reads) checkPath(path, at, entity, source, sink);
    }
  }
  const constants = isObject(doc.constants) ? doc.constants : {};
  for (const [entity, paths] of Object.entries(constants)) {
    if (isObject(paths)) checkConstants(paths, entity, ["constants", entity], target, sink);
  }
  const notMapped = isObject(doc.not_mapped) ? doc.not_mapped : {};
  for (const [entity, fields] of Object.entries(notMapped)) {
    if (!source || !Array.isArray(fields)) continue;
    fields.forEach((f, i) => {
      const problem = typeof f === "string" ? source.fieldProblem(entity, f) : undefined;
      if (problem) sink.add(["not_mapped", entity, i], "unknown_field", problem);
    });
  }
  const exclude = isObject(doc.exclude) ? doc.exclude : {};
  for (const [entity, rules] of Object.entries(exclude)) {
    if (!source || !Array.isArray(rules)) continue;
    rules.forEach((rule, i) => {
      if (!isObject(rule)) return;
      for (const [path, where] of conditionFields(rule.when, ["exclude", entity, i, "when"]))
        checkPath(path, where, entity, source, sink);
    });
  }
  const fieldMap = isObject(doc.field_map) ? doc.field_map : {};
  for (const [key, value] of Object.entries(fieldMap)) {
    const dot = key.indexOf(".");
    if (dot <= 0) continue;
    const entity = key.slice(0, dot);
    const entries = Array.isArray(value) ? value : [value];
    entries.forEach((entry, i) => {
      if (!isObject(entry) || entry.nonstandard === true) return;
      const at: KeyPath = Array.isArray(value) ? ["field_map", key, i] : ["field_map", key];
      if (source) {
        checkSources(entry, key, entity, at, source, options.reads?.get(key) ?? [], sink);
        for (const [path, where] of conditionFields(entry.when, [...at, "when"]))
          checkPath(path, where, entity, source, sink);
      }
      const outputs = outputsOf.get(entity);
      if (!target || outputs === undefined) return;
      const written: [unknown, KeyPath][] = Array.isArray(entry.target)
        ? entry.target.map((t, j) => [t, [...at, "target", j]])
        : [[entry.target, [...at, "target"]]];
      for (const [t, where] of written) {
        if (typeof t !== "string") continue;
        const tdot = t.indexOf(".");
        // A target that names no output is the compiler's error, not a warning here.
        const targetEntity = tdot > 0 ? outputs.get(t.slice(0, tdot)) : undefined;
        if (targetEntity === undefined) continue;
        const problem = target.fieldProblem(targetEntity, head(t.slice(tdot + 1)), !sink.full);
        if (problem) sink.add(where, "unknown_field", problem);
      }
    });
  }
}

interface OutputDoc {
  name: string;
  target: string;
  at: KeyPath;
  targetAt: KeyPath;
  constants?: Raw;
  /** Source paths the output reads outside field entries: conditions, for_each, id, key, into keys. */
  reads: [string, KeyPath][];
}

/** The outputs an entity_map value declares, in any of its forms (name, object, list, choose). */
function outputDocs(entry: unknown, at: KeyPath, group?: { reads: [string, KeyPath][] }): OutputDoc[] {
  if (typeof entry === "string") return [{ name: entry, target: entry, at, targetAt: at, reads: [] }];
  if (Array.isArray(entry)) return entry.flatMap((e, i) => outputDocs(e, [...at, i]));
  if (!isObject(entry)) return [];
  if (Array.isArray(entry.choose)) {
    const reads: [string, KeyPath][] = [...conditionFields(entry.when, [...at, "when"])];
    if (typeof entry.for_each === "string") reads.push([entry.for_each, [...at, "for_each"]]);
    return entry.choose.flatMap((e, i) => outputDocs(e, [...at, "choose", i], { reads }));
  }
  if (typeof entry.target !== "string") return [];
  const reads: [string, KeyPath][] = [
    ...(group?.reads ?? []),
    ...conditionFields(entry.when, [...at, "when"]),
  ];
  if (typeof entry.for_each === "string") reads.push([entry.for_each, [...at, "for_each"]]);
  for (const k of ["key"] as const) reads.push(...paths(entry[k], [...at, k]));
  if (isObject(entry.id)) reads.push(...paths(entry.id.source, [...at, "id", "source"]));
  const into = Array.isArray(entry.into) ? entry.into : entry.into !== undefined ? [entry.into] : [];
  into.forEach((r, i) => {
    if (isObject(r))
      reads.push(
        ...paths(r.key, Array.isArray(entry.into) ? [...at, "into", i, "key"] : [...at, "into", "key"]),
      );
  });
  const out: OutputDoc = {
    name: typeof entry.name === "string" ? entry.name : entry.target,
    target: entry.target,
    at,
    targetAt: [...at, "target"],
    reads,
  };
  if (isObject(entry.constants)) out.constants = entry.constants;
  return [out];
}

function paths(v: unknown, at: KeyPath): [string, KeyPath][] {
  if (typeof v === "string") return [[v, at]];
  if (Array.isArray(v))
    return v.flatMap((p, i): [string, KeyPath][] =>
      typeof p === "string"
        ? [[p, [...at, i]]]
        : isObject(p) && typeof p.field === "string"
          ? [[p.field, [...at, i, "field"]]]
          : [],
    );
  if (isObject(v) && typeof v.field === "string") return [[v.field, [...at, "field"]]];
  return [];
}

/** The `field` of every test in a condition, with where it is written. */
function conditionFields(when: unknown, at: KeyPath): [string, KeyPath][] {
  if (!isObject(when)) return [];
  if (Array.isArray(when.all)) return when.all.flatMap((c, i) => conditionFields(c, [...at, "all", i]));
  if (Array.isArray(when.any)) return when.any.flatMap((c, i) => conditionFields(c, [...at, "any", i]));
  if (when.not !== undefined) return conditionFields(when.not, [...at, "not"]);
  return typeof when.field === "string" ? [[when.field, [...at, "field"]]] : [];
}

/** A source path outside a field entry's own source: `$` names are the reader's context, `a[*].b` reads a. */
function checkPath(path: string, at: KeyPath, entity: string, side: Side, sink: WarningSink): void {
  if (path.startsWith("$")) return;
  // A repetition (`5$2`) is its field's, as in checkSources.
  const problem = side.fieldProblem(entity, headField(path).replace(/\$\d+$/, ""), !sink.full);
  if (problem) sink.add(at, "unknown_field", problem);
}

function checkSources(
  entry: Raw,
  key: string,
  entity: string,
  at: KeyPath,
  side: Side,
  reads: readonly string[],
  sink: WarningSink,
): void {
  const check = (path: string, where: KeyPath, preferKey: boolean): void => {
    // `$ctx.` and other `$` names are the reader's context, not fields of the record.
    if (path.startsWith("$")) return;
    // `PID.3$2` is the second repetition of PID-3 (the HL7 v2 reader's notation): field 3.
    const problem = side.fieldProblem(entity, headField(path).replace(/\$\d+$/, ""), !sink.full);
    if (problem) sink.add(where, "unknown_field", problem, preferKey);
  };
  const declared = entry.source;
  if (declared === undefined) check(key.slice(key.indexOf(".") + 1), at, true);
  else if (typeof declared === "string") check(declared, [...at, "source"], false);
  else if (Array.isArray(declared)) {
    declared.forEach((p, j) => {
      if (typeof p === "string") check(p, [...at, "source", j], false);
    });
  }
  // Paths a transform reads from its config (unit_field: ...), located at the config key that names them.
  const config = isObject(entry.config) ? entry.config : {};
  for (const [name, value] of Object.entries(config)) {
    if (typeof value === "string" && reads.includes(value)) check(value, [...at, "config", name], false);
  }
}

function checkConstants(
  constants: Raw,
  entity: string,
  at: KeyPath,
  side: Side | undefined,
  sink: WarningSink,
): void {
  if (!side) return;
  for (const path of Object.keys(constants)) {
    const problem = side.fieldProblem(entity, head(path), !sink.full);
    if (problem) sink.add([...at, path], "unknown_field", problem, true);
  }
}
