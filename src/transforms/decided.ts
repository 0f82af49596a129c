// How the vocabulary transforms apply a project's reviewed decision to one code: mapped gives its
// concept, rejected gives nothing (issue rejected_by_review), awaiting review is used or not per the
// run's choice (with a warning unreviewed_mapping either way). Shared by vocabulary_lookup and
// vocabulary_reverse_lookup.
import type { Concept, VocabularyBridge } from "../vocab/bridge.js";
import type { ConceptDecision, ConceptOverlay } from "./overlay.js";
import { fail, Unmappable } from "./types.js";

/** A concept as far as it is known: a decision may name a concept the vocabulary lacks (or there is none). */
export type KnownConcept = Pick<Concept, "concept_id"> & Partial<Omit<Concept, "concept_id">>;

/** A concept found for a code, with the warning it comes with, if any. */
export interface Found<C> {
  concept: C;
  warning?: { code: string; message: string };
}

/**
 * What the decision `d` for `what` (e.g. `LOCAL_LAB code "GLU-1"`) gives: its concept, a failure, or,
 * for a suggestion the run does not use, what `fallback` (the vocabulary) gives, with a warning.
 */
export function applyDecision<C>(
  d: ConceptDecision,
  overlay: ConceptOverlay,
  what: string,
  conceptOf: (id: number) => C | Unmappable,
  fallback: () => Found<C> | Unmappable,
): Found<C> | Unmappable {
  if (d.kind === "rejected") {
    return fail("rejected_by_review", `${what} was rejected by review (item ${d.item}): it has no concept`);
  }
  const id = d.conceptId as number;
  if (d.kind === "mapped") {
    const concept = conceptOf(id);
    return concept instanceof Unmappable ? concept : { concept };
  }
  if (overlay.unreviewed === "use") {
    const concept = conceptOf(id);
    if (concept instanceof Unmappable) return concept;
    const message = `${what}: used concept ${id}, the suggestion of item ${d.item}, which is not reviewed yet (unreviewed: use)`;
    return { concept, warning: { code: "unreviewed_mapping", message } };
  }
  const suggestion = `item ${d.item} suggests concept ${id}, not reviewed yet (unreviewed: ignore)`;
  const found = fallback();
  // The code has no concept because its review is pending: that is what the issue says.
  if (found instanceof Unmappable)
    return new Unmappable("unreviewed_mapping", `${found.message}; ${suggestion}`);
  const message = `${what}: ${suggestion}; the vocabulary's concept was used`;
  return { concept: found.concept, warning: found.warning ?? { code: "unreviewed_mapping", message } };
}

/** The concept a decision names: from the vocabulary when it has it, else as the item describes it. */
export function decidedConcept(
  vocab: VocabularyBridge | undefined,
  d: ConceptDecision,
  id: number,
): KnownConcept {
  const known = vocab?.getConcept(id);
  if (known) return known;
  return {
    concept_id: id,
    ...(d.conceptName !== null ? { concept_name: d.conceptName } : {}),
    ...(d.vocabularyId !== null ? { vocabulary_id: d.vocabularyId } : {}),
  };
}
