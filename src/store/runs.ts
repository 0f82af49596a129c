// Cross-mapping runs: the per-project history a project-scoped map call records and sync moves around.
import { randomUUID } from "node:crypto";
import type { Database } from "lmdb";
import { compositeKey, prefixRange, runTimestamp } from "./keys-util.js";
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
    return this.runs.get(compositeKey(projectId, id));
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
    const previous = this.get(projectId, run.id);
    if (previous) this.byTime.remove(timeKey(projectId, previous));
    this.runs.put(compositeKey(projectId, run.id), run);
    this.byTime.put(timeKey(projectId, run), run.id);
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

const timeKey = (projectId: string, run: CrossMappingRun): string =>
  compositeKey(projectId, run.created_at ?? "", run.id);
