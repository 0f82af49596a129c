// One project's items of one kind: filters, progress, the table, the detail pane, and every decision by
// keyboard (see dialogs.tsx KEYS). Decisions carry If-Match with the version shown, so a concurrent change
// comes back as 412 and the reviewer chooses; undo is a revert to the version before the last decision.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import {
  ApiError,
  type AuditEvent,
  type BulkResult,
  call,
  get,
  type Item,
  isConcept,
  type Kind,
  type Page,
  type Project,
  query,
  type Stats,
} from "./api.js";
import { Detail } from "./detail.js";
import {
  CommentDialog,
  type ConceptChoice,
  ConceptOverride,
  ConfirmDialog,
  ConflictDialog,
  type Entity,
  HelpDialog,
  SchemaOverride,
} from "./dialogs.js";
import { FilterBar, type Filters, filterParams, NO_FILTERS } from "./filters.js";
import { Progress } from "./progress.js";
import { ItemsTable } from "./table.js";
import { AutoAccept, type TierDecision } from "./tiers.js";

const PAGE = 50;
/** Most decisions one bulk call takes. */
const MAX_BULK = 10_000;

type Action = "approve" | "reject" | "override" | "comment" | "choose";
type Body = Record<string, unknown> | undefined;

type Dialog =
  | { type: "help" }
  | { type: "comment"; item: Item }
  | { type: "override"; item: Item }
  | { type: "conflict"; action: Action; body: Body; theirs: Item; by: string | null }
  | { type: "bulk"; count: number; filters: Filters };

interface Undo {
  id: string;
  /** The version before the decision, to revert to. */
  to: number;
  /** The version the decision made (the revert's If-Match). */
  at: number;
}

export function Review(props: { projectId: string; kind: Kind; scope: string }) {
  const { projectId, kind } = props;
  const concept = kind === "concept-mapping";
  const base = `/v1/projects/${encodeURIComponent(projectId)}/${kind}`;
  const canWrite = props.scope !== "read";

  const [project, setProject] = useState<Project | null>(null);
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
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [entities, setEntities] = useState<Entity[] | null>(null);
  const [message, setMessage] = useState("");
  const [error, setError] = useState<string | null>(null);
  const undo = useRef<Undo[]>([]);
  const filterText = useRef<HTMLInputElement>(null);

  const items = page?.items ?? [];
  const item = items[current];

  const fail = (e: unknown) => setError(e instanceof Error ? e.message : String(e));

  const load = useCallback(async () => {
    try {
      const p = await get<Page>(
        `${base}${query({ ...filterParams(filters, concept), limit: PAGE, offset })}`,
      );
      setPage(p);
      setCurrent((c) => Math.min(c, Math.max(0, p.items.length - 1)));
      setError(null);
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
        }
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

  const replace = (next: Item) =>
    setPage((p) => (p ? { ...p, items: p.items.map((i) => (i.id === next.id ? next : i)) } : p));

  const decide = async (target: Item, action: Action, body?: Body, moveOn = true) => {
    if (!canWrite) {
      setError("This key may only read this project.");
      return;
    }
    try {
      const r = await call<Item>("POST", `${base}/${encodeURIComponent(target.id)}/${action}`, {
        ...(body === undefined ? {} : { body }),
        ifMatch: target.version,
      });
      replace(r.body);
      // Later changes made here (a comment) move the undo's If-Match along, so u still applies.
      for (const u of undo.current) if (u.id === target.id) u.at = r.body.version;
      if (action !== "comment") undo.current.push({ id: target.id, to: target.version, at: r.body.version });
      setMessage(`${label(action)} ${target.id} (version ${r.body.version})`);
      setError(null);
      if (moveOn && action !== "comment") {
        setCurrent((c) => Math.min(c + 1, items.length - 1));
        setFocusRow(true);
      }
      loadStats();
    } catch (e) {
      if (e instanceof ApiError && e.status === 412) {
        const theirs = (await call<Item>("GET", `${base}/${encodeURIComponent(target.id)}`)).body;
        const events = await get<{ events: AuditEvent[] }>(
          `${base}/${encodeURIComponent(target.id)}/history`,
        );
        const last = events.events[events.events.length - 1];
        replace(theirs);
        setDialog({
          type: "conflict",
          action,
          body,
          theirs,
          by: last ? (last.reviewer ?? last.key_id) : null,
        });
      } else if (e instanceof ApiError && e.status === 409) {
        // The server's sentence names the item and the project by id; the reviewer knows them by code.
        setError(`${itemName(target)} has no suggestion to approve: override it instead (press o).`);
      } else fail(e);
    }
  };

  const undoLast = async () => {
    const last = undo.current.pop();
    if (!last) {
      setMessage("Nothing to undo");
      return;
    }
    try {
      const r = await call<Item>("POST", `${base}/${encodeURIComponent(last.id)}/revert`, {
        body: { to_version: last.to },
        ifMatch: last.at,
      });
      replace(r.body);
      const at = items.findIndex((i) => i.id === last.id);
      if (at >= 0) setCurrent(at);
      setFocusRow(true);
      setMessage(
        `Undid the decision on ${last.id}: back to version ${last.to} (now version ${r.body.version})`,
      );
      loadStats();
    } catch (e) {
      fail(e);
    }
  };

  const bulk = async (payload: object, what: string) => {
    try {
      const r = (await call<BulkResult>("POST", `${base}/bulk`, { body: payload })).body;
      const failed = r.results.filter((x) => x.status !== 200);
      setMessage(
        `${what}: ${r.applied} approved, ${r.failed} failed` +
          (failed.length ? ` (${failed.map((f) => `${f.id}: ${f.status}`).join(", ")})` : ""),
      );
      setSelected(new Set());
      await load();
      loadStats();
    } catch (e) {
      fail(e);
    }
  };

  /** The tier's approvals, at most a bulk call's 10,000 at a time, reported as one result. */
  const applyTier = async (decisions: TierDecision[], what: string) => {
    let applied = 0;
    const failed: string[] = [];
    try {
      for (let i = 0; i < decisions.length; i += MAX_BULK) {
        const r = (
          await call<BulkResult>("POST", `${base}/bulk`, {
            body: { decisions: decisions.slice(i, i + MAX_BULK) },
          })
        ).body;
        applied += r.applied;
        for (const x of r.results) if (x.status !== 200) failed.push(`${x.id}: ${x.status}`);
      }
    } catch (e) {
      fail(e);
    }
    setMessage(
      `${what}: ${applied} approved, ${failed.length} failed` +
        (failed.length ? ` (${failed.join(", ")})` : ""),
    );
    await load();
    loadStats();
  };

  const approveSelected = () => {
    const chosen = items.filter((i) => selected.has(i.id));
    if (chosen.length === 0) {
      setMessage("No item is selected (x selects the current item)");
      return;
    }
    bulk(
      { decisions: chosen.map((i) => ({ id: i.id, action: "approve", if_match: i.version })) },
      "Approve selected",
    );
  };

  /**
   * The confirmation counts the items the filters shown match now, read for it: the page's own count may
   * still be that of the filters before the last change, and the approval then uses exactly these filters.
   */
  const confirmMatching = async () => {
    const shown = filters;
    try {
      const p = await get<Page>(`${base}${query({ ...filterParams(shown, concept), limit: 1, offset: 0 })}`);
      if (p.total === 0) setMessage("No items match the filters: nothing to approve");
      else setDialog({ type: "bulk", count: p.total, filters: shown });
    } catch (e) {
      fail(e);
    }
  };

  const approveMatching = (shown: Filters) => {
    const { sort: _sort, ...filter } = filterParams(shown, concept);
    bulk({ filter: bulkFilter(filter), action: "approve" }, "Approve all matching");
    setDialog(null);
  };

  const toggle = (id: string) =>
    setSelected((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });

  // Keyboard first: one listener for the whole view; fields and dialogs keep their own keys. The handler is
  // replaced at every render and the listener calls the newest one, so a fast "j a" approves the item the
  // j moved to (an effect re-registering the listener would run after paint, leaving a stale item).
  const onKeyRef = useRef<(e: KeyboardEvent) => void>(() => {});
  onKeyRef.current = (e: KeyboardEvent) => {
    if (e.ctrlKey || e.metaKey || e.altKey || dialog) return;
    const t = e.target as HTMLElement;
    if (t.closest("input, textarea, select, dialog")) {
      if (e.key === "Escape" && t.closest(".filters")) {
        (t as HTMLElement).blur();
        setFocusRow(true);
        setCurrent((c) => c);
        focusCurrentRow();
      }
      return;
    }
    if (t.tagName === "BUTTON" && (e.key === "Enter" || e.key === " ")) return;
    const turn = (to: number) => {
      setOffset(to);
      setCurrent(0);
    };
    const move = (d: number) => {
      setCurrent((c) => Math.max(0, Math.min(items.length - 1, c + d)));
      setFocusRow(true);
    };
    const keys: Record<string, () => void> = {
      j: () => move(1),
      ArrowDown: () => move(1),
      k: () => move(-1),
      ArrowUp: () => move(-1),
      n: () => page && offset + PAGE < page.total && turn(offset + PAGE),
      p: () => offset > 0 && turn(Math.max(0, offset - PAGE)),
      a: () => item && decide(item, "approve"),
      r: () => item && decide(item, "reject"),
      o: () => item && canWrite && setDialog({ type: "override", item }),
      c: () => item && canWrite && setDialog({ type: "comment", item }),
      u: () => undoLast(),
      x: () => item && toggle(item.id),
      A: () => approveSelected(),
      "/": () => filterText.current?.focus(),
      "?": () => setDialog({ type: "help" }),
    };
    // 1-9: choose that candidate of the item, concept or schema (the first is the suggestion).
    if (/^[1-9]$/.test(e.key) && item && (item.candidates?.length ?? 0) >= Number(e.key)) {
      keys[e.key] = () => decide(item, "choose", { candidate: Number(e.key) });
    }
    const run = keys[e.key];
    if (run) {
      e.preventDefault();
      run();
    }
  };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => onKeyRef.current(e);
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  const focusCurrentRow = () =>
    requestAnimationFrame(() =>
      document.querySelector<HTMLTableRowElement>("table.items tbody tr[tabindex='0']")?.focus(),
    );

  const closeDialog = () => {
    setDialog(null);
    focusCurrentRow();
  };

  const title = concept ? "Concept items" : "Schema items";
  return (
    <main class="review">
      <nav aria-label="Project" class="crumbs">
        <a href="#/">Projects</a> / <span>{project?.name ?? projectId}</span> /{" "}
        <a
          href={`#/p/${encodeURIComponent(projectId)}/concept-mapping`}
          aria-current={concept ? "page" : undefined}
        >
          Concept items
        </a>{" "}
        <a
          href={`#/p/${encodeURIComponent(projectId)}/schema-mapping`}
          aria-current={concept ? undefined : "page"}
        >
          Schema items
        </a>
      </nav>
      <h1>
        {title} <span class="muted">{project?.name ?? ""}</span>
      </h1>
      {stats && <Progress stats={stats} concept={concept} />}
      <FilterBar
        concept={concept}
        value={filters}
        textRef={filterText}
        onChange={(f) => {
          setFilters(f);
          setOffset(0);
          setCurrent(0);
          // A result line describes the list before the change: it would mislead under the new one.
          setMessage("");
        }}
      />
      <div class="actions">
        <button type="button" onClick={approveSelected} disabled={!canWrite || selected.size === 0}>
          Approve selected ({selected.size})
        </button>
        <button type="button" onClick={confirmMatching} disabled={!canWrite || !page || page.total === 0}>
          Approve all matching ({page?.total ?? 0})
        </button>
        <button type="button" onClick={() => setDialog({ type: "help" })}>
          Keys (?)
        </button>
        <span class="paging">
          {page && page.total > 0
            ? `${offset + 1}–${offset + page.items.length} of ${page.total}`
            : page
              ? "No items match"
              : "Loading…"}
        </span>
      </div>
      <AutoAccept base={base} canWrite={canWrite} changed={stats} apply={applyTier} fail={fail} />
      <p class="status" role="status" aria-live="polite">
        {message}
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="split">
        <div class="table-wrap">
          <ItemsTable
            items={items}
            concept={concept}
            current={current}
            focusRow={focusRow}
            selected={selected}
            onCurrent={setCurrent}
            onToggle={toggle}
          />
        </div>
        <Detail item={item} history={history} />
      </div>
      {dialog?.type === "help" && <HelpDialog onClose={closeDialog} />}
      {dialog?.type === "comment" && (
        <CommentDialog
          item={dialog.item}
          onClose={closeDialog}
          onSave={(text) => {
            const target = dialog.item;
            closeDialog();
            decide(target, "comment", { comment: text }, false);
          }}
        />
      )}
      {dialog?.type === "override" && isConcept(dialog.item) && (
        <ConceptOverride
          item={dialog.item}
          onClose={closeDialog}
          onPick={(c: ConceptChoice) => {
            const target = dialog.item;
            closeDialog();
            decide(target, "override", { ...c });
          }}
        />
      )}
      {dialog?.type === "override" && !isConcept(dialog.item) && (
        <SchemaOverride
          item={dialog.item}
          entities={entities}
          onClose={closeDialog}
          onPick={(table, column) => {
            const target = dialog.item;
            closeDialog();
            decide(target, "override", { target_table: table, target_column: column });
          }}
        />
      )}
      {dialog?.type === "conflict" && (
        <ConflictDialog
          mine={describe(dialog.action, dialog.body)}
          theirs={dialog.theirs}
          by={dialog.by}
          canReapply={dialog.action !== "approve" || hasSuggestion(dialog.theirs)}
          onReapply={() => {
            const d = dialog;
            closeDialog();
            decide(d.theirs, d.action, d.body);
          }}
          onKeep={() => {
            closeDialog();
            setMessage(`Kept the other reviewer's decision on ${dialog.theirs.id}`);
          }}
        />
      )}
      {dialog?.type === "bulk" && (
        <ConfirmDialog
          title="Approve all matching items?"
          text={`This approves all ${dialog.count} items that match the current filters (${describeFilters(dialog.filters, concept)}), in one step. Items without a suggestion are reported and left as they are.`}
          onYes={() => approveMatching(dialog.filters)}
          onClose={closeDialog}
        />
      )}
    </main>
  );
}

/** Whether approving the item can succeed: it has a suggested target (rules.ts refuses it otherwise). */
function hasSuggestion(item: Item): boolean {
  return isConcept(item)
    ? item.target_concept_id !== null
    : item.target_table !== null && item.target_column !== null;
}

/** How a reviewer knows an item: its source code (and text), or its source column. */
function itemName(item: Item): string {
  if (isConcept(item)) {
    return `"${item.source_code}"${item.source_description ? ` (${item.source_description})` : ""}`;
  }
  return `${item.source_table ? `${item.source_table}.` : ""}${item.source_column}`;
}

const label = (a: Action) =>
  ({
    approve: "Approved",
    reject: "Rejected",
    override: "Overrode",
    comment: "Commented on",
    choose: "Chose a candidate for",
  })[a];

function describe(action: Action, body: Body): string {
  if (action === "override" && body) {
    return "target_concept_id" in body
      ? `override with ${body.target_concept_id} ${body.target_concept_name ?? ""}`
      : `override with ${body.target_table}.${body.target_column}`;
  }
  if (action === "choose" && body) return `choose candidate ${body.candidate}`;
  return action;
}

/** The list filters as the bulk endpoint takes them: typed values, no sort. */
function bulkFilter(params: Record<string, string | undefined>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === "") continue;
    if (k === "needs_review") out[k] = v === "true";
    else if (k === "min_confidence" || k === "max_confidence") out[k] = Number(v);
    else if (k === "status" || k === "method") out[k] = v;
    else out[k] = v;
  }
  return out;
}

function describeFilters(f: Filters, concept: boolean): string {
  const parts: string[] = [];
  if (f.state) parts.push(`${concept ? "method" : "status"} ${f.state}`);
  if (f.needsReview) parts.push("awaiting review");
  if (f.min !== "") parts.push(`confidence ≥ ${f.min}`);
  if (f.max !== "") parts.push(`confidence ≤ ${f.max}`);
  if (f.q) parts.push(`text "${f.q}"`);
  return parts.length ? parts.join(", ") : "no filter";
}
