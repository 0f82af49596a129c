// The Koa app factory: takes its stores (so tests and the CLI decide where data lives) and mounts
// every route from the route tables behind logging, error mapping and auth.
import Router from "@koa/router";
import Koa, { type Context } from "koa";
import type { z } from "zod";
import { CrossmapProvider } from "../crossmap/provider.js";
import type { Problem } from "../errors.js";
import { AppError } from "../errors.js";
import { stringifyJson } from "../pipeline/json.js";
import type { Stores } from "../store/env.js";
import type { VocabularyBridge } from "../vocab/bridge.js";
import { authenticate, authorize, type Principal } from "./auth.js";
import { DEFAULT_BODY_LIMIT, makeBodyReader, makeTextReader } from "./body.js";
import { corsMiddleware } from "./cors.js";
import { errorMiddleware } from "./errors.js";
import { DecisionCache } from "./handlers/decisions.js";
import { projectNotFound } from "./handlers/items.js";
import { etagOf, parseIfMatch } from "./if-match.js";
import { type Logger, requestLogger, silentLogger } from "./logging.js";
import { buildOpenApi } from "./openapi.js";
import type { AnyRoute } from "./route.js";
import { crossMappingRoutes, DEFAULT_MAX_RECORDS } from "./routes/cross-mapping.js";
import { projectDataRoutes } from "./routes/project-data.js";
import { projectRoutes } from "./routes/projects.js";
import { reviewRoutes } from "./routes/review.js";
import { syncRoutes } from "./routes/sync.js";
import { vocabularyRoutes } from "./routes/vocabulary.js";
import { toProblems } from "./validate.js";

export interface AppOptions {
  stores: Stores;
  log?: Logger;
  /** Largest JSON body accepted; larger ones get 413. Default 5 MiB. */
  bodyLimitBytes?: number;
  /** Compiled crossmaps for the cross-mapping endpoints (carrying the vocabulary bridge); default built-ins only. */
  crossmaps?: CrossmapProvider;
  /** Most records one cross-map call may carry; more get 413. Default 10,000. */
  maxRecords?: number;
  /** Largest body of a record-carrying call (cross-mapping); larger ones get 413. Default 64 MiB. */
  recordBodyLimitBytes?: number;
  /** More routes (e.g. cross-mapping), mounted and documented like the built-in ones. */
  extraRoutes?: AnyRoute[];
  /**
   * The vocabulary index (`serve --vocab`), for the routes that read it directly: revalidation, exports,
   * concept search. The crossmaps get it through `crossmaps`.
   */
  vocabulary?: VocabularyBridge;
  /** Origins allowed to call the API from a browser (CORS); none by default. */
  corsOrigins?: readonly string[];
}

export const allRoutes = (): AnyRoute[] => [...projectRoutes(), ...reviewRoutes(), ...syncRoutes()];

export const DEFAULT_RECORD_BODY_LIMIT = 64 * 1024 * 1024;

/** What Koa sends for a JSON body. */
const JSON_TYPE = "application/json; charset=utf-8";

/** Objects and arrays that Koa itself would answer as JSON. */
const isPlainJson = (body: unknown): boolean =>
  Array.isArray(body) ||
  (typeof body === "object" && body !== null && Object.getPrototypeOf(body) === Object.prototype);

export function createApp(options: AppOptions): Koa {
  const { stores } = options;
  const log = options.log ?? silentLogger;
  const crossmaps = options.crossmaps ?? new CrossmapProvider();
  const crossMapping = crossMappingRoutes({
    crossmaps,
    maxRecords: options.maxRecords ?? DEFAULT_MAX_RECORDS,
    decisions: new DecisionCache(),
    vocabularyRelease: (options.vocabulary ?? crossmaps.vocabulary)?.release ?? null,
  });
  const vocabulary = options.vocabulary ?? crossmaps.vocabulary;
  const routes = [
    ...allRoutes(),
    ...crossMapping,
    ...vocabularyRoutes(options.vocabulary),
    ...projectDataRoutes(vocabulary),
    ...(options.extraRoutes ?? []),
  ];
  const openapi = buildOpenApi(routes);
  const readBody = makeBodyReader(options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT);
  const readRecords = makeBodyReader(options.recordBodyLimitBytes ?? DEFAULT_RECORD_BODY_LIMIT, true);
  const readText = makeTextReader(options.recordBodyLimitBytes ?? DEFAULT_RECORD_BODY_LIMIT);

  const app = new Koa();
  const router = new Router();
  router.get("/healthz", (ctx) => {
    ctx.body = { status: "ok" };
  });
  router.get("/openapi.json", (ctx) => {
    ctx.body = openapi;
  });
  for (const route of routes) {
    router[route.method](route.path, async (ctx) => {
      await serve(ctx, route);
    });
  }

  async function serve(ctx: Context, route: AnyRoute): Promise<void> {
    const params = ctx.params as Record<string, string>;
    let principal: Principal | null = null;
    if (route.access !== "public") {
      principal = authenticate(stores, ctx.get("authorization") || undefined);
      ctx.state.keyId = principal.keyId;
      authorize(principal, route.access, params.project_id);
    }
    // Query and body problems are reported together, as FastAPI does.
    const problems: Problem[] = [];
    const check = (schema: z.ZodType | undefined, input: unknown, where: "query" | "body") => {
      if (!schema) return undefined;
      const result = schema.safeParse(input, { reportInput: true });
      if (result.success) return result.data;
      problems.push(...result.error.issues.flatMap((i) => toProblems(i, where)));
      return undefined;
    };
    const query = check(route.query, ctx.query, "query");
    const body = route.body
      ? check(route.body, await (route.csv ? readText : route.records ? readRecords : readBody)(ctx), "body")
      : undefined;
    if (problems.length > 0) throw new AppError(422, "validation_error", "Invalid request", problems);
    if (params.project_id !== undefined && !stores.projects.exists(params.project_id)) {
      throw projectNotFound(params.project_id);
    }
    const result = await route.handle({
      params,
      query,
      body,
      principal,
      ifMatch: parseIfMatch(ctx.get("if-match") || undefined),
      stores,
    });
    ctx.status = result.status ?? route.status ?? 200;
    for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
    const out = result.body;
    if (!route.records && !isPlainJson(out)) {
      // Anything else (an export's text, an extra route's string, buffer or stream) goes to Koa as it is.
      ctx.body = out;
      if (route.produces) ctx.type = route.produces;
      if (result.version !== undefined) ctx.set("ETag", etagOf(result.version));
      return;
    }
    // JSON goes out as text with its type set directly: what Koa sends for an object, minus its MIME
    // lookup per response. Headers keep Koa's order: Content-Type, ETag, then Content-Length.
    ctx.res.setHeader("Content-Type", route.produces ?? JSON_TYPE);
    if (result.version !== undefined) ctx.res.setHeader("ETag", etagOf(result.version));
    // Records may hold bigint ids, which JSON.stringify refuses; write them digit for digit.
    ctx.body = route.records ? stringifyJson(out) : JSON.stringify(out);
  }

  app.use(requestLogger(log));
  // Before errors and auth: a preflight carries no key, and an error answer must still be readable.
  app.use(corsMiddleware(options.corsOrigins ?? []));
  app.use(errorMiddleware(log));
  app.use(async (ctx, next) => {
    await next();
    // Unmatched paths and methods still answer in the API's error shape.
    // Koa turns an assigned body into a 200 unless the status is set again explicitly.
    if (ctx.body === undefined && (ctx.status === 404 || ctx.status === 405)) {
      const status = ctx.status;
      ctx.body = { detail: status === 404 ? "Not Found" : "Method Not Allowed" };
      ctx.status = status;
    }
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  // What Koa itself reports (e.g. a client gone mid-response) goes to the structured log, not raw stderr.
  app.on("error", (err: Error) => {
    log({ level: "error", msg: "koa error", error: err.stack ?? err.message });
  });
  return app;
}
