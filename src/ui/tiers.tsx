// The confidence tier: a reviewer sets an auto-accept threshold on the ranked candidates' score, sees how
// many awaiting items it would accept, and approves exactly those (each an ordinary, audited approval by
// that reviewer, through the bulk endpoint with each item's version as If-Match). The threshold is the
// reviewer's, per browser tab and project (sessionStorage): it is never applied without them.
import { useEffect, useState } from "preact/hooks";
import { get, type Item, type Page, query } from "./api.js";
import { ConfirmDialog } from "./dialogs.js";

/** Items listed per request while collecting the tier (the list's own maximum). */
const LIST_MAX = 1000;

export interface TierDecision {
  id: string;
  action: "approve";
  if_match: number;
}

const storageKey = (base: string) => `crossmap.tier.${base}`;

/** A threshold as typed: a number from 0 to 1, else null (nothing is counted). */
function parse(text: string): number | null {
  if (text.trim() === "") return null;
  const t = Number(text);
  return Number.isFinite(t) && t >= 0 && t <= 1 ? t : null;
}

const tierQuery = (t: number, limit: number, offset: number) =>
  query({ needs_review: true, min_top_score: t, limit, offset });

export function AutoAccept(props: {
  /** The items' path: /v1/projects/{p}/{kind}. */
  base: string;
  canWrite: boolean;
  /** Changes whenever the project's items may have changed (the stats), to count again. */
  changed: unknown;
  apply: (decisions: TierDecision[], label: string) => Promise<void>;
  fail: (e: unknown) => void;
}) {
  const { base } = props;
  const [text, setText] = useState(() => sessionStorage.getItem(storageKey(base)) ?? "");
  const [count, setCount] = useState<number | null>(null);
  const [confirm, setConfirm] = useState<{ threshold: number; decisions: TierDecision[] } | null>(null);
  const threshold = parse(text);

  useEffect(() => {
    if (text === "") sessionStorage.removeItem(storageKey(base));
    else sessionStorage.setItem(storageKey(base), text);
  }, [base, text]);

  // The count is read from the server for the threshold shown; a newer threshold wins over a late answer.
  useEffect(() => {
    setCount(null);
    if (threshold === null) return;
    let stale = false;
    get<Page>(`${base}${tierQuery(threshold, 1, 0)}`)
      .then((p) => !stale && setCount(p.total))
      .catch((e) => !stale && props.fail(e));
    return () => {
      stale = true;
    };
  }, [base, threshold, props.changed]);

  /** The items of the tier now, with their versions: the confirmation names and applies exactly these. */
  const collect = async (t: number) => {
    const decisions: TierDecision[] = [];
    for (let offset = 0; ; offset += LIST_MAX) {
      const p = await get<Page>(`${base}${tierQuery(t, LIST_MAX, offset)}`);
      for (const i of p.items as Item[]) decisions.push({ id: i.id, action: "approve", if_match: i.version });
      if (offset + LIST_MAX >= p.total) break;
    }
    return decisions;
  };

  const start = async () => {
    if (threshold === null) return;
    try {
      const decisions = await collect(threshold);
      setCount(decisions.length);
      if (decisions.length > 0) setConfirm({ threshold, decisions });
    } catch (e) {
      props.fail(e);
    }
  };

  const invalid = text !== "" && threshold === null;
  return (
    <form class="tier" aria-label="Auto-accept" onSubmit={(e) => e.preventDefault()}>
      <label>
        Auto-accept top candidates scoring from{" "}
        <input
          type="number"
          min="0"
          max="1"
          step="0.01"
          value={text}
          name="auto_accept"
          aria-invalid={invalid}
          onChange={(e) => setText((e.target as HTMLInputElement).value)}
        />
      </label>{" "}
      <output class="tier-count">
        {invalid
          ? "The threshold is a score from 0 to 1"
          : threshold === null
            ? ""
            : count === null
              ? "Counting…"
              : `${count} awaiting ${count === 1 ? "item" : "items"} would be accepted`}
      </output>{" "}
      <button
        type="button"
        onClick={start}
        disabled={!props.canWrite || threshold === null || count === null || count === 0}
      >
        Accept {count ?? 0}
      </button>
      {confirm && (
        <ConfirmDialog
          title="Accept the top candidates?"
          text={`This approves the ${confirm.decisions.length} awaiting ${confirm.decisions.length === 1 ? "item" : "items"} whose suggestion is their top candidate with a score ≥ ${confirm.threshold}, each as your approval. An item someone changes meanwhile is reported and left as it is.`}
          onYes={() => {
            const c = confirm;
            setConfirm(null);
            props.apply(c.decisions, `Auto-accept ≥ ${c.threshold}`);
          }}
          onClose={() => setConfirm(null)}
        />
      )}
    </form>
  );
}
