// From a project's concept items to what project-scoped mapping applies: the overlay's entries (one
// decision per source code) and the snapshot a run records (how many items, and a hash of their
// decision fields, so that two runs can be told apart and one reproduced).
import { createHash } from "node:crypto";
import { compareKeys } from "../store/mirror.js";
import type { ConceptItem, DecisionSnapshot } from "../store/types.js";
import type { ConceptDecision, OverlayEntry, UnreviewedMode } from "../transforms/overlay.js";
import { MAPPED_METHODS } from "./listing.js";

export interface Decisions {
  entries: OverlayEntry[];
  snapshot: DecisionSnapshot;
  /** Items whose key another item of higher precedence also has: not applied (see `decisionEntries`). */
  shadowed: string[];
}

/** What an item decides, or undefined when it decides nothing (awaiting review with no suggestion). */
function decisionOf(item: ConceptItem): ConceptDecision | undefined {
  const target = {
    item: item.id,
    conceptId: item.target_concept_id,
    conceptName: item.target_concept_name,
    vocabularyId: item.target_vocabulary_id,
  };
  if (item.method === "unmapped") return { kind: "rejected", ...target };
  if (item.target_concept_id === null) return undefined;
  if (MAPPED_METHODS.has(item.method)) return { kind: "mapped", ...target };
  return { kind: "unreviewed", ...target };
}

/**
 * The overlay entries of a project's concept items, keyed (source_vocabulary_id, source_code), or the
 * code alone for items without a source vocabulary. When several items share a key, a decision
 * (mapped or rejected) wins over a suggestion awaiting review, then the most recently updated item,
 * then the greater id; the others are `shadowed`.
 */
export function projectDecisions(items: readonly ConceptItem[], unreviewed: UnreviewedMode): Decisions {
  const sorted = [...items].sort((a, b) => compareKeys(a.id, b.id));
  const hash = createHash("sha256");
  const best = new Map<string, { entry: OverlayEntry; item: ConceptItem }>();
  const shadowed: string[] = [];
  const rank = (d: ConceptDecision) => (d.kind === "unreviewed" ? 0 : 1);
  for (const item of sorted) {
    const system = item.source_vocabulary_id ?? null;
    hash.update(
      `${JSON.stringify([item.id, system, item.source_code, item.method, item.target_concept_id])}\n`,
    );
    const decision = decisionOf(item);
    if (!decision) continue;
    const key = `${system ?? ""}\u001f${item.source_code}`;
    const held = best.get(key);
    const wins =
      !held ||
      rank(decision) > rank(held.entry.decision) ||
      (rank(decision) === rank(held.entry.decision) && item.updated_at >= held.item.updated_at);
    if (held) shadowed.push(wins ? held.item.id : item.id);
    if (wins) best.set(key, { entry: { system, code: item.source_code, decision }, item });
  }
  return {
    entries: [...best.values()].map((b) => b.entry),
    snapshot: { items: sorted.length, sha256: hash.digest("hex"), unreviewed },
    shadowed,
  };
}
