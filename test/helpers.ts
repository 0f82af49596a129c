// Test helpers: run one transform through the real loader and compiler, as a crossmap would.
import { stringify } from "yaml";
import { parseCrossmap } from "../src/crossmap/load.js";
import type { MappingIssue } from "../src/crossmap/types.js";
import { type ConceptOverlay, OverlaySlot } from "../src/transforms/overlay.js";
import type { TransformRegistry } from "../src/transforms/registry.js";
import type { VocabularyBridge } from "../src/vocab/bridge.js";

export interface OneResult {
  /** What was written at the target, or undefined when the field was left out. */
  out: unknown;
  issues: readonly MappingIssue[];
}

export function transformer(
  transform: string,
  config?: Record<string, unknown>,
  options: {
    transforms?: TransformRegistry;
    vocabulary?: VocabularyBridge;
    source?: string | string[];
    /** A project's decisions, applied as a project-scoped run applies them. */
    overlay?: ConceptOverlay;
    /** Extra field_map entry keys (e.g. default, vocabulary_optional). */
    entry?: Record<string, unknown>;
  } = {},
): (value: unknown, record?: Record<string, unknown>) => OneResult {
  const entry: Record<string, unknown> = { target: "T.out", transform, ...options.entry };
  if (config) entry.config = config;
  if (options.source) entry.source = options.source;
  const doc = { source: "s", target: "t", entity_map: { e: "T" }, field_map: { "e.in": entry } };
  const cm = parseCrossmap(stringify(doc), {
    file: "test.yaml",
    ...(options.transforms ? { transforms: options.transforms } : {}),
    ...(options.vocabulary ? { vocabulary: options.vocabulary } : {}),
    ...(options.overlay ? { overlay: Object.assign(new OverlaySlot(), { current: options.overlay }) } : {}),
  });
  const mapper = cm.mapper("e");
  return (value, record = {}) => {
    const r = mapper.map({ ...record, in: value });
    return { out: r.value.out, issues: r.issues };
  };
}

/** The load error text (AppError.describe()) of a YAML document, or "" when it loads. */
export function loadError(yamlText: string, file = "x.yaml"): string {
  try {
    parseCrossmap(yamlText, { file });
    return "";
  } catch (err) {
    return (err as { describe(): string }).describe();
  }
}

export const codes = (r: OneResult): string[] => r.issues.map((i) => i.code);
