// Cross-mapping runs: the per-project history a project-scoped map call records and sync moves around.
import { randomUUID } from "node:crypto";
import type { Database } from "lmdb";
import { compositeKey, isStorableId, prefixRange, runTimestamp } from "./keys-util.js";
import type { CrossMappingRun } from "./types.js";

/** What a caller recording a run must say; id and created_at are filled in when left out (null is kept). */
export type NewRun = Omit<CrossMappingRun, "id" | "created_at" | "crossmap_file"> &
  Partial<Pick<CrossMappingRun, "id" | "created_at" | "crossmap_file">>;

export class RunStore {
  constructor(
    private readonly runs: Database<CrossMappingRun, string>,
    /** project + created_at + id -> id, so newest-first paging is a reverse range read. */
    private readonly byTime: Database<string, string>,
    private readonly write: <R>(fn: () => R) => Promise<R>,
  ) {}

  get(projectId: string, id: string): CrossMappingRun | undefined {
    if (!isStorableId(projectId) || !isStorableId(id)) return undefined;
    const run = this.runs.get(compositeKey(projectId, id)) as StoredRun | undefined;
    if (!run) return undefined;
    const { _order, ...visible } = run;
    return visible;
  }

  /** Records a run in its own transaction; resolves with the stored run once committed. */
  record(projectId: string, run: NewRun): Promise<CrossMappingRun> {
    const stored: CrossMappingRun = {
      ...run,
      id: run.id ?? randomUUID(),
      crossmap_file: run.crossmap_file ?? null,
      created_at: run.created_at === undefined ? runTimestamp() : run.created_at,
    };
    return this.write(() => {
      this.put(projectId, stored);
      return stored;
    });
  }

  /** Call inside a write transaction. Replaces a run with the same id. */
  put(projectId: string, run: CrossMappingRun): void {
    const previous = this.runs.get(compositeKey(projectId, run.id)) as StoredRun | undefined;
    if (previous) this.byTime.remove(timeKey(projectId, previous));
    // created_at has whole seconds (as the spec shows it); the order key keeps runs of one second in
    // the order they were recorded.
    const stored: StoredRun = { ...run, _order: nextOrder() };
    this.runs.put(compositeKey(projectId, run.id), stored);
    this.byTime.put(timeKey(projectId, stored), run.id);
  }

  /** Newest first (runs without created_at last), with the project's total. */
  list(
    projectId: string,
    page: { limit?: number; offset?: number } = {},
  ): {
    runs: CrossMappingRun[];
    total: number;
  } {
    const { start, end } = prefixRange(projectId);
    const ids = this.byTime.getRange({
      start: end,
      end: start,
      reverse: true,
      offset: page.offset ?? 0,
      ...(page.limit === undefined ? {} : { limit: page.limit }),
    });
    const runs: CrossMappingRun[] = [];
    for (const { value } of ids) {
      const run = this.get(projectId, value);
      if (run) runs.push(run);
    }
    return { runs, total: this.runs.getCount(prefixRange(projectId)) };
  }
}

/** A run as stored: with the key that orders runs recorded within the same second. */
type StoredRun = CrossMappingRun & { _order?: string };

let lastOrder = 0;
/** Milliseconds since the epoch, bumped to stay strictly increasing within this process; fixed width. */
function nextOrder(): string {
  lastOrder = Math.max(Date.now(), lastOrder + 1);
  return String(lastOrder).padStart(15, "0");
}

const timeKey = (projectId: string, run: StoredRun): string =>
  compositeKey(projectId, run.created_at ?? "", run._order ?? "", run.id);
