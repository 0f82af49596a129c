// The review view's list state: the filters, the page of items the server answered for them, the current
// and selected items, the progress stats, the current item's history, and the project with its target
// model's tables (for the schema override). Everything is read from the server; nothing is cached.
import { useCallback, useEffect, useState } from "preact/hooks";
import { type AuditEvent, get, type Item, type Page, type Project, query, type Stats } from "./api.js";
import type { Entity } from "./dialogs.js";
import { type Filters, filterParams, NO_FILTERS } from "./filters.js";

/** Items per page. */
export const PAGE = 50;

export interface ListReport {
  fail: (e: unknown) => void;
  /** A page read well clears the error line. */
  ok: () => void;
}

export function useItemList(projectId: string, base: string, concept: boolean, report: ListReport) {
  const { fail } = report;
  const [project, setProject] = useState<Project | null>(null);
  // The target model's tables and columns for the schema override: undefined while they are being read,
  // null when there are none to read (no target model, or the read failed: the override takes free text).
  const [entities, setEntities] = useState<Entity[] | null | undefined>(undefined);
  const [filters, setFilters] = useState<Filters>({
    ...NO_FILTERS,
    sort: concept ? "-source_frequency" : "id",
  });
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<Page | null>(null);
  const [current, setCurrent] = useState(0);
  const [focusRow, setFocusRow] = useState(false);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [stats, setStats] = useState<Stats | null>(null);
  const [history, setHistory] = useState<AuditEvent[] | null>(null);

  const items = page?.items ?? [];
  const item: Item | undefined = items[current];

  const load = useCallback(async () => {
    try {
      const p = await get<Page>(
        `${base}${query({ ...filterParams(filters, concept), limit: PAGE, offset })}`,
      );
      setPage(p);
      setCurrent((c) => Math.min(c, Math.max(0, p.items.length - 1)));
      report.ok();
    } catch (e) {
      fail(e);
    }
  }, [base, filters, offset, concept]);

  const loadStats = useCallback(() => {
    get<Stats>(`${base}/stats`).then(setStats).catch(fail);
  }, [base]);

  useEffect(() => {
    load();
  }, [load]);
  useEffect(loadStats, [loadStats]);

  useEffect(() => {
    get<{ projects: Project[] }>("/api/v1/projects")
      .then((r) => {
        const p = r.projects.find((x) => x.id === projectId) ?? null;
        setProject(p);
        if (!concept && p?.target_model) {
          get<{ entities: Entity[] }>(`/api/v1/standards/${encodeURIComponent(p.target_model)}/entities`)
            .then((s) => setEntities(s.entities))
            .catch(() => setEntities(null));
        } else setEntities(null);
      })
      .catch(fail);
  }, [projectId, concept]);

  // The history of the current item, read again whenever it changes version.
  useEffect(() => {
    if (!item) return;
    setHistory(null);
    let stale = false;
    get<{ events: AuditEvent[] }>(`${base}/${encodeURIComponent(item.id)}/history`)
      .then((r) => !stale && setHistory(r.events))
      .catch(fail);
    return () => {
      stale = true;
    };
  }, [base, item?.id, item?.version]);

  /** Puts the server's answer for one item in place of the item shown. */
  const replace = (next: Item) =>
    setPage((p) => (p ? { ...p, items: p.items.map((i) => (i.id === next.id ? next : i)) } : p));

  const toggle = (id: string) =>
    setSelected((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });

  return {
    project,
    entities,
    filters,
    setFilters,
    offset,
    setOffset,
    page,
    items,
    item,
    current,
    setCurrent,
    focusRow,
    setFocusRow,
    selected,
    setSelected,
    toggle,
    stats,
    history,
    load,
    loadStats,
    replace,
  };
}

export type ItemList = ReturnType<typeof useItemList>;
