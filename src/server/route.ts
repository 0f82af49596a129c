// A route is data: method, path, access, schemas and a handler. The app mounts it and /openapi.json
// describes it, from the same object.
import type { z } from "zod";
import type { Stores } from "../store/env.js";
import type { Access, Principal } from "./auth.js";
import type { RawJsonBody } from "./body.js";
import type { IfMatch } from "./if-match.js";

export interface RouteInput<Q, B> {
  params: Record<string, string>;
  query: Q;
  body: B;
  /** null only on public routes. */
  principal: Principal | null;
  ifMatch: IfMatch;
  stores: Stores;
  /** Who is asking, for taking turns (the key and the remote address): see fair-queue.ts. */
  client: string;
  /**
   * Record-carrying routes: the body's JSON text, unparsed (parsed and validated in a map worker), and
   * whether bytes that were not UTF-8 were marked in it (then the worker answers 422 naming the fields).
   */
  rawBody?: RawJsonBody | undefined;
}

export interface RouteResult {
  status?: number;
  body: unknown;
  /** Sent as the ETag header. */
  version?: number;
  /** More response headers (e.g. Content-Disposition of an export). */
  headers?: Record<string, string>;
  /** A JSON response already serialised (e.g. by a map worker); sent instead of `body`. */
  json?: Uint8Array;
  /** The body's length in bytes, when `body` is a stream that knows it (sent as Content-Length). */
  length?: number;
}

export interface RouteDef<
  QS extends z.ZodType = z.ZodType<undefined>,
  BS extends z.ZodType = z.ZodType<undefined>,
> {
  method: "get" | "post";
  /** Koa-router syntax, e.g. /v1/projects/:project_id/schema-mapping/:mapping_id/approve. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  access: Access;
  query?: QS;
  body?: BS;
  response: z.ZodType;
  /** Success status; 200 unless said otherwise. */
  status?: number;
  /** Error statuses the route can answer with, for the document. */
  errors: number[];
  /** Whether the route honours If-Match (documented as a header parameter). */
  ifMatch?: boolean;
  /**
   * Record-carrying routes: the larger record-body limit applies, and the handler gets the body as text
   * (`rawBody`): it is parsed (integers beyond 2^53 kept exact), validated against `body` and answered
   * in a map worker, not here. The project's existence is the handler's to check, after the body.
   */
  records?: boolean;
  /** The body is CSV text (imports), read under the record-body limit; `body` then validates the string. */
  csv?: boolean;
  /** The response's media type when it is not application/json (the handler returns text, or JSON for +json). */
  produces?: string;
  handle(input: RouteInput<z.output<QS>, z.output<BS>>): Promise<RouteResult> | RouteResult;
}

/** Identity, for inference: the handler's query and body types follow from the schemas. */
export const defineRoute = <
  QS extends z.ZodType = z.ZodType<undefined>,
  BS extends z.ZodType = z.ZodType<undefined>,
>(
  def: RouteDef<QS, BS>,
): RouteDef<QS, BS> => def;

// Routes of different schemas live in one table; the handler's input types only matter inside defineRoute.
// biome-ignore lint/suspicious/noExplicitAny: erasing the generic parameters of a heterogeneous route table
export type AnyRoute = RouteDef<any, any>;
