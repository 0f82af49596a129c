// The Koa app factory: takes its stores (so tests and the CLI decide where data lives) and mounts
// every route from the route tables behind logging, error mapping and auth.
import Router from "@koa/router";
import Koa, { type Context } from "koa";
import type { z } from "zod";
import { CrossmapProvider } from "../crossmap/provider.js";
import type { Problem } from "../errors.js";
import { AppError } from "../errors.js";
import type { Stores } from "../store/env.js";
import type { VocabularyBridge } from "../vocab/bridge.js";
import { authenticate, authorize, type Principal } from "./auth.js";
import { DEFAULT_BODY_LIMIT, makeBodyReader, makeBytesReader, type RawJsonBody } from "./body.js";
import { corsMiddleware } from "./cors.js";
import { DataPool } from "./data-pool.js";
import { errorMiddleware } from "./errors.js";
import { DecisionCache } from "./handlers/decisions.js";
import { projectNotFound } from "./handlers/items.js";
import { etagOf, type IfMatch, parseIfMatch } from "./if-match.js";
import { type Logger, requestLogger, silentLogger } from "./logging.js";
import { MapPool } from "./map-pool.js";
import { buildOpenApi } from "./openapi.js";
import type { AnyRoute } from "./route.js";
import { crossMappingRoutes, DEFAULT_MAX_RECORDS } from "./routes/cross-mapping.js";
import { projectDataRoutes } from "./routes/project-data.js";
import { projectRoutes } from "./routes/projects.js";
import { reviewRoutes } from "./routes/review.js";
import { suggestRoutes } from "./routes/suggest.js";
import { syncRoutes } from "./routes/sync.js";
import { vocabularyRoutes } from "./routes/vocabulary.js";
import { uiMiddleware } from "./ui.js";
import { toProblems } from "./validate.js";

export interface AppOptions {
  stores: Stores;
  log?: Logger;
  /** Largest JSON body accepted; larger ones get 413. Default 5 MiB. */
  bodyLimitBytes?: number;
  /**
   * The worker pool that runs cross-map calls (with the vocabulary, limits and deadline it was made with).
   * Default: a pool of built-in crossmaps without a vocabulary, started on the first call; its idle
   * workers never keep the process alive.
   */
  mapPool?: MapPool;
  /** Most records one cross-map call may carry (for the default pool and the API document). Default 10,000. */
  maxRecords?: number;
  /** Largest body of a record-carrying call (cross-mapping); larger ones get 413. Default 64 MiB. */
  recordBodyLimitBytes?: number;
  /** More routes (e.g. cross-mapping), mounted and documented like the built-in ones. */
  extraRoutes?: AnyRoute[];
  /**
   * The vocabulary index (`serve --vocab`), for the routes that read it directly: revalidation, exports,
   * concept search. Cross-map workers open the index themselves (see `mapPool`).
   */
  vocabulary?: VocabularyBridge;
  /** Origins allowed to call the API from a browser (CORS); none by default. */
  corsOrigins?: readonly string[];
  /** Where the built workbench page is (served at /ui/); default dist/ui of this package. */
  uiDir?: string;
  /**
   * The worker pool that runs imports, exports, revalidation and pulls on its own handle of the stores'
   * environment. Default: one worker on `stores` (and `vocabulary`'s index), started on the first job.
   */
  dataPool?: DataPool;
}

/** The app, with the worker pools it made itself (the caller closes those it passed in). */
export type CrossmapApp = Koa & { closeWorkers(): Promise<void> };

export const allRoutes = (data: DataPool): AnyRoute[] => [
  ...projectRoutes(),
  ...reviewRoutes(),
  ...syncRoutes(data),
];

export const DEFAULT_RECORD_BODY_LIMIT = 64 * 1024 * 1024;

/** What Koa sends for a JSON body. */
const JSON_TYPE = "application/json; charset=utf-8";

const UNMATCHED: Record<number, string> = {
  404: "Not Found",
  405: "Method Not Allowed",
};

/** Objects and arrays that Koa itself would answer as JSON. */
const isPlainJson = (body: unknown): boolean =>
  Array.isArray(body) ||
  (typeof body === "object" && body !== null && Object.getPrototypeOf(body) === Object.prototype);

export function createApp(options: AppOptions): CrossmapApp {
  const { stores } = options;
  const log = options.log ?? silentLogger;
  const maxRecords = options.maxRecords ?? DEFAULT_MAX_RECORDS;
  const vocabulary = options.vocabulary;
  const mapPool = options.mapPool ?? new MapPool({ job: { maxRecords } });
  if (vocabulary && vocabulary.dir === undefined && options.dataPool === undefined) {
    throw new Error(
      "createApp: the data workers open the vocabulary by its directory; give a bridge with one",
    );
  }
  const dataPool =
    options.dataPool ??
    new DataPool({
      config: {
        dataDir: stores.dataDir,
        durability: stores.durability,
        ...(vocabulary?.dir === undefined ? {} : { vocab: vocabulary.dir }),
      },
    });
  const crossMapping = crossMappingRoutes({
    crossmaps: new CrossmapProvider(),
    pool: mapPool,
    maxRecords,
    decisions: new DecisionCache(),
    vocabularyRelease: vocabulary?.release ?? null,
  });
  const routes = [
    ...allRoutes(dataPool),
    ...crossMapping,
    ...vocabularyRoutes(options.vocabulary),
    ...projectDataRoutes(vocabulary, dataPool),
    ...suggestRoutes(vocabulary),
    ...(options.extraRoutes ?? []),
  ];
  const openapi = buildOpenApi(routes);
  const readBody = makeBodyReader(options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT);
  const readRecords = makeBodyReader(options.recordBodyLimitBytes ?? DEFAULT_RECORD_BODY_LIMIT, "text");
  const readBytes = makeBytesReader(options.recordBodyLimitBytes ?? DEFAULT_RECORD_BODY_LIMIT);

  const app = new Koa() as CrossmapApp;
  app.closeWorkers = async () => {
    await Promise.all([
      options.mapPool ? undefined : mapPool.close(),
      options.dataPool ? undefined : dataPool.close(),
    ]);
  };
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
    // Query, header and body problems are reported together, as FastAPI does. Path ids are not checked
    // here: an id that cannot exist (too long, control characters) is a plain 404 (see isStorableId).
    const problems: Problem[] = [];
    const check = (schema: z.ZodType | undefined, input: unknown, where: "query" | "body") => {
      if (!schema) return undefined;
      const result = schema.safeParse(input, { reportInput: true });
      if (result.success) return result.data;
      problems.push(...result.error.issues.flatMap((i) => toProblems(i, where)));
      return undefined;
    };
    const query = check(route.query, ctx.query, "query");
    let ifMatch: IfMatch;
    if (route.ifMatch) {
      const parsed = parseIfMatch(ctx.get("if-match") || undefined);
      if (parsed !== undefined && "problem" in parsed) problems.push(parsed.problem);
      else ifMatch = parsed;
    }
    // A record-carrying body is read as text here and parsed and validated in a map worker.
    const rawBody = route.records ? ((await readRecords(ctx)) as RawJsonBody | undefined) : undefined;
    let body: unknown;
    if (route.csv) {
      // A file's bytes, checked as UTF-8 where it is parsed (a data worker), row by row.
      body = await readBytes(ctx);
      if (body === undefined) {
        problems.push({ path: ["body"], message: "field required", code: "value_error.missing" });
      }
    } else if (route.body && !route.records) {
      body = check(route.body, await readBody(ctx), "body");
    }
    if (problems.length > 0) throw new AppError(422, "validation_error", "Invalid request", problems);
    if (!route.records && params.project_id !== undefined && !stores.projects.exists(params.project_id)) {
      throw projectNotFound(params.project_id);
    }
    const result = await route.handle({
      params,
      query,
      body,
      principal,
      ifMatch,
      stores,
      client: `${principal?.keyId ?? "-"} ${ctx.ip}`,
      ...(route.records ? { rawBody } : {}),
    });
    ctx.status = result.status ?? route.status ?? 200;
    for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
    if (result.json !== undefined) {
      ctx.res.setHeader("Content-Type", JSON_TYPE);
      ctx.body = Buffer.from(result.json.buffer, result.json.byteOffset, result.json.byteLength);
      return;
    }
    const out = result.body;
    if (!isPlainJson(out)) {
      // Anything else (an export's text, an extra route's string, buffer or stream) goes to Koa as it is.
      ctx.body = out;
      if (route.produces) ctx.type = route.produces;
      if (result.version !== undefined) ctx.set("ETag", etagOf(result.version));
      // Koa drops the length of a stream it is given; a data worker's output says it.
      if (result.length !== undefined) ctx.length = result.length;
      return;
    }
    // JSON goes out as text with its type set directly: what Koa sends for an object, minus its MIME
    // lookup per response. Headers keep Koa's order: Content-Type, ETag, then Content-Length.
    ctx.res.setHeader("Content-Type", route.produces ?? JSON_TYPE);
    if (result.version !== undefined) ctx.res.setHeader("ETag", etagOf(result.version));
    ctx.body = JSON.stringify(out);
  }

  // Every answer, errors and the page's files included: a browser must never guess a type the server did
  // not send (an export's text, an error's JSON) and run it. Set last so headers keep Koa's order.
  app.use(async (ctx, next) => {
    try {
      await next();
    } finally {
      ctx.set("X-Content-Type-Options", "nosniff");
    }
  });
  app.use(requestLogger(log));
  // Before errors and auth: a preflight carries no key, and an error answer must still be readable.
  app.use(corsMiddleware(options.corsOrigins ?? []));
  app.use(errorMiddleware(log));
  app.use(async (ctx, next) => {
    await next();
    // Unmatched paths and methods still answer in the API's error shape.
    // Koa turns an assigned body into a 200 unless the status is set again explicitly.
    // A method no route has (TRACE, PROPFIND, ...) on a known path: the router says 501; it is the
    // client's request that cannot be served there, so it is a 405 like any other method (with Allow).
    if (ctx.status === 501 && ctx.body === undefined) {
      const matched = (ctx as Context & { matched?: unknown[] }).matched ?? [];
      ctx.status = matched.length > 0 ? 405 : 404;
      if (ctx.status === 404) ctx.remove("Allow");
    }
    // OPTIONS beyond a listed origin's CORS preflight (answered before this): the router would say an
    // empty text/plain 200; the API serves no OPTIONS, so it is a 405 like any other method (with Allow).
    if (ctx.method === "OPTIONS" && ctx.status === 200 && !ctx.body) {
      ctx.body = undefined;
      ctx.status = 405;
    }
    const detail = UNMATCHED[ctx.status];
    if (ctx.body === undefined && detail !== undefined) {
      const status = ctx.status;
      ctx.body = { detail };
      ctx.status = status;
    }
  });
  app.use(uiMiddleware(options.uiDir));
  app.use(router.routes());
  app.use(router.allowedMethods());
  // What Koa itself reports (e.g. a client gone mid-response) goes to the structured log, not raw stderr.
  app.on("error", (err: Error) => {
    log({ level: "error", msg: "koa error", error: err.stack ?? err.message });
  });
  return app;
}
