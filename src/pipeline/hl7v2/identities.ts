// Resources whose ids come from business identifiers (a crossmap's `id: {identity: ...}`) take a fullUrl of
// their own, not their segment's: references inside the Bundle, written to the segment's fullUrl, are
// rewritten to it, and two resources of one message that claim the same identity keep their message ids.

import type { GatherItem } from "../../crossmap/gather.js";
import type { MappingIssue, TargetRecord } from "../../crossmap/types.js";
import type { Produced } from "./bundle.js";

/**
 * Settles the identities of one message's resources in place: a second resource with a fullUrl an earlier
 * one already has (the same identifiers twice in one message) goes back to its segment's id, with a
 * `duplicate_identity` warning; then every reference to a segment's fullUrl whose resource moved is rewritten,
 * unless `later` is set: then the moves are returned for the caller to rewrite in a walk it makes anyway.
 */
export function settleIdentities(
  kept: GatherItem<Produced>[],
  items: readonly GatherItem<Produced>[],
  issues: MappingIssue[],
  later = false,
): ReadonlyMap<string, string> {
  const first = new Map<string, Produced>();
  for (const t of kept) {
    const p = t.place;
    const earlier = first.get(p.fullUrl);
    if (earlier === undefined) {
      first.set(p.fullUrl, p);
      continue;
    }
    if (p.replaces === undefined) continue;
    issues.push({
      record: p.ctx.position,
      field: p.ctx.type,
      target: `${t.entity}.id`,
      code: "duplicate_identity",
      severity: "warning",
      message: `${t.entity} has the business identifiers of the one made of ${earlier.ctx.position}; it keeps the id of its own segment`,
    });
    p.fullUrl = p.replaces;
    p.replaces = undefined;
    if (typeof t.value.id === "string") t.value.id = p.ctx.id;
    first.set(p.fullUrl, p);
  }
  // Every resource that moved, written or merged into one written (`dedupe`): its segment's references follow.
  const aliases = new Map<string, string>();
  for (const t of items) {
    const p = t.place;
    if (p.replaces !== undefined && first.has(p.fullUrl)) aliases.set(p.replaces, p.fullUrl);
  }
  if (aliases.size > 0 && !later) for (const t of kept) rewrite(t.value, aliases);
  return aliases;
}

/** Rewrites every `reference` that names a moved fullUrl. */
function rewrite(node: TargetRecord, aliases: ReadonlyMap<string, string>): void {
  for (const k in node) {
    const v = node[k];
    if (k === "reference" && typeof v === "string") {
      const to = aliases.get(v);
      if (to !== undefined) node[k] = to;
    } else if (Array.isArray(v)) {
      for (const x of v) if (x !== null && typeof x === "object") rewrite(x as TargetRecord, aliases);
    } else if (v !== null && typeof v === "object") rewrite(v as TargetRecord, aliases);
  }
}
