// The spec's six review endpoints, plus what reviewers need around them: read one item (for its ETag),
// list with filters, and an item's history.
import type { z } from "zod";
import type { Stores } from "../../store/env.js";
import type { ItemStore } from "../../store/items.js";
import type { ConceptItem, ItemKind, SchemaItem } from "../../store/types.js";
import { getItem, itemHistory, type ListFilter, listItems } from "../handlers/items.js";
import { reviewConcept, reviewSchema } from "../handlers/review.js";
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

function schemaRoutes(): AnyRoute[] {
  const tag = "schema mapping review";
  const item = `${base("schema-mapping")}/:mapping_id`;
  const decide = (action: "approve" | "reject") =>
    defineRoute({
      method: "post",
      path: `${item}/${action}`,
      summary: action === "approve" ? "Approve the suggested target" : "Reject: the column cannot be mapped",
      tag,
      access: "write",
      response: schemaItemOut,
      errors: REVIEW_ERRORS.filter((s) => s !== 413 && s !== 422 && (action === "approve" || s !== 409)),
      ifMatch: true,
      handle: async ({ params, stores, principal, ifMatch }) => {
        const after = await reviewSchema(stores, {
          projectId: params.project_id!,
          itemId: params.mapping_id!,
          action,
          keyId: principal?.keyId ?? null,
          ifMatch,
        });
        return { body: presentSchemaItem(after), version: after.version };
      },
    });
  return [
    decide("approve"),
    decide("reject"),
    defineRoute({
      method: "post",
      path: `${item}/override`,
      summary: "Override with a manually given target table and column",
      tag,
      access: "write",
      body: schemaOverrideBody,
      response: schemaItemOut,
      errors: REVIEW_ERRORS.filter((s) => s !== 409),
      ifMatch: true,
      handle: async ({ params, stores, principal, ifMatch, body }) => {
        const after = await reviewSchema(stores, {
          projectId: params.project_id!,
          itemId: params.mapping_id!,
          action: "override",
          body,
          keyId: principal?.keyId ?? null,
          ifMatch,
        });
        return { body: presentSchemaItem(after), version: after.version };
      },
    }),
    ...readRoutes("schema", tag, schemaItemOut, schemaListQuery, (s) => s.schemaItems, presentSchemaItem),
  ];
}

function conceptRoutes(): AnyRoute[] {
  const tag = "concept mapping review";
  const item = `${base("concept-mapping")}/:mapping_id`;
  const decide = (action: "approve" | "reject") =>
    defineRoute({
      method: "post",
      path: `${item}/${action}`,
      summary:
        action === "approve" ? "Approve the suggested concept (method auto)" : "Reject: the code is unmapped",
      tag,
      access: "write",
      response: conceptItemOut,
      errors: REVIEW_ERRORS.filter((s) => s !== 413 && s !== 422 && (action === "approve" || s !== 409)),
      ifMatch: true,
      handle: async ({ params, stores, principal, ifMatch }) => {
        const after = await reviewConcept(stores, {
          projectId: params.project_id!,
          itemId: params.mapping_id!,
          action,
          keyId: principal?.keyId ?? null,
          ifMatch,
        });
        return { body: presentConceptItem(after), version: after.version };
      },
    });
  return [
    decide("approve"),
    decide("reject"),
    defineRoute({
      method: "post",
      path: `${item}/override`,
      summary: "Override with a manually chosen concept (method override)",
      tag,
      access: "write",
      body: conceptOverrideBody,
      response: conceptItemOut,
      errors: REVIEW_ERRORS.filter((s) => s !== 409),
      ifMatch: true,
      handle: async ({ params, stores, principal, ifMatch, body }) => {
        const after = await reviewConcept(stores, {
          projectId: params.project_id!,
          itemId: params.mapping_id!,
          action: "override",
          body,
          keyId: principal?.keyId ?? null,
          ifMatch,
        });
        return { body: presentConceptItem(after), version: after.version };
      },
    }),
    ...readRoutes(
      "concept",
      tag,
      conceptItemOut,
      conceptListQuery,
      (s) => s.conceptItems,
      presentConceptItem,
    ),
  ];
}

type ListQuery = ListFilter & { limit: number; offset: number };

function readRoutes<T extends SchemaItem | ConceptItem>(
  kind: ItemKind,
  tag: string,
  out: z.ZodType,
  query: z.ZodType<ListQuery>,
  storeFor: (stores: Stores) => ItemStore<T>,
  present: (item: T) => unknown,
): AnyRoute[] {
  const list = base(kind === "schema" ? "schema-mapping" : "concept-mapping");
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

export const reviewRoutes = (): AnyRoute[] => [...schemaRoutes(), ...conceptRoutes()];
