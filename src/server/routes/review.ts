// The spec's six review endpoints, plus what reviewers need around them: read one item (for its ETag),
// list with filters, and an item's history.
import type { z } from "zod";
import type { Stores } from "../../store/env.js";
import type { ItemStore } from "../../store/items.js";
import type { ConceptItem, ItemKind, SchemaItem } from "../../store/types.js";
import { getItem, itemHistory, type ListFilter, listItems } from "../handlers/items.js";
import { type ReviewRequest, reviewConcept, reviewSchema } from "../handlers/review.js";
import { presentConceptItem, presentEvent, presentSchemaItem } from "../present.js";
import { type AnyRoute, defineRoute } from "../route.js";
import {
  conceptItemOut,
  conceptListQuery,
  conceptOverrideBody,
  historyResponse,
  itemList,
  schemaItemOut,
  schemaListQuery,
  schemaOverrideBody,
} from "../schemas.js";

const base = (segment: string) => `/v1/projects/:project_id/${segment}`;
const REVIEW_ERRORS = [401, 403, 404, 409, 412, 413, 422];

/** What differs between the schema and the concept mapping endpoints; everything else is shared. */
interface KindSpec<T extends SchemaItem | ConceptItem, BS extends z.ZodType> {
  kind: ItemKind;
  tag: string;
  summaries: { approve: string; reject: string; override: string };
  overrideBody: BS;
  out: z.ZodType;
  listQuery: z.ZodType<ListQuery>;
  storeFor: (stores: Stores) => ItemStore<T>;
  present: (item: T) => unknown;
  review: (stores: Stores, req: ReviewRequest<z.output<BS>>) => Promise<T>;
}

/** approve, reject and override of one kind of item, then its read routes. */
function kindRoutes<T extends SchemaItem | ConceptItem, BS extends z.ZodType>(
  spec: KindSpec<T, BS>,
): AnyRoute[] {
  const item = `${base(segmentOf(spec.kind))}/:mapping_id`;
  const decide = (action: "approve" | "reject") =>
    defineRoute({
      method: "post",
      path: `${item}/${action}`,
      summary: spec.summaries[action],
      tag: spec.tag,
      access: "write",
      response: spec.out,
      errors: REVIEW_ERRORS.filter((s) => s !== 413 && s !== 422 && (action === "approve" || s !== 409)),
      ifMatch: true,
      handle: async ({ params, stores, principal, ifMatch }) => {
        const after = await spec.review(stores, {
          projectId: params.project_id!,
          itemId: params.mapping_id!,
          action,
          keyId: principal?.keyId ?? null,
          ifMatch,
        });
        return { body: spec.present(after), version: after.version };
      },
    });
  return [
    decide("approve"),
    decide("reject"),
    defineRoute({
      method: "post",
      path: `${item}/override`,
      summary: spec.summaries.override,
      tag: spec.tag,
      access: "write",
      body: spec.overrideBody,
      response: spec.out,
      errors: REVIEW_ERRORS.filter((s) => s !== 409),
      ifMatch: true,
      handle: async ({ params, stores, principal, ifMatch, body }) => {
        const after = await spec.review(stores, {
          projectId: params.project_id!,
          itemId: params.mapping_id!,
          action: "override",
          body,
          keyId: principal?.keyId ?? null,
          ifMatch,
        });
        return { body: spec.present(after), version: after.version };
      },
    }),
    ...readRoutes(spec.kind, spec.tag, spec.out, spec.listQuery, spec.storeFor, spec.present),
  ];
}

const segmentOf = (kind: ItemKind) => (kind === "schema" ? "schema-mapping" : "concept-mapping");

type ListQuery = ListFilter & { limit: number; offset: number };

function readRoutes<T extends SchemaItem | ConceptItem>(
  kind: ItemKind,
  tag: string,
  out: z.ZodType,
  query: z.ZodType<ListQuery>,
  storeFor: (stores: Stores) => ItemStore<T>,
  present: (item: T) => unknown,
): AnyRoute[] {
  const list = base(segmentOf(kind));
  return [
    defineRoute({
      method: "get",
      path: list,
      summary: `List ${kind} mapping items, filtered and paged (id order)`,
      tag,
      access: "read",
      query,
      response: itemList(out),
      errors: [401, 403, 404, 422],
      handle: ({ params, stores, query: q }) => {
        const page = { limit: q.limit, offset: q.offset };
        const { items, total } = listItems(storeFor(stores), params.project_id!, q, page);
        return { body: { items: items.map(present), total, limit: q.limit, offset: q.offset } };
      },
    }),
    defineRoute({
      method: "get",
      path: `${list}/:mapping_id`,
      summary: `Get one ${kind} mapping item (its ETag is the version to send in If-Match)`,
      tag,
      access: "read",
      response: out,
      errors: [401, 403, 404],
      handle: ({ params, stores }) => {
        const item = getItem(storeFor(stores), kind, params.project_id!, params.mapping_id!);
        return { body: present(item), version: item.version };
      },
    }),
    defineRoute({
      method: "get",
      path: `${list}/:mapping_id/history`,
      summary: `Audit events of one ${kind} mapping item, oldest first`,
      tag,
      access: "read",
      response: historyResponse(out),
      errors: [401, 403, 404],
      handle: ({ params, stores }) => {
        const events = itemHistory(stores, kind, params.project_id!, params.mapping_id!);
        return { body: { events: events.map((e) => presentEvent(e, present as (x: never) => unknown)) } };
      },
    }),
  ];
}

export const reviewRoutes = (): AnyRoute[] => [
  ...kindRoutes({
    kind: "schema",
    tag: "schema mapping review",
    summaries: {
      approve: "Approve the suggested target",
      reject: "Reject: the column cannot be mapped",
      override: "Override with a manually given target table and column",
    },
    overrideBody: schemaOverrideBody,
    out: schemaItemOut,
    listQuery: schemaListQuery,
    storeFor: (s) => s.schemaItems,
    present: presentSchemaItem,
    review: reviewSchema,
  }),
  ...kindRoutes({
    kind: "concept",
    tag: "concept mapping review",
    summaries: {
      approve: "Approve the suggested concept (method auto)",
      reject: "Reject: the code is unmapped",
      override: "Override with a manually chosen concept (method override)",
    },
    overrideBody: conceptOverrideBody,
    out: conceptItemOut,
    listQuery: conceptListQuery,
    storeFor: (s) => s.conceptItems,
    present: presentConceptItem,
    review: reviewConcept,
  }),
];
