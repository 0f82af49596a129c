// The filter bar: state, awaiting review only, confidence range, text and sort, all sent to the server
// (it pages, filters and sorts; the page never holds more than one page of items).
import type { RefObject } from "preact";
import { useEffect, useState } from "preact/hooks";

export interface Filters {
  state: string;
  needsReview: boolean;
  min: string;
  max: string;
  q: string;
  sort: string;
}

export const NO_FILTERS: Filters = { state: "", needsReview: false, min: "", max: "", q: "", sort: "id" };

const SCHEMA_STATES = ["auto_accepted", "needs_review", "approved", "rejected", "overridden", "unmapped"];
const CONCEPT_METHODS = ["auto", "review", "manual", "override", "unmapped"];

export function filterParams(f: Filters, concept: boolean): Record<string, string | undefined> {
  return {
    [concept ? "method" : "status"]: f.state || undefined,
    needs_review: f.needsReview ? "true" : undefined,
    min_confidence: f.min || undefined,
    max_confidence: f.max || undefined,
    q: f.q.trim() || undefined,
    sort: f.sort === "id" ? undefined : f.sort,
  };
}

export function FilterBar(props: {
  concept: boolean;
  value: Filters;
  textRef: RefObject<HTMLInputElement>;
  onChange: (f: Filters) => void;
}) {
  const { value: f, onChange } = props;
  // Text waits for a pause in typing; everything else applies at once.
  const [text, setText] = useState(f.q);
  useEffect(() => {
    if (text === f.q) return;
    const t = setTimeout(() => onChange({ ...f, q: text }), 250);
    return () => clearTimeout(t);
  }, [text]);
  const set = (patch: Partial<Filters>) => onChange({ ...f, ...patch });
  const states = props.concept ? CONCEPT_METHODS : SCHEMA_STATES;
  const sorts: [string, string][] = [
    ["id", "id"],
    ["-confidence", "confidence, highest first"],
    ["confidence", "confidence, lowest first"],
    ...(props.concept
      ? ([
          ["-source_frequency", "frequency, highest first"],
          ["source_frequency", "frequency, lowest first"],
        ] as [string, string][])
      : []),
    ["-updated_at", "last changed first"],
  ];
  return (
    <form class="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
      <label>
        {props.concept ? "Method" : "Status"}{" "}
        <select value={f.state} onChange={(e) => set({ state: (e.target as HTMLSelectElement).value })}>
          <option value="">any</option>
          {states.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label>
        <input
          type="checkbox"
          checked={f.needsReview}
          onChange={() => set({ needsReview: !f.needsReview })}
          name="needs_review"
        />{" "}
        Awaiting review only
      </label>
      <label>
        Confidence from{" "}
        <input
          type="number"
          min="0"
          max="1"
          step="0.01"
          value={f.min}
          name="min_confidence"
          onChange={(e) => set({ min: (e.target as HTMLInputElement).value })}
        />
      </label>
      <label>
        to{" "}
        <input
          type="number"
          min="0"
          max="1"
          step="0.01"
          value={f.max}
          name="max_confidence"
          onChange={(e) => set({ max: (e.target as HTMLInputElement).value })}
        />
      </label>
      <label>
        Text{" "}
        <input
          type="search"
          ref={props.textRef}
          value={text}
          name="q"
          onInput={(e) => setText((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        Sort{" "}
        <select value={f.sort} onChange={(e) => set({ sort: (e.target as HTMLSelectElement).value })}>
          {sorts.map(([v, l]) => (
            <option key={v} value={v}>
              {l}
            </option>
          ))}
        </select>
      </label>
    </form>
  );
}
