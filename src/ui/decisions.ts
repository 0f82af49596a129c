// The review view's calls that change items: one decision (with If-Match, a 412 turned into the conflict
// dialog), undo as a revert to the version before this tab's last decision, and the bulk approvals
// (selected, all matching, the confidence tier). Each reports in the status line and reloads what changed.
import { useRef } from "preact/hooks";
import { ApiError, type AuditEvent, type BulkResult, call, get, type Item, type Page, query } from "./api.js";
import { type Filters, filterParams } from "./filters.js";
import type { ItemList } from "./item-list.js";
import { type Action, type Body, bulkFilter, itemName, label } from "./review-words.js";
import type { TierDecision } from "./tiers.js";

/** Most decisions one bulk call takes. */
const MAX_BULK = 10_000;

interface Undo {
  id: string;
  /** The version before the decision, to revert to. */
  to: number;
  /** The version the decision made (the revert's If-Match). */
  at: number;
}

/** What the calls need from the view around them. */
export interface DecisionContext {
  base: string;
  concept: boolean;
  canWrite: boolean;
  list: ItemList;
  setMessage: (m: string) => void;
  setError: (e: string | null) => void;
  fail: (e: unknown) => void;
  /** A 412: the other reviewer's item and name, for the conflict dialog. */
  onConflict: (c: { action: Action; body: Body; theirs: Item; by: string | null }) => void;
  /** How many items match these filters now: the view confirms before approving them all. */
  onConfirmMatching: (count: number, filters: Filters) => void;
}

export function useDecisions(ctx: DecisionContext) {
  const { base, concept, canWrite, list, setMessage, setError, fail } = ctx;
  const { items, replace, loadStats, load } = list;
  const undo = useRef<Undo[]>([]);

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
        list.setCurrent((c) => Math.min(c + 1, items.length - 1));
        list.setFocusRow(true);
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
        ctx.onConflict({ action, body, theirs, by: last ? (last.reviewer ?? last.key_id) : null });
      } else if (e instanceof ApiError && e.status === 409) {
        // The server's sentence names the item and the project by id; the reviewer knows them by code.
        const what = action === "choose" ? "no candidates to choose from" : "no suggestion to approve";
        setError(`${itemName(target)} has ${what}: override it instead (press o).`);
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
      if (at >= 0) list.setCurrent(at);
      list.setFocusRow(true);
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
      list.setSelected(new Set());
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
    const chosen = items.filter((i) => list.selected.has(i.id));
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
    const shown = list.filters;
    try {
      const p = await get<Page>(`${base}${query({ ...filterParams(shown, concept), limit: 1, offset: 0 })}`);
      if (p.total === 0) setMessage("No items match the filters: nothing to approve");
      else ctx.onConfirmMatching(p.total, shown);
    } catch (e) {
      fail(e);
    }
  };

  const approveMatching = (shown: Filters) => {
    const { sort: _sort, ...filter } = filterParams(shown, concept);
    bulk({ filter: bulkFilter(filter), action: "approve" }, "Approve all matching");
  };

  return { decide, undoLast, applyTier, approveSelected, confirmMatching, approveMatching };
}
