// The reviewed decisions of each project for project-scoped map calls: built from the project's concept
// items (their in-memory mirror) once, and again only after they change, so a map call costs a lookup
// here, not a read of every item. The map workers compile the entries; each set has a key of its own so
// that a worker holding it is not sent it again (see map-pool.ts).
import { projectDecisions } from "../../review/decisions.js";
import type { Stores } from "../../store/env.js";
import type { ItemMirror } from "../../store/mirror.js";
import type { ConceptItem } from "../../store/types.js";
import type { OverlayEntry } from "../../transforms/overlay.js";

export interface ProjectDecisions {
  /** Names this set of entries: a new key whenever the project's concept items change. */
  key: string;
  entries: OverlayEntry[];
  /** The snapshot a run records, but for its `unreviewed` mode (the request's). */
  items: number;
  sha256: string;
}

interface Entry extends ProjectDecisions {
  mirror: ItemMirror<ConceptItem>;
  generation: number;
}

/** Projects whose decisions stay in memory; the least recently used go. */
const MAX_ENTRIES = 16;

export class DecisionCache {
  private readonly entries = new Map<string, Entry>();
  private built = 0;

  async of(stores: Stores, projectId: string): Promise<ProjectDecisions> {
    const mirror = await stores.mirrors.concept.of(projectId);
    const held = this.entries.get(projectId);
    this.entries.delete(projectId);
    if (held && held.mirror === mirror && held.generation === mirror.generation) {
      this.entries.set(projectId, held);
      return held;
    }
    // The entries do not depend on the unreviewed mode (only the compiled overlay and the snapshot do).
    const { entries, snapshot } = projectDecisions(mirror.items(), "ignore");
    const entry: Entry = {
      key: `${projectId}\u001f${++this.built}`,
      entries,
      items: snapshot.items,
      sha256: snapshot.sha256,
      mirror,
      generation: mirror.generation,
    };
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(projectId, entry);
    return entry;
  }
}
