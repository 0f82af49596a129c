// One project's items of one kind: the filters, progress, the table, the detail pane and the dialogs,
// put together. The list state is item-list.ts, the calls that change items decisions.ts, the keys
// review-keys.ts (listed in dialogs.tsx KEYS). Decisions carry If-Match with the version shown, so a
// concurrent change comes back as 412 and the reviewer chooses; undo reverts this tab's last decision.
import { useRef, useState } from "preact/hooks";
import { type Item, isConcept, type Kind } from "./api.js";
import { useDecisions } from "./decisions.js";
import { Detail } from "./detail.js";
import {
  CommentDialog,
  type ConceptChoice,
  ConceptOverride,
  ConfirmDialog,
  ConflictDialog,
  HelpDialog,
  SchemaOverride,
} from "./dialogs.js";
import { FilterBar, type Filters } from "./filters.js";
import { PAGE, useItemList } from "./item-list.js";
import { Progress } from "./progress.js";
import { useReviewKeys } from "./review-keys.js";
import { type Action, type Body, cannotApply, describe, describeFilters } from "./review-words.js";
import { ItemsTable } from "./table.js";
import { AutoAccept } from "./tiers.js";

type Dialog =
  | { type: "help" }
  | { type: "comment"; item: Item }
  | { type: "override"; item: Item }
  | { type: "conflict"; action: Action; body: Body; theirs: Item; by: string | null }
  | { type: "bulk"; count: number; filters: Filters };

export function Review(props: { projectId: string; kind: Kind; scope: string }) {
  const { projectId, kind } = props;
  const concept = kind === "concept-mapping";
  const base = `/v1/projects/${encodeURIComponent(projectId)}/${kind}`;
  const canWrite = props.scope !== "read";

  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [message, setMessage] = useState("");
  const [error, setError] = useState<string | null>(null);
  const filterText = useRef<HTMLInputElement>(null);

  const fail = (e: unknown) => setError(e instanceof Error ? e.message : String(e));
  const list = useItemList(projectId, base, concept, { fail, ok: () => setError(null) });
  const { project, entities, filters, offset, page, items, item, current, focusRow, selected } = list;
  const { stats, history } = list;
  const { setCurrent, setFocusRow, toggle } = list;
  const { decide, undoLast, applyTier, approveSelected, confirmMatching, approveMatching } = useDecisions({
    base,
    concept,
    canWrite,
    list,
    setMessage,
    setError,
    fail,
    onConflict: (c) => setDialog({ type: "conflict", ...c }),
    onConfirmMatching: (count, shown) => setDialog({ type: "bulk", count, filters: shown }),
  });

  const focusCurrentRow = () =>
    requestAnimationFrame(() =>
      document.querySelector<HTMLTableRowElement>("table.items tbody tr[tabindex='0']")?.focus(),
    );

  const turn = (to: number) => {
    list.setOffset(to);
    setCurrent(0);
  };
  useReviewKeys({
    item,
    canWrite,
    dialogOpen: dialog !== null,
    move: (d) => {
      setCurrent((c) => Math.max(0, Math.min(items.length - 1, c + d)));
      setFocusRow(true);
    },
    nextPage: () => page && offset + PAGE < page.total && turn(offset + PAGE),
    previousPage: () => offset > 0 && turn(Math.max(0, offset - PAGE)),
    decide,
    override: (i) => setDialog({ type: "override", item: i }),
    comment: (i) => setDialog({ type: "comment", item: i }),
    undo: () => undoLast(),
    toggle,
    approveSelected,
    focusFilter: () => filterText.current?.focus(),
    help: () => setDialog({ type: "help" }),
    leaveFilter: (field) => {
      field.blur();
      setFocusRow(true);
      setCurrent((c) => c);
      focusCurrentRow();
    },
  });

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
          list.setFilters(f);
          list.setOffset(0);
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
          cannot={cannotApply(dialog.action, dialog.body, dialog.theirs)}
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
          onYes={() => {
            approveMatching(dialog.filters);
            setDialog(null);
          }}
          onClose={closeDialog}
        />
      )}
    </main>
  );
}
