// Reads one entity_map value into the outputs a source record may produce, grouped as the document groups
// them (a single output, or a `choose` group), each located in the document for its problems.
import type { z } from "zod";
import { addZodIssues, type KeyPath, type Problems } from "./problems.js";
import type { ChooseDocument, OutputDocument } from "./schema.js";
import { validation } from "./validation.js";

export interface OutputSpec {
  sourceEntity: string;
  name: string;
  target: string;
  doc: OutputDocument;
  /** Where the output is written in the document. */
  at: KeyPath;
  /** The `for_each` path in effect: the output's own or its group's. */
  forEach?: string;
  group: GroupSpec;
}

export interface GroupSpec {
  choose: boolean;
  outputs: OutputSpec[];
  when?: unknown;
  forEach?: string;
  at: KeyPath;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * Parses with `schema`, reporting every issue; when the only ones are unknown keys (typos), parses again
 * without them, so the output and its fields are still compiled and their problems reported in the same run.
 * Without a schema (zod not loaded: a document the build validated, validation.ts), the item is taken as is.
 */
function parseReporting<T>(
  schema: z.ZodType<T> | undefined,
  item: unknown,
  at: KeyPath,
  problems: Problems,
): T | undefined {
  if (schema === undefined) return item as T;
  const parsed = schema.safeParse(item);
  if (parsed.success) return parsed.data;
  addZodIssues(problems, at, parsed.error);
  if (!parsed.error.issues.every((i) => i.code === "unrecognized_keys") || !isObject(item)) return undefined;
  const clean = structuredClone(item);
  for (const issue of parsed.error.issues) {
    if (issue.code !== "unrecognized_keys") continue;
    let holder: unknown = clean;
    for (const p of issue.path)
      holder =
        isObject(holder) || Array.isArray(holder)
          ? (holder as Record<PropertyKey, unknown>)[p as PropertyKey]
          : undefined;
    if (isObject(holder)) for (const k of issue.keys) delete holder[k];
  }
  const again = schema.safeParse(clean);
  return again.success ? again.data : undefined;
}

export function readEntityEntry(sourceEntity: string, entry: unknown, problems: Problems): GroupSpec[] {
  const base: KeyPath = ["entity_map", sourceEntity];
  const groups: GroupSpec[] = [];
  const items: [unknown, KeyPath][] = Array.isArray(entry)
    ? entry.map((x, i) => [x, [...base, i]])
    : [[entry, base]];
  for (const [item, at] of items) {
    const group =
      isObject(item) && "choose" in item ? readChoose(item, at, problems) : readSingle(item, at, problems);
    if (group) groups.push(group);
  }
  const seen = new Map<string, OutputSpec>();
  for (const g of groups) {
    for (const o of g.outputs) {
      o.sourceEntity = sourceEntity;
      const first = seen.get(o.name);
      if (first) {
        problems.add(
          o.doc.name !== undefined ? [...o.at, "name"] : o.at,
          "duplicate_output",
          `${sourceEntity} already has an output named "${o.name}"; give this one a distinct "name"`,
        );
      } else seen.set(o.name, o);
    }
  }
  return groups;
}

function readSingle(item: unknown, at: KeyPath, problems: Problems): GroupSpec | undefined {
  if (typeof item === "string") {
    if (item === "") {
      problems.add(at, "invalid_value", "a target entity name is required");
      return undefined;
    }
    const group: GroupSpec = { choose: false, outputs: [], at };
    group.outputs.push({ sourceEntity: "", name: item, target: item, doc: { target: item }, at, group });
    return group;
  }
  const doc = parseReporting<OutputDocument>(validation()?.output, item, at, problems);
  if (!doc) return undefined;
  const group: GroupSpec = { choose: false, outputs: [], at };
  const out: OutputSpec = {
    sourceEntity: "",
    name: doc.name ?? doc.target,
    target: doc.target,
    doc,
    at,
    group,
  };
  if (doc.for_each !== undefined) out.forEach = doc.for_each;
  group.outputs.push(out);
  return group;
}

function readChoose(item: Record<string, unknown>, at: KeyPath, problems: Problems): GroupSpec | undefined {
  const doc = parseReporting<ChooseDocument>(validation()?.choose, item, at, problems);
  if (!doc) return undefined;
  const group: GroupSpec = { choose: true, outputs: [], at };
  if (doc.when !== undefined) group.when = doc.when;
  if (doc.for_each !== undefined) group.forEach = doc.for_each;
  doc.choose.forEach((alt, i) => {
    const altAt = [...at, "choose", i];
    if (alt.for_each !== undefined) {
      problems.add(
        [...altAt, "for_each"],
        "invalid_route",
        "an alternative of choose cannot have its own for_each; put for_each on the choose group",
      );
    }
    if (alt.when === undefined && i < doc.choose.length - 1) {
      problems.add(
        altAt,
        "invalid_route",
        "an alternative without `when` is the default and must come last (the ones after it could never be chosen)",
      );
    }
    const out: OutputSpec = {
      sourceEntity: "",
      name: alt.name ?? alt.target,
      target: alt.target,
      doc: alt,
      at: altAt,
      group,
    };
    if (doc.for_each !== undefined) out.forEach = doc.for_each;
    group.outputs.push(out);
  });
  return group;
}
