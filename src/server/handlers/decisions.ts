// The compiled decisions of each project for project-scoped map calls: built from the project's concept
// items (their in-memory mirror) once, and again only after they change, so a map call costs a lookup
// here, not a read of every item.
import { projectDecisions } from "../../review/decisions.js";
import type { Stores } from "../../store/env.js";
import type { ItemMirror } from "../../store/mirror.js";
import type { ConceptItem, DecisionSnapshot } from "../../store/types.js";
import { type ConceptOverlay, compileOverlay, type UnreviewedMode } from "../../transforms/overlay.js";

export interface CompiledDecisions {
  overlay: ConceptOverlay;
  snapshot: DecisionSnapshot;
}

interface Entry extends CompiledDecisions {
  mirror: ItemMirror<ConceptItem>;
  generation: number;
}

/** Projects whose compiled decisions stay in memory (per unreviewed mode); the least recently used go. */
const MAX_ENTRIES = 16;

export class DecisionCache {
  private readonly entries = new Map<string, Entry>();

  async of(stores: Stores, projectId: string, unreviewed: UnreviewedMode): Promise<CompiledDecisions> {
    const mirror = await stores.mirrors.concept.of(projectId);
    const key = `${projectId}\u001f${unreviewed}`;
    const held = this.entries.get(key);
    this.entries.delete(key);
    if (held && held.mirror === mirror && held.generation === mirror.generation) {
      this.entries.set(key, held);
      return held;
    }
    const { entries, snapshot } = projectDecisions(mirror.items(), unreviewed);
    const entry = {
      overlay: compileOverlay(entries, unreviewed),
      snapshot,
      mirror,
      generation: mirror.generation,
    };
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, entry);
    return entry;
  }
}
