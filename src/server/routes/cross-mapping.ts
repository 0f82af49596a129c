// Cross-mapping: stateless and project-tracked map calls, run history, and the list of built-in crossmaps.
import type { CrossmapProvider } from "../../crossmap/provider.js";
import { mapAndRecord, mapStateless } from "../handlers/cross-mapping.js";
import type { DecisionCache } from "../handlers/decisions.js";
import type { MapPool } from "../map-pool.js";
import { presentRun } from "../present.js";
import { type AnyRoute, defineRoute } from "../route.js";
import {
  crossMapBody,
  crossMapResponse,
  crossmapListResponse,
  historyQuery,
  projectCrossMapBody,
  runHistoryResponse,
} from "../schemas.js";

export const DEFAULT_MAX_RECORDS = 10_000;

const base = "/api/v1/cross-mapping";
const tag = "cross-mapping";

export interface CrossMapDeps {
  /** The built-in crossmaps, for the list (nothing is compiled on the event loop). */
  crossmaps: CrossmapProvider;
  pool: MapPool;
  maxRecords: number;
  /** Each project's reviewed decisions, for project-scoped calls. */
  decisions: DecisionCache;
  /** The release of the server's vocabulary (`--vocab`), recorded with each run; null without one. */
  vocabularyRelease: string | null;
}

export const crossMappingRoutes = (deps: CrossMapDeps): AnyRoute[] => [
  defineRoute({
    method: "get",
    path: base,
    summary: "List the available crossmap definitions",
    tag,
    access: "any",
    response: crossmapListResponse,
    errors: [401],
    handle: () => {
      const crossmaps = deps.crossmaps.list().map((e) => ({
        source: e.source,
        target: e.target,
        file: e.file,
        entity_map: e.entity_map,
        field_count: e.field_count,
      }));
      return { body: { crossmaps, total: crossmaps.length } };
    },
  }),
  defineRoute({
    method: "post",
    path: `${base}/map`,
    summary: "Map records from one standard to another; nothing is recorded",
    description: `Results are in input order, one per record; values that cannot be mapped are reported in \`issues\`. At most ${deps.maxRecords} records per call.`,
    tag,
    access: "any",
    body: crossMapBody,
    response: crossMapResponse,
    records: true,
    errors: [401, 404, 413, 422, 503],
    handle: async ({ rawBody, client }) => ({
      body: undefined,
      json: await mapStateless(deps.pool, rawBody, client),
    }),
  }),
  defineRoute({
    method: "post",
    path: `${base}/projects/:project_id/map`,
    summary: "Map records with the project's reviewed concept decisions, and record the run in its history",
    description:
      "The project's concept items are applied before the vocabulary (approved/overridden: their concept; rejected: issue rejected_by_review; awaiting review: per `unreviewed`). The run is committed before the response is sent; the response carries its `run_id` and the `decision_snapshot` applied.",
    tag,
    access: "write",
    body: projectCrossMapBody,
    response: crossMapResponse,
    records: true,
    errors: [401, 403, 404, 413, 422, 500, 503],
    handle: async ({ rawBody, params, stores, client }) => ({
      body: undefined,
      json: await mapAndRecord(stores, params.project_id!, rawBody, deps, client),
    }),
  }),
  defineRoute({
    method: "get",
    path: `${base}/projects/:project_id`,
    summary: "The project's cross-mapping runs, newest first",
    tag,
    access: "read",
    query: historyQuery,
    response: runHistoryResponse,
    errors: [401, 403, 404, 422],
    handle: ({ params, stores, query }) => {
      const { runs, total } = stores.runs.list(params.project_id!, query);
      return { body: { runs: runs.map(presentRun), total } };
    },
  }),
];
