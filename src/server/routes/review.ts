// The spec's six review endpoints, plus what reviewers need around them: comment, revert (undo), bulk
// decisions, and the read routes (items.ts). One factory for both kinds of item.
import type { z } from "zod";
import type { ConceptOverride, ReviewAction, SchemaOverride } from "../../review/rules.js";
import type { ItemKind, ItemOf } from "../../store/types.js";
import type { Principal } from "../auth.js";
import { applyBulk, type BulkDecision, planDecisions, planFilter } from "../handlers/bulk.js";
import { type Actor, choose, commentOn, decideInTransaction, revertTo } from "../handlers/review.js";
import type { IfMatch } from "../if-match.js";
import { presentConceptItem, presentSchemaItem } from "../present.js";
import { type AnyRoute, defineRoute } from "../route.js";
import {
  chooseBody,
  conceptItemOut,
  conceptOverrideBody,
  schemaItemOut,
  schemaOverrideBody,
} from "../schemas.js";
import {
  bulkResponse,
  commentBody,
  conceptBulkBody,
  MAX_BULK_ITEMS,
  revertBody,
  schemaBulkBody,
} from "../schemas-review.js";
import { readRoutes } from "./items.js";

export const itemBase = (kind: ItemKind) =>
  `/v1/projects/:project_id/${kind === "schema" ? "schema-mapping" : "concept-mapping"}`;
const REVIEW_ERRORS = [401, 403, 404, 409, 412, 413, 422];

/** What differs between the schema and the concept mapping endpoints; everything else is shared. */
interface KindSpec<K extends ItemKind> {
  kind: K;
  tag: string;
  summaries: { approve: string; reject: string; override: string; choose: string };
  /** How choosing reads for this kind: what candidate 1 and the others make of the item, and what else. */
  chooses: { first: string; other: string; effect: string };
  overrideBody: z.ZodType;
  bulkBody: z.ZodType;
  out: z.ZodType;
  present: (item: ItemOf<K>) => unknown;
}

export const actorOf = (principal: Principal | null): Actor => ({
  keyId: principal?.keyId ?? null,
  reviewer: principal?.name ?? null,
});

/** The item a single-item route names, the If-Match it was sent with, and who sends it. */
const itemRequest = (params: Record<string, string>, ifMatch: IfMatch, principal: Principal | null) => ({
  projectId: params.project_id!,
  itemId: params.mapping_id!,
  ifMatch,
  ...actorOf(principal),
});

/** approve, reject and override of one kind of item, then comment, revert, bulk and the read routes. */
function kindRoutes<K extends ItemKind>(spec: KindSpec<K>): AnyRoute[] {
  const { kind, tag, out, present } = spec;
  const item = `${itemBase(kind)}/:mapping_id`;
  const decide = (action: ReviewAction) =>
    defineRoute({
      method: "post",
      path: `${item}/${action}`,
      summary: spec.summaries[action],
      tag,
      access: "write",
      ...(action === "override" ? { body: spec.overrideBody } : {}),
      response: out,
      errors: REVIEW_ERRORS.filter(
        (s) => (action === "approve" || s !== 409) && (action === "override" || (s !== 413 && s !== 422)),
      ),
      ifMatch: true,
      handle: async ({ params, stores, principal, ifMatch, body }) => {
        const after = await stores.write(() =>
          decideInTransaction(stores, kind, {
            ...itemRequest(params, ifMatch, principal),
            action,
            body: body as K extends "schema" ? SchemaOverride : ConceptOverride,
          }),
        );
        return { body: present(after), version: after.version };
      },
    });
  return [
    decide("approve"),
    decide("reject"),
    decide("override"),
    defineRoute({
      method: "post",
      path: `${item}/choose`,
      summary: spec.summaries.choose,
      description: `\`candidate\` is 1-based: 1 is the suggestion (${spec.chooses.first}, as approve), any other is a reviewer's choice (${spec.chooses.other}). ${spec.chooses.effect}; audited as \`choose\` with \`candidate\`. 409 when the item has no candidates, 422 when it has fewer than \`candidate\`.`,
      tag,
      access: "write",
      body: chooseBody,
      response: out,
      errors: REVIEW_ERRORS,
      ifMatch: true,
      handle: async ({ params, stores, principal, ifMatch, body }) => {
        const after = await choose(stores, kind, {
          ...itemRequest(params, ifMatch, principal),
          candidate: body.candidate,
          comment: body.comment,
        });
        return { body: present(after), version: after.version };
      },
    }),
    defineRoute({
      method: "post",
      path: `${item}/comment`,
      summary: "Set or clear the item's comment (audited; not a review decision)",
      tag,
      access: "write",
      body: commentBody,
      response: out,
      errors: [401, 403, 404, 412, 413, 422],
      ifMatch: true,
      handle: async ({ params, stores, principal, ifMatch, body }) => {
        const after = await commentOn(stores, kind, {
          ...itemRequest(params, ifMatch, principal),
          comment: body.comment,
        });
        return { body: present(after), version: after.version };
      },
    }),
    defineRoute({
      method: "post",
      path: `${item}/revert`,
      summary: "Undo: restore the decision the item had at an earlier version, as a new version",
      description:
        "Restores status (schema) or method (concept), the target fields and reviewed_at of `to_version`; audited as `revert` with `reverted_to`. 422 when the item never had that version.",
      tag,
      access: "write",
      body: revertBody,
      response: out,
      errors: [401, 403, 404, 412, 413, 422],
      ifMatch: true,
      handle: async ({ params, stores, principal, ifMatch, body }) => {
        const after = await revertTo(stores, kind, {
          ...itemRequest(params, ifMatch, principal),
          toVersion: body.to_version,
        });
        return { body: present(after), version: after.version };
      },
    }),
    defineRoute({
      method: "post",
      path: `${itemBase(kind)}/bulk`,
      summary: "Apply many decisions, or one decision to every item a filter matches, in one transaction",
      description: `Body: \`{"decisions": [{"id", "action", ...override fields, "if_match"?}]}\` or \`{"filter": {...list filters}, "action": "approve"|"reject"}\`. At most ${MAX_BULK_ITEMS} decisions, or items matched. Each result carries the status and body the single-item endpoint would answer.`,
      tag,
      access: "write",
      body: spec.bulkBody,
      response: bulkResponse(out),
      errors: [401, 403, 404, 413, 422],
      handle: async ({ params, stores, principal, body }) => {
        const projectId = params.project_id!;
        const b = body as {
          decisions?: BulkDecision[];
          filter?: Record<string, unknown>;
          action?: "approve" | "reject";
        };
        const plan = b.decisions
          ? planDecisions(kind, b.decisions)
          : await planFilter(stores, kind, projectId, filterOf(kind, b.filter!), b.action!);
        return { body: await applyBulk(stores, kind, projectId, plan, actorOf(principal), present) };
      },
    }),
    ...readRoutes(kind, tag, out, present),
  ];
}

/** The bulk body's filter in the listing's terms. */
function filterOf(kind: ItemKind, f: Record<string, unknown>) {
  return {
    states: (kind === "schema" ? f.status : f.method) as string[] | undefined,
    needs_review: f.needs_review as boolean | undefined,
    min_confidence: f.min_confidence as number | undefined,
    max_confidence: f.max_confidence as number | undefined,
    min_top_score: f.min_top_score as number | undefined,
    q: f.q as string | undefined,
  };
}

export const reviewRoutes = (): AnyRoute[] => [
  ...kindRoutes({
    kind: "schema",
    tag: "schema mapping review",
    summaries: {
      approve: "Approve the suggested target",
      reject: "Reject: the column cannot be mapped",
      override: "Override with a manually given target table and column",
      choose: "Choose candidate k of the item's ranked candidates as its target table and column",
    },
    chooses: {
      first: "status approved",
      other: "status overridden",
      effect: "`target_table` and `target_column` become the candidate's",
    },
    overrideBody: schemaOverrideBody,
    bulkBody: schemaBulkBody,
    out: schemaItemOut,
    present: presentSchemaItem,
  }),
  ...kindRoutes({
    kind: "concept",
    tag: "concept mapping review",
    summaries: {
      approve: "Approve the suggested concept (method auto)",
      reject: "Reject: the code is unmapped",
      override: "Override with a manually chosen concept (method override)",
      choose: "Choose candidate k of the item's ranked candidates as its target concept",
    },
    chooses: {
      first: "method auto",
      other: "method override",
      effect:
        "The target fields (concept id, name, vocabulary) become the candidate's; equivalence and revalidation are cleared",
    },
    overrideBody: conceptOverrideBody,
    bulkBody: conceptBulkBody,
    out: conceptItemOut,
    present: presentConceptItem,
  }),
];
