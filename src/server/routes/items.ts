// Reading review items: the filtered, sorted list, the progress stats, one item (for its ETag) and its
// history. Served from the project's in-memory mirror (store/mirror.ts), except one item and its history.
import type { z } from "zod";
import type { ItemKind, ItemOf } from "../../store/types.js";
import { getItem, itemHistory, listItems, statsOf } from "../handlers/items.js";
import { storeOf } from "../handlers/review.js";
import { presentEvent } from "../present.js";
import { type AnyRoute, defineRoute } from "../route.js";
import { historyResponse, itemList } from "../schemas.js";
import { conceptListQuery, conceptStats, schemaListQuery, schemaStats } from "../schemas-review.js";

interface ListQuery {
  status?: string[];
  method?: string[];
  needs_review?: boolean;
  min_confidence?: number;
  max_confidence?: number;
  min_top_score?: number;
  q?: string;
  sort: string;
  limit: number;
  offset: number;
}

export function readRoutes<K extends ItemKind>(
  kind: K,
  tag: string,
  out: z.ZodType,
  present: (item: ItemOf<K>) => unknown,
): AnyRoute[] {
  const list = `/v1/projects/:project_id/${kind === "schema" ? "schema-mapping" : "concept-mapping"}`;
  const field = kind === "schema" ? "status" : "method";
  return [
    defineRoute({
      method: "get",
      path: list,
      summary: `List ${kind} mapping items: filtered, searched, sorted, paged`,
      description: `\`${field}\` takes one value or a comma list; \`needs_review=true\` keeps the items awaiting review; \`q\` searches the source fields and target names (case and accents ignored); unknown parameters are a 422.`,
      tag,
      access: "read",
      query: kind === "schema" ? schemaListQuery : conceptListQuery,
      response: itemList(out),
      errors: [401, 403, 404, 422],
      handle: async ({ params, stores, query }) => {
        const q = query as ListQuery;
        const { items, total } = await listItems(stores, kind, params.project_id!, {
          states: kind === "schema" ? q.status : q.method,
          needs_review: q.needs_review,
          min_confidence: q.min_confidence,
          max_confidence: q.max_confidence,
          min_top_score: q.min_top_score,
          q: q.q,
          sort: q.sort as Parameters<typeof listItems>[3]["sort"],
          limit: q.limit,
          offset: q.offset,
        });
        return { body: { items: items.map(present), total, limit: q.limit, offset: q.offset } };
      },
    }),
    // Before `:mapping_id`, which would otherwise take "stats" for an item id.
    defineRoute({
      method: "get",
      path: `${list}/stats`,
      summary: `Review progress of the project's ${kind} mapping items`,
      description:
        "Counts per status (schema) or method (concept), the share reviewed, and for concept items with source_frequency the share of source occurrences covered by items that map their code.",
      tag,
      access: "read",
      response: kind === "schema" ? schemaStats : conceptStats,
      errors: [401, 403, 404],
      handle: async ({ params, stores }) => ({ body: await statsOf(stores, kind, params.project_id!) }),
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
        const item = getItem(storeOf(stores, kind), kind, params.project_id!, params.mapping_id!);
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
