// Sync: push (bulk upsert) and pull of schema mappings, concept mappings and cross-mapping runs.
import type { Principal } from "../auth.js";
import { type DataPool, streamed } from "../data-pool.js";
import { conceptFields, type PushRequest, pushItems, pushRuns, schemaFields } from "../handlers/sync.js";
import { type AnyRoute, defineRoute } from "../route.js";
import {
  conceptItemOut,
  conceptPushItem,
  pullQuery,
  pullResponse,
  pushBody,
  pushQuery,
  pushSummary,
  runOut,
  runPushItem,
  schemaItemOut,
  schemaPushItem,
} from "../schemas.js";
import { actorOf } from "./review.js";

const base = "/api/v1/sync/projects/:project_id";
const tag = "sync";
const PUSH_ERRORS = [401, 403, 404, 413, 422];
const PULL_ERRORS = [401, 403, 404, 422];

const pushRequest = <F>(
  projectId: string,
  items: { id?: string | undefined; fields: F }[],
  force: "true" | "false",
  principal: Principal | null,
): PushRequest<F> => ({ projectId, items, force: force === "true", ...actorOf(principal) });

const JSON_TYPE = "application/json; charset=utf-8";

/** Pulls run in a data worker (`data`): without a limit they read every item of the project. */
export const syncRoutes = (data: DataPool): AnyRoute[] => [
  defineRoute({
    method: "post",
    path: `${base}/schema-mappings/bulk`,
    summary: "Push schema mapping items (upsert by id, else by source_table + source_column)",
    tag,
    access: "write",
    query: pushQuery,
    body: pushBody(schemaPushItem),
    response: pushSummary,
    errors: PUSH_ERRORS,
    handle: async ({ params, stores, principal, query, body }) => {
      const items = body.items.map((i) => ({ id: i.id, fields: schemaFields(i) }));
      const req = pushRequest(params.project_id!, items, query.force, principal);
      const summary = await pushItems(stores, stores.schemaItems, "schema", req);
      // Reviewers usually come after a push: have the project's list ready for them.
      stores.mirrors.schema.warm(params.project_id!);
      return { body: summary };
    },
  }),
  defineRoute({
    method: "get",
    path: `${base}/schema-mappings`,
    summary: "Pull schema mapping items (id order)",
    tag,
    access: "read",
    query: pullQuery,
    response: pullResponse(schemaItemOut),
    errors: PULL_ERRORS,
    handle: async ({ params, query }) =>
      streamed(
        await data.run({
          kind: "pull",
          what: "schema",
          projectId: params.project_id!,
          limit: query.limit,
          offset: query.offset,
        }),
        JSON_TYPE,
      ),
  }),
  defineRoute({
    method: "post",
    path: `${base}/concept-mappings/bulk`,
    summary: "Push concept mapping items (upsert by id, else by source_column + source_code)",
    tag,
    access: "write",
    query: pushQuery,
    body: pushBody(conceptPushItem),
    response: pushSummary,
    errors: PUSH_ERRORS,
    handle: async ({ params, stores, principal, query, body }) => {
      const items = body.items.map((i) => ({ id: i.id, fields: conceptFields(i) }));
      const req = pushRequest(params.project_id!, items, query.force, principal);
      const summary = await pushItems(stores, stores.conceptItems, "concept", req);
      // Reviewers usually come after a push: have the project's list ready for them.
      stores.mirrors.concept.warm(params.project_id!);
      return { body: summary };
    },
  }),
  defineRoute({
    method: "get",
    path: `${base}/concept-mappings`,
    summary: "Pull concept mapping items (id order)",
    tag,
    access: "read",
    query: pullQuery,
    response: pullResponse(conceptItemOut),
    errors: PULL_ERRORS,
    handle: async ({ params, query }) =>
      streamed(
        await data.run({
          kind: "pull",
          what: "concept",
          projectId: params.project_id!,
          limit: query.limit,
          offset: query.offset,
        }),
        JSON_TYPE,
      ),
  }),
  defineRoute({
    method: "post",
    path: `${base}/cross-mappings/bulk`,
    summary: "Push cross-mapping runs (upsert by id)",
    tag,
    access: "write",
    query: pushQuery,
    body: pushBody(runPushItem),
    response: pushSummary,
    errors: PUSH_ERRORS,
    handle: async ({ params, stores, body }) => ({
      body: await pushRuns(stores, params.project_id!, body.items),
    }),
  }),
  defineRoute({
    method: "get",
    path: `${base}/cross-mappings`,
    summary: "Pull cross-mapping runs, newest first",
    tag,
    access: "read",
    query: pullQuery,
    response: pullResponse(runOut),
    errors: PULL_ERRORS,
    handle: async ({ params, query }) =>
      streamed(
        await data.run({
          kind: "pull",
          what: "runs",
          projectId: params.project_id!,
          limit: query.limit,
          offset: query.offset,
        }),
        JSON_TYPE,
      ),
  }),
];
