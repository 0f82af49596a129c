// Bulk decisions: many approve/reject/override decisions, or one decision for every item a filter
// matches, in ONE transaction, with a result per item in the single-item endpoint's own status and body.
import type { z } from "zod";
import { AppError } from "../../errors.js";
import { type ItemFilter, matcher } from "../../review/listing.js";
import type { ConceptOverride, ReviewAction, SchemaOverride } from "../../review/rules.js";
import type { Stores } from "../../store/env.js";
import type { ItemKind, ItemOf } from "../../store/types.js";
import { errorBody } from "../errors.js";
import { type IfMatch, parseIfMatch } from "../if-match.js";
import { conceptOverrideBody, schemaOverrideBody } from "../schemas.js";
import { MAX_BULK_ITEMS } from "../schemas-review.js";
import { toProblems } from "../validate.js";
import { mirrorOf } from "./items.js";
import { type Actor, decideInTransaction } from "./review.js";

export interface BulkDecision {
  id: string;
  action: ReviewAction;
  if_match?: string | number | undefined;
  [field: string]: unknown;
}

export interface BulkResult<T> {
  id: string;
  status: 200 | 404 | 409 | 412 | 422;
  item?: T;
  detail?: unknown;
}

export interface BulkOutcome<T> {
  applied: number;
  failed: number;
  results: BulkResult<T>[];
}

interface Planned {
  id: string;
  action: ReviewAction;
  body?: unknown;
  ifMatch?: string | number | undefined;
  /** Filter calls: the item must still match when the transaction reads it. */
  stillMatches?: (item: ItemOf<ItemKind>) => boolean;
  /** Set when the decision was refused before the transaction (an invalid override body). */
  refused?: BulkResult<never>;
}

/** Decisions as the body lists them; override fields are validated here, one decision at a time. */
export function planDecisions(kind: ItemKind, decisions: BulkDecision[]): Planned[] {
  const overrideBody: z.ZodType = kind === "schema" ? schemaOverrideBody : conceptOverrideBody;
  return decisions.map((d, index) => {
    if (d.action !== "override") return { id: d.id, action: d.action, ifMatch: d.if_match };
    const { id: _id, action: _action, if_match: _ifMatch, ...fields } = d;
    const parsed = overrideBody.safeParse(fields, { reportInput: true });
    if (parsed.success) return { id: d.id, action: d.action, body: parsed.data, ifMatch: d.if_match };
    const problems = parsed.error.issues.flatMap((i) => toProblems(i, "body"));
    const located = problems.map((p) => ({ ...p, path: ["body", "decisions", index, ...p.path.slice(1)] }));
    const detail = errorBody(new AppError(422, "validation_error", "Invalid request", located));
    return {
      id: d.id,
      action: d.action,
      refused: { id: d.id, status: 422, detail: (detail as { detail: unknown }).detail },
    };
  });
}

/**
 * One decision for each item the filter matches now (read from the project's mirror). More than
 * MAX_BULK_ITEMS matches is a 422: the caller narrows the filter rather than changing more than it saw.
 */
export async function planFilter(
  stores: Stores,
  kind: ItemKind,
  projectId: string,
  filter: ItemFilter,
  action: "approve" | "reject",
): Promise<Planned[]> {
  const wanted = matcher(kind, filter);
  const matched = (await mirrorOf(stores, kind, projectId)).items().filter(wanted);
  if (matched.length > MAX_BULK_ITEMS) {
    throw new AppError(422, "validation_error", "Invalid request", [
      {
        path: ["body", "filter"],
        message: `ensure this filter matches at most ${MAX_BULK_ITEMS} items; it matches ${matched.length}`,
        code: "value_error.list.max_items",
      },
    ]);
  }
  return matched.map((item) => ({ id: item.id, action, stillMatches: wanted }));
}

/** Applies the plan in one write transaction; a refused decision does not stop the others. */
export function applyBulk<K extends ItemKind>(
  stores: Stores,
  kind: K,
  projectId: string,
  plan: Planned[],
  actor: Actor,
  present: (item: ItemOf<K>) => unknown,
): Promise<BulkOutcome<unknown>> {
  return stores.write(() => {
    const results: BulkResult<unknown>[] = [];
    let applied = 0;
    for (const p of plan) {
      if (p.refused) {
        results.push(p.refused);
        continue;
      }
      try {
        if (p.stillMatches) {
          const current = (kind === "schema" ? stores.schemaItems : stores.conceptItems).get(projectId, p.id);
          if (current && !p.stillMatches(current)) {
            throw new AppError(
              412,
              "precondition_failed",
              `${kind === "schema" ? "Schema" : "Concept"} mapping ${p.id} in project ${projectId} changed and no longer matches the filter; nothing was done to it`,
            );
          }
        }
        const item = decideInTransaction(stores, kind, {
          projectId,
          itemId: p.id,
          action: p.action,
          body: p.body as K extends "schema" ? SchemaOverride : ConceptOverride,
          ifMatch: decisionIfMatch(p.ifMatch),
          ...actor,
        });
        applied++;
        results.push({ id: p.id, status: 200, item: present(item) });
      } catch (err) {
        if (!(err instanceof AppError) || ![404, 409, 412, 422].includes(err.status)) throw err;
        const body = errorBody(err) as { detail: unknown };
        results.push({ id: p.id, status: err.status as BulkResult<unknown>["status"], detail: body.detail });
      }
    }
    return { applied, failed: results.length - applied, results };
  });
}

/**
 * A decision's `if_match`, parsed like the header; one that is not a version is that decision's 422. A bare
 * version (3, "3") is read as its entity tag, "3", so a stale one is named as the single-item 412 names it.
 */
function decisionIfMatch(raw: string | number | undefined): IfMatch {
  if (raw === undefined) return undefined;
  const text = String(raw).trim();
  const parsed = parseIfMatch(/^\d+$/.test(text) ? `"${text}"` : text);
  if (parsed === undefined || !("problem" in parsed)) return parsed;
  throw new AppError(422, "validation_error", "Invalid request", [
    { ...parsed.problem, path: ["body", "if_match"] },
  ]);
}
