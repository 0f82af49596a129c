// A new vocabulary release reopens what it invalidates: every mapped concept item whose target concept
// is gone, deprecated or no longer standard goes back to review, with a replacement suggested through
// the release's "Concept replaced by" / "Maps to" relationships where it has one.
import type { ConceptItem, Revalidation } from "../store/types.js";
import type { Concept, VocabularyBridge } from "../vocab/bridge.js";
import { MAPPED_METHODS } from "./listing.js";

export interface Reopened {
  before: ConceptItem;
  /** The item back in review: method review, the replacement (if any) as its target, and why. */
  after: ConceptItem;
}

const usable = (c: Concept): boolean => c.standard_concept === "S" && !c.invalid_reason;

/**
 * The valid standard concept that takes over from `concept`, and the relationship it was found through.
 * A deprecated concept's successor first ("Concept replaced by", followed by its "Maps to" when the
 * successor is not standard itself); a non-standard one's "Maps to".
 */
export function replacementFor(
  vocab: VocabularyBridge,
  concept: Concept,
): { concept: Concept; via: "Maps to" | "Concept replaced by" } | undefined {
  const mapsTo = (id: number) => vocab.mapConcept(id, { relationships: ["Maps to"] }).find(usable);
  const successor = () => {
    for (const next of vocab.mapConcept(concept.concept_id, { relationships: ["Concept replaced by"] })) {
      const found = usable(next) ? next : mapsTo(next.concept_id);
      if (found) return { concept: found, via: "Concept replaced by" as const };
    }
    return undefined;
  };
  const mapped = () => {
    const found = mapsTo(concept.concept_id);
    return found ? { concept: found, via: "Maps to" as const } : undefined;
  };
  return concept.invalid_reason ? (successor() ?? mapped()) : (mapped() ?? successor());
}

/** The items `vocab` invalidates, each with what it becomes; items it leaves valid are not listed. */
export function revalidate(
  items: readonly ConceptItem[],
  vocab: VocabularyBridge,
  release: string | null,
  at: string,
): { checked: number; reopened: Reopened[] } {
  let checked = 0;
  const reopened: Reopened[] = [];
  for (const item of items) {
    if (!MAPPED_METHODS.has(item.method) || item.target_concept_id === null) continue;
    checked++;
    const concept = vocab.getConcept(item.target_concept_id);
    const reason: Revalidation["reason"] | undefined = !concept
      ? "missing"
      : concept.invalid_reason
        ? "invalid"
        : concept.standard_concept !== "S"
          ? "non_standard"
          : undefined;
    if (!reason) continue;
    const replacement = concept ? replacementFor(vocab, concept) : undefined;
    const revalidation: Revalidation = {
      reason,
      previous_concept_id: item.target_concept_id,
      previous_concept_name: concept?.concept_name ?? item.target_concept_name,
      suggested_via: replacement?.via ?? null,
      release,
      at,
    };
    const target = replacement
      ? {
          target_concept_id: replacement.concept.concept_id,
          target_concept_name: replacement.concept.concept_name,
          target_vocabulary_id: replacement.concept.vocabulary_id,
          // It described the old target.
          equivalence: null,
        }
      : {};
    reopened.push({ before: item, after: { ...item, method: "review", ...target, revalidation } });
  }
  return { checked, reopened };
}
