// The items table: one page from the server, the current row focused (roving tabindex), checkboxes for
// bulk selection. Columns depend on the kind of item.
import { useEffect, useRef } from "preact/hooks";
import { type Item, isConcept, state } from "./api.js";

const pct = (c: number | null) => (c === null ? "" : c.toFixed(2));

interface Props {
  items: Item[];
  concept: boolean;
  current: number;
  focusRow: boolean;
  selected: ReadonlySet<string>;
  onCurrent: (i: number) => void;
  onToggle: (id: string) => void;
}

export function ItemsTable({ items, concept, current, focusRow, selected, onCurrent, onToggle }: Props) {
  const body = useRef<HTMLTableSectionElement>(null);
  useEffect(() => {
    if (!focusRow) return;
    const row = body.current?.querySelectorAll<HTMLTableRowElement>("tr")[current];
    // Only when focus is elsewhere: focusing fires the row's focus handler, which must not start a cycle.
    if (row && document.activeElement !== row) row.focus();
  }, [current, focusRow, items]);

  return (
    <table class="items" aria-label={concept ? "Concept items" : "Schema items"}>
      <thead>
        <tr>
          <th scope="col">
            <span class="sr-only">Selected</span>
          </th>
          {concept ? (
            <>
              <th scope="col">Source code</th>
              <th scope="col">Description</th>
              <th scope="col">Frequency</th>
              <th scope="col">Target concept</th>
            </>
          ) : (
            <>
              <th scope="col">Source</th>
              <th scope="col">Target</th>
            </>
          )}
          <th scope="col">Confidence</th>
          <th scope="col">{concept ? "Method" : "Status"}</th>
          <th scope="col">Comment</th>
        </tr>
      </thead>
      <tbody ref={body}>
        {items.map((item, i) => (
          <tr
            key={item.id}
            id={`row-${item.id}`}
            tabIndex={i === current ? 0 : -1}
            class={i === current ? "current" : undefined}
            aria-current={i === current ? "true" : undefined}
            data-id={item.id}
            onClick={() => onCurrent(i)}
            onFocus={() => i !== current && onCurrent(i)}
          >
            <td>
              <input
                type="checkbox"
                tabIndex={-1}
                aria-label={`Select ${item.id}`}
                checked={selected.has(item.id)}
                onChange={() => onToggle(item.id)}
              />
            </td>
            {isConcept(item) ? (
              <>
                <td>
                  {item.source_code}
                  {item.source_vocabulary_id && <span class="muted"> {item.source_vocabulary_id}</span>}
                </td>
                <td>{item.source_description ?? ""}</td>
                <td class="num">{item.source_frequency ?? ""}</td>
                <td>
                  {item.target_concept_id === null
                    ? "—"
                    : `${item.target_concept_id} ${item.target_concept_name ?? ""} (${item.target_vocabulary_id ?? "?"})`}
                </td>
              </>
            ) : (
              <>
                <td>
                  {item.source_table ? `${item.source_table}.` : ""}
                  {item.source_column}
                </td>
                <td>{item.target_table === null ? "—" : `${item.target_table}.${item.target_column}`}</td>
              </>
            )}
            <td class="num">{pct(item.confidence)}</td>
            <td>
              <span class={`state state-${state(item)}`}>{state(item)}</span>
            </td>
            <td>{item.comment ?? ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
