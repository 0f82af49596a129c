// How the review view puts decisions, items and filters into words (result lines, the conflict dialog, the
// bulk confirmation), and the list filters in the bulk endpoint's terms: pure functions, no state.
import { type Item, isConcept } from "./api.js";
import type { Filters } from "./filters.js";

export type Action = "approve" | "reject" | "override" | "comment" | "choose";
export type Body = Record<string, unknown> | undefined;

/** Whether approving the item can succeed: it has a suggested target (rules.ts refuses it otherwise). */
function hasSuggestion(item: Item): boolean {
  return isConcept(item)
    ? item.target_concept_id !== null
    : item.target_table !== null && item.target_column !== null;
}

/**
 * Why a decision cannot succeed on the item as another reviewer (or a push) left it, as the conflict
 * dialog says it; null when it can. rules.ts would refuse these: approve without a suggestion (409),
 * choose past the item's candidates (409 or 422).
 */
export function cannotApply(action: Action, body: Body, item: Item): string | null {
  if (action === "approve" && !hasSuggestion(item)) {
    return "their decision left no suggestion to approve. Keep theirs, then override the item if you disagree.";
  }
  const k = Number(body?.candidate);
  const count = item.candidates?.length ?? 0;
  if (action === "choose" && count < k) {
    const now = count === 0 ? "no candidates" : `${count} candidate${count === 1 ? "" : "s"}`;
    return `the item has ${now} now (you chose candidate ${k}). Keep theirs, then choose again or override the item.`;
  }
  return null;
}

/** How a reviewer knows an item: its source code (and text), or its source column. */
export function itemName(item: Item): string {
  if (isConcept(item)) {
    return `"${item.source_code}"${item.source_description ? ` (${item.source_description})` : ""}`;
  }
  return `${item.source_table ? `${item.source_table}.` : ""}${item.source_column}`;
}

export const label = (a: Action) =>
  ({
    approve: "Approved",
    reject: "Rejected",
    override: "Overrode",
    comment: "Commented on",
    choose: "Chose a candidate for",
  })[a];

export function describe(action: Action, body: Body): string {
  if (action === "override" && body) {
    return "target_concept_id" in body
      ? `override with ${body.target_concept_id} ${body.target_concept_name ?? ""}`
      : `override with ${body.target_table}.${body.target_column}`;
  }
  if (action === "choose" && body) return `choose candidate ${body.candidate}`;
  return action;
}

/** The list filters as the bulk endpoint takes them: typed values, no sort. */
export function bulkFilter(params: Record<string, string | undefined>): Record<string, unknown> {
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

export function describeFilters(f: Filters, concept: boolean): string {
  const parts: string[] = [];
  if (f.state) parts.push(`${concept ? "method" : "status"} ${f.state}`);
  if (f.needsReview) parts.push("awaiting review");
  if (f.min !== "") parts.push(`confidence ≥ ${f.min}`);
  if (f.max !== "") parts.push(`confidence ≤ ${f.max}`);
  if (f.q) parts.push(`text "${f.q}"`);
  return parts.length ? parts.join(", ") : "no filter";
}
