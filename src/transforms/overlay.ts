// A project's reviewed concept decisions, compiled for the per-record path: the vocabulary transforms
// ask it before the vocabulary, one Map lookup per code. It is built once per run (or per change of the
// decisions, on the server) from entries that can cross a thread boundary, so worker threads compile
// the same overlay from the same entries.

/** What a project decided for one source code. */
export interface ConceptDecision {
  /** mapped: approved or overridden (or pushed as mapped); rejected: unmapped; unreviewed: awaiting review. */
  kind: "mapped" | "rejected" | "unreviewed";
  /** The item that holds the decision, named in issues. */
  item: string;
  conceptId: number | null;
  conceptName: string | null;
  vocabularyId: string | null;
}

/** One decision with the key it applies to: serialisable (worker threads get the entries, not the Map). */
export interface OverlayEntry {
  /** The item's source_vocabulary_id; null: the code in any system. */
  system: string | null;
  code: string;
  decision: ConceptDecision;
}

export type UnreviewedMode = "use" | "ignore";

export interface ConceptOverlay {
  /** Whether decisions still awaiting review are applied (`use`) or only reported (`ignore`). */
  readonly unreviewed: UnreviewedMode;
  /**
   * The decision for `code`: first an item of the system as the record gives it (a FHIR URI, an HL7 v2
   * name, a vocabulary_id), then of the vocabulary_id that system stands for, then an item with no
   * source vocabulary. Undefined when the project decided nothing for the code.
   */
  find(
    system: string | undefined,
    vocabularyId: string | undefined,
    code: string,
  ): ConceptDecision | undefined;
}

// Ids, codes and vocabulary names hold no control characters (the API refuses them), so the unit
// separator cannot occur inside a key part.
const key = (system: string | null, code: string) => `${system ?? ""}\u001f${code}`;

export function compileOverlay(entries: readonly OverlayEntry[], unreviewed: UnreviewedMode): ConceptOverlay {
  const map = new Map<string, ConceptDecision>();
  for (const e of entries) map.set(key(e.system, e.code), e.decision);
  return {
    unreviewed,
    find(system, vocabularyId, code) {
      if (system !== undefined && system !== "") {
        const hit = map.get(key(system, code));
        if (hit) return hit;
      }
      if (vocabularyId !== undefined && vocabularyId !== system) {
        const hit = map.get(key(vocabularyId, code));
        if (hit) return hit;
      }
      return map.get(key(null, code));
    },
  };
}

/**
 * Where a compiled crossmap's vocabulary transforms find the overlay of the run in progress. The
 * transforms read `current` per call, so one compiled crossmap serves runs of different projects (the
 * server sets it around each synchronous batch); a CLI run sets it once.
 */
export class OverlaySlot {
  current: ConceptOverlay | undefined = undefined;
}
