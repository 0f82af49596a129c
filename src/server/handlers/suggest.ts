// Candidates for pushed concept items that have none (POST .../concept-mapping/suggest): each item's
// source code, vocabulary and description are ranked against the server's vocabulary (src/vocab/suggest.ts).
// Bounded work per call (at most `limit` items), the ranking done outside the write transaction and
// yielding to the event loop between items, so a slow vocabulary never holds other requests for long.
import { AppError } from "../../errors.js";
import { saveChange } from "../../store/changes.js";
import type { Stores } from "../../store/env.js";
import { nowIso } from "../../store/keys-util.js";
import type { ConceptCandidate, ConceptItem } from "../../store/types.js";
import type { VocabularyBridge } from "../../vocab/bridge.js";
import { loadAbbreviations } from "../../vocab/suggest-table.js";
import { projectNotFound } from "./items.js";
import { type Actor, facts } from "./review.js";

export interface SuggestRequest extends Actor {
  projectId: string;
  /** Most items ranked in this call. */
  limit: number;
  /** Candidates kept per item. */
  candidates: number;
  domains?: string[] | undefined;
  vocabularies?: string[] | undefined;
}

export interface SuggestSummary {
  /** Items that got candidates (and, when they had no target, the first as their suggestion). */
  suggested: number;
  /** Items for which the vocabulary had no candidate (their candidates are now an empty list). */
  none_found: number;
  /** Items awaiting review that still have no candidates: call again. */
  remaining: number;
}

/** Awaiting review and never ranked: what a call works on. */
const wanted = (i: ConceptItem) => i.reviewed_at === null && (i.candidates ?? null) === null;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function suggestItems(
  stores: Stores,
  vocabulary: VocabularyBridge,
  req: SuggestRequest,
): Promise<SuggestSummary> {
  if (!stores.projects.get(req.projectId)) throw projectNotFound(req.projectId);
  const suggest = vocabulary.suggest;
  if (!suggest) {
    throw new AppError(
      503,
      "no_vocabulary_search",
      "This server's vocabulary index has no search to rank candidates with",
    );
  }
  const table = loadAbbreviations();
  const todo = stores.conceptItems.list(req.projectId, { offset: 0, limit: req.limit }, wanted);
  const ranked = new Map<string, { version: number; candidates: ConceptCandidate[] }>();
  for (const item of todo.items) {
    const found = suggest.call(
      vocabulary,
      {
        code: item.source_code,
        vocabularyId: item.source_vocabulary_id,
        description: item.source_description,
      },
      { limit: req.candidates, domains: req.domains, vocabularies: req.vocabularies },
      table,
    );
    ranked.set(item.id, { version: item.version, candidates: found });
    await nextTurn();
  }
  return stores.write(() => {
    const now = nowIso();
    let suggested = 0;
    let noneFound = 0;
    for (const [id, r] of ranked) {
      const before = stores.conceptItems.get(req.projectId, id);
      // Changed meanwhile (a review, a push): left for the next call, which ranks what is there then.
      if (!before || before.version !== r.version || !wanted(before)) continue;
      const first = r.candidates[0];
      const target =
        first && before.target_concept_id === null
          ? {
              target_concept_id: first.concept_id,
              target_concept_name: first.concept_name,
              target_vocabulary_id: first.vocabulary_id,
              confidence: first.score,
            }
          : {};
      const after: ConceptItem = {
        ...before,
        ...target,
        candidates: r.candidates,
        version: before.version + 1,
        updated_at: now,
      };
      saveChange(
        stores.conceptItems,
        stores.audit,
        req.projectId,
        before,
        after,
        facts("concept", "suggest", req, now),
      );
      if (first) suggested++;
      else noneFound++;
    }
    const remaining = stores.conceptItems.list(req.projectId, { offset: 0, limit: 0 }, wanted).total;
    return { suggested, none_found: noneFound, remaining };
  });
}
