// Modal dialogs (native <dialog>: focus stays inside, Escape closes): the key list, comment, the two
// override pickers, a 412 conflict and the bulk confirmation.
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { type ConceptItem, type FoundConcept, get, type Item, query, type SchemaItem } from "./api.js";

export function Modal(props: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current!;
    if (!d.open) d.showModal();
    const close = () => props.onClose();
    d.addEventListener("close", close);
    return () => d.removeEventListener("close", close);
  }, []);
  return (
    <dialog ref={ref} aria-labelledby="dialog-title" class="modal">
      <h2 id="dialog-title">{props.title}</h2>
      {props.children}
    </dialog>
  );
}

export const KEYS: [string, string][] = [
  ["j or ↓", "next item"],
  ["k or ↑", "previous item"],
  ["n / p", "next / previous page"],
  ["a", "approve the current item"],
  ["r", "reject the current item"],
  ["o", "override: search a concept, or pick a table and column"],
  ["1-9", "choose that candidate of the current item, concept or schema (1 is the suggestion)"],
  ["c", "comment on the current item"],
  ["u", "undo your last decision (a new, audited decision)"],
  ["x", "select or unselect the current item"],
  ["A (shift+a)", "approve the selected items"],
  ["/", "filter by text"],
  ["?", "this list"],
  ["Escape", "close a dialog, or leave a filter field"],
];

export function HelpDialog({ onClose }: { onClose: () => void }) {
  return (
    <Modal title="Keyboard shortcuts" onClose={onClose}>
      <table class="keys">
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Does</th>
          </tr>
        </thead>
        <tbody>
          {KEYS.map(([k, d]) => (
            <tr key={k}>
              <td>
                <kbd>{k}</kbd>
              </td>
              <td>{d}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <form method="dialog">
        <button type="submit">Close</button>
      </form>
    </Modal>
  );
}

export function CommentDialog(props: {
  item: Item;
  onSave: (text: string | null) => void;
  onClose: () => void;
}) {
  const [text, setText] = useState(props.item.comment ?? "");
  return (
    <Modal title={`Comment on ${props.item.id}`} onClose={props.onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          props.onSave(text.trim() === "" ? null : text);
        }}
      >
        <label for="comment-text">Comment</label>
        <textarea
          id="comment-text"
          rows={4}
          maxLength={10000}
          value={text}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        />
        <div class="buttons">
          <button type="submit">Save comment</button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Modal>
  );
}

export interface ConceptChoice {
  target_concept_id: number;
  target_concept_name: string;
  target_vocabulary_id: string;
  equivalence?: string;
}

const EQUIVALENCES = ["equivalent", "equal", "wider", "narrower", "inexact", "relatedto"];

/** Search the server's vocabulary by name, code or id; arrows move in the answers, Enter overrides. */
export function ConceptOverride(props: {
  item: ConceptItem;
  onPick: (c: ConceptChoice) => void;
  onClose: () => void;
}) {
  // Starts with what the source says the code means: usually the concept the reviewer is looking for.
  const [text, setText] = useState(props.item.source_description ?? "");
  const [standard, setStandard] = useState(true);
  const [equivalence, setEquivalence] = useState("");
  const [found, setFound] = useState<FoundConcept[]>([]);
  const [total, setTotal] = useState<number | null>(null);
  const [active, setActive] = useState(0);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (text.trim() === "") {
      setFound([]);
      setTotal(null);
      return;
    }
    let stale = false;
    const timer = setTimeout(() => {
      get<{ concepts: FoundConcept[]; total: number }>(
        `/api/v1/vocabulary/concepts${query({ q: text, standard: standard ? "true" : undefined, limit: 20 })}`,
      )
        .then((r) => {
          if (stale) return;
          setFound(r.concepts);
          setTotal(r.total);
          setActive(0);
          setError(null);
        })
        .catch((e: Error) => !stale && setError(e.message));
    }, 150);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [text, standard]);

  const pick = (c: FoundConcept | undefined) => {
    if (!c) return;
    props.onPick({
      target_concept_id: c.concept_id,
      target_concept_name: c.concept_name,
      target_vocabulary_id: c.vocabulary_id,
      ...(equivalence ? { equivalence } : {}),
    });
  };

  const onKey = (e: KeyboardEvent) => {
    if (e.key === "ArrowDown") {
      e.preventDefault();
      setActive((a) => Math.min(a + 1, found.length - 1));
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      setActive((a) => Math.max(a - 1, 0));
    } else if (e.key === "Enter") {
      e.preventDefault();
      pick(found[active]);
    }
  };

  return (
    <Modal title={`Override ${props.item.source_code}`} onClose={props.onClose}>
      <p class="muted">
        {props.item.source_description ?? ""} — now{" "}
        {props.item.target_concept_id === null
          ? "no concept"
          : `${props.item.target_concept_id} ${props.item.target_concept_name ?? ""}`}
      </p>
      <label for="concept-search">Search concepts by name, code or id</label>
      <input
        id="concept-search"
        type="search"
        role="combobox"
        aria-expanded={found.length > 0}
        aria-controls="concept-results"
        aria-activedescendant={found[active] ? `concept-${found[active].concept_id}` : undefined}
        autocomplete="off"
        value={text}
        // Selected when the dialog opens: the source's text is searched at once, and typing replaces it.
        onFocus={(e) => (e.target as HTMLInputElement).select()}
        onInput={(e) => setText((e.target as HTMLInputElement).value)}
        onKeyDown={onKey}
      />
      <div class="options">
        <label>
          <input type="checkbox" checked={standard} onChange={() => setStandard(!standard)} /> Standard
          concepts only
        </label>
        <label for="equivalence">Equivalence</label>
        <select
          id="equivalence"
          value={equivalence}
          onChange={(e) => setEquivalence((e.target as HTMLSelectElement).value)}
        >
          <option value="">(not said)</option>
          {EQUIVALENCES.map((q) => (
            <option key={q} value={q}>
              {q}
            </option>
          ))}
        </select>
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <p aria-live="polite" class="muted">
        {total === null ? "" : `${total} concept${total === 1 ? "" : "s"} found`}
      </p>
      <div id="concept-results" role="listbox" aria-label="Concepts found">
        {found.map((c, i) => (
          <div
            key={c.concept_id}
            tabIndex={-1}
            id={`concept-${c.concept_id}`}
            role="option"
            aria-selected={i === active}
            class={i === active ? "active" : undefined}
            onClick={() => pick(c)}
            onKeyDown={(e) => e.key === "Enter" && pick(c)}
          >
            <strong>{c.concept_name}</strong>{" "}
            <span class="muted">
              {c.concept_id} · {c.vocabulary_id} {c.concept_code} · {c.domain_id}
              {c.standard_concept === "S" ? " · standard" : ""}
            </span>
          </div>
        ))}
      </div>
      <div class="buttons">
        <button type="button" onClick={() => pick(found[active])} disabled={found.length === 0}>
          Override with the highlighted concept
        </button>
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </Modal>
  );
}

export interface Entity {
  name: string;
  fields: { name: string }[];
}

/**
 * Table and column pickers from the target model's definition (crossmaps/standards/), or free text where
 * there is none (`entities` null). While the definition is being read (undefined), the pickers wait,
 * disabled: free text first and pickers a moment later would drop what the reviewer had begun to type.
 */
export function SchemaOverride(props: {
  item: SchemaItem;
  entities: Entity[] | null | undefined;
  onPick: (table: string, column: string) => void;
  onClose: () => void;
}) {
  const entities = props.entities;
  if (entities === undefined) {
    const waiting = (id: string) => (
      <select id={id} disabled>
        <option>reading the target model…</option>
      </select>
    );
    return (
      <OverrideForm
        item={props.item}
        onClose={props.onClose}
        table={waiting("target-table")}
        column={waiting("target-column")}
      />
    );
  }
  return <SchemaPickers {...props} entities={entities} />;
}

/** The override dialog around its two controls; without `onSubmit` it waits (its Override disabled). */
function OverrideForm(props: {
  item: SchemaItem;
  onClose: () => void;
  onSubmit?: () => void;
  table: ComponentChildren;
  column: ComponentChildren;
}) {
  const { onSubmit } = props;
  return (
    <Modal
      title={`Override ${props.item.source_table ?? ""}.${props.item.source_column}`}
      onClose={props.onClose}
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onSubmit?.();
        }}
      >
        <label for="target-table">Target table</label>
        {props.table}
        <label for="target-column">Target column</label>
        {props.column}
        <div class="buttons">
          <button type="submit" disabled={onSubmit === undefined}>
            Override
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Modal>
  );
}

function SchemaPickers(props: {
  item: SchemaItem;
  entities: Entity[] | null;
  onPick: (table: string, column: string) => void;
  onClose: () => void;
}) {
  const entities = props.entities;
  const [table, setTable] = useState(props.item.target_table ?? entities?.[0]?.name ?? "");
  const columns = entities?.find((e) => e.name === table)?.fields ?? [];
  const [column, setColumn] = useState(props.item.target_column ?? "");
  const columnKnown = columns.some((f) => f.name === column);
  return (
    <OverrideForm
      item={props.item}
      onClose={props.onClose}
      onSubmit={() => {
        const col = entities && !columnKnown ? (columns[0]?.name ?? "") : column;
        if (table && col) props.onPick(table, col);
      }}
      table={
        entities ? (
          <select
            id="target-table"
            value={table}
            onChange={(e) => setTable((e.target as HTMLSelectElement).value)}
          >
            {entities.map((e) => (
              <option key={e.name} value={e.name}>
                {e.name}
              </option>
            ))}
          </select>
        ) : (
          <input
            id="target-table"
            value={table}
            onInput={(e) => setTable((e.target as HTMLInputElement).value)}
          />
        )
      }
      column={
        entities ? (
          <select
            id="target-column"
            value={columnKnown ? column : (columns[0]?.name ?? "")}
            onChange={(e) => setColumn((e.target as HTMLSelectElement).value)}
          >
            {columns.map((f) => (
              <option key={f.name} value={f.name}>
                {f.name}
              </option>
            ))}
          </select>
        ) : (
          <input
            id="target-column"
            value={column}
            onInput={(e) => setColumn((e.target as HTMLInputElement).value)}
          />
        )
      }
    />
  );
}

/** Another reviewer changed the item after this page read it: show theirs, re-apply mine or keep theirs. */
export function ConflictDialog(props: {
  mine: string;
  theirs: Item;
  by: string | null;
  /** Why mine cannot succeed on theirs (review-words.ts cannotApply), or null when it can. */
  cannot: string | null;
  onReapply: () => void;
  onKeep: () => void;
}) {
  const t = props.theirs as Partial<SchemaItem & ConceptItem>;
  const decision =
    "source_code" in t
      ? `${t.method}: ${t.target_concept_id ?? "no concept"} ${t.target_concept_name ?? ""}`
      : `${t.status}: ${t.target_table ?? "—"}.${t.target_column ?? "—"}`;
  return (
    <Modal title="Someone else changed this item" onClose={props.onKeep}>
      <p>
        {props.by ?? "Another reviewer"} changed {t.id} to version {t.version} before your decision reached
        the server.
      </p>
      <p>
        Their decision: <strong class="theirs">{decision}</strong>
      </p>
      <p>
        Yours: <strong>{props.mine}</strong>
      </p>
      {props.cannot !== null && <p class="note">Yours cannot be applied now: {props.cannot}</p>}
      <div class="buttons">
        {props.cannot === null && (
          <button type="button" onClick={props.onReapply}>
            Apply mine anyway
          </button>
        )}
        <button type="button" onClick={props.onKeep}>
          Keep theirs
        </button>
      </div>
    </Modal>
  );
}

export function ConfirmDialog(props: {
  title: string;
  text: string;
  onYes: () => void;
  onClose: () => void;
}) {
  return (
    <Modal title={props.title} onClose={props.onClose}>
      <p>{props.text}</p>
      <div class="buttons">
        <button type="button" onClick={props.onYes}>
          Yes, approve them
        </button>
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </Modal>
  );
}
