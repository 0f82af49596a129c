// The detail pane of the current item: its fields, why it is back in review, its comment and its audit
// history (who, when, before -> after).
import { type AuditEvent, type Item, isConcept } from "./api.js";

const REVIEW_FIELDS = [
  "status",
  "method",
  "target_table",
  "target_column",
  "target_concept_id",
  "target_concept_name",
  "target_vocabulary_id",
  "equivalence",
  "comment",
] as const;

/** The candidate that is the item's target now: marked for the eye (app.css) and for screen readers. */
const chosen = (is: boolean) => (is ? { class: "chosen", "aria-current": "true" as const } : {});

const show = (v: unknown) => (v === null || v === undefined ? "—" : String(v));

/** "status: needs_review → approved" for each review field the event changed. */
export function changes(e: AuditEvent): string[] {
  const before = (e.before ?? {}) as Record<string, unknown>;
  const after = e.after as unknown as Record<string, unknown>;
  const out: string[] = [];
  for (const f of REVIEW_FIELDS) {
    if (!(f in after)) continue;
    if (e.before === null) {
      if (after[f] !== null) out.push(`${f}: ${show(after[f])}`);
    } else if (before[f] !== after[f]) out.push(`${f}: ${show(before[f])} → ${show(after[f])}`);
  }
  return out;
}

export function Detail({ item, history }: { item: Item | undefined; history: AuditEvent[] | null }) {
  if (!item) return <aside class="detail" aria-label="Item detail" />;
  const fields: [string, unknown][] = isConcept(item)
    ? [
        ["Source code", item.source_code],
        ["Source vocabulary", item.source_vocabulary_id],
        ["Source column", item.source_column],
        ["Description", item.source_description],
        ["Frequency", item.source_frequency],
        ["Target concept", item.target_concept_id],
        ["Concept name", item.target_concept_name],
        ["Vocabulary", item.target_vocabulary_id],
        ["Equivalence", item.equivalence],
        ["Confidence", item.confidence],
        ["Method", item.method],
      ]
    : [
        ["Source", `${item.source_table ?? ""}.${item.source_column}`],
        ["Target table", item.target_table],
        ["Target column", item.target_column],
        ["Confidence", item.confidence],
        ["Status", item.status],
      ];
  return (
    <aside class="detail" aria-label="Item detail">
      <h2>Item {item.id}</h2>
      <dl>
        {fields.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{show(v)}</dd>
          </div>
        ))}
        <div>
          <dt>Version</dt>
          <dd>{item.version}</dd>
        </div>
      </dl>
      {isConcept(item) && item.revalidation && <p class="note">Back in review: {item.revalidation.reason}</p>}
      {isConcept(item) && item.candidates && item.candidates.length > 0 && (
        <>
          <h3>Candidates</h3>
          <ol class="candidates" aria-label="Candidates">
            {item.candidates.map((c, i) => (
              <li key={c.concept_id} {...chosen(c.concept_id === item.target_concept_id)}>
                {i < 9 && <kbd>{i + 1}</kbd>} {c.concept_id} {c.concept_name ?? ""}{" "}
                <span class="muted">
                  {c.vocabulary_id ?? ""} {c.domain_id ?? ""}
                </span>{" "}
                <span class="score">{c.score === null ? "—" : c.score.toFixed(2)}</span>
              </li>
            ))}
          </ol>
        </>
      )}
      {!isConcept(item) && item.candidates && item.candidates.length > 0 && (
        <>
          <h3>Candidates</h3>
          <ol class="candidates" aria-label="Candidates">
            {item.candidates.map((c, i) => (
              <li
                key={`${c.target_table}.${c.target_column}`}
                {...chosen(c.target_table === item.target_table && c.target_column === item.target_column)}
              >
                {i < 9 && <kbd>{i + 1}</kbd>} {c.target_table}.{c.target_column}{" "}
                <span class="score">{c.score === null ? "—" : c.score.toFixed(2)}</span>
              </li>
            ))}
          </ol>
        </>
      )}
      <h3>Comment</h3>
      <p class="comment">{item.comment ?? "No comment (press c to write one)."}</p>
      <h3>History</h3>
      {history === null ? (
        <p>Loading…</p>
      ) : (
        <ol class="history">
          {history.map((e) => (
            <li key={e.version}>
              <span class="action">
                {e.action}
                {e.candidate !== undefined && ` candidate ${e.candidate}`}
              </span>{" "}
              v{e.version} by <strong>{e.reviewer ?? e.key_id ?? "the CLI"}</strong> at{" "}
              <time dateTime={e.at} title={e.at}>
                {localTime(e.at)}
              </time>
              {e.reverted_to !== undefined && ` (back to v${e.reverted_to})`}
              <ul>
                {changes(e).map((c) => (
                  <li key={c}>{c}</li>
                ))}
              </ul>
            </li>
          ))}
        </ol>
      )}
    </aside>
  );
}

/**
 * An event's time in the reader's own time zone and locale, to the second ("27 Nov 2026, 14:05:09");
 * the stored UTC time stays in the element's datetime and title.
 */
function localTime(at: string): string {
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return at;
  return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}
