// Builds the OpenAPI 3.1 document from the route table, with JSON Schemas generated from the very zod
// schemas that validate requests.
import { z } from "zod";
import { version } from "../version.js";
import type { AnyRoute } from "./route.js";
import { errorDetail, health, validationError } from "./schemas.js";

const ERROR_TEXT: Record<number, string> = {
  401: "Missing, malformed, unknown or revoked API key (WWW-Authenticate: Bearer)",
  403: "The key has no access (or only read access) to the project, or is not an admin key",
  404: "Project or item not found",
  409: "Approving an item that has no suggested target; exporting a crossmap of a project without target_model",
  412: "If-Match names a version that is no longer current",
  413: "Request body over the size limit",
  422: "Invalid request body or query",
  503: "The server has no vocabulary index (started without --vocab)",
};

type Json = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Json {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Json;
  return rest;
}

const jsonContent = (schema: Json) => ({ "application/json": { schema } });

function operation(route: AnyRoute): Json {
  const parameters: Json[] = [...route.path.matchAll(/:(\w+)/g)].map((m) => ({
    name: m[1],
    in: "path",
    required: true,
    schema: { type: "string" },
  }));
  if (route.query) {
    const q = jsonSchema(route.query, "input") as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, schema] of Object.entries(q.properties ?? {})) {
      parameters.push({ name, in: "query", required: q.required?.includes(name) ?? false, schema });
    }
  }
  if (route.ifMatch) {
    parameters.push({
      name: "If-Match",
      in: "header",
      required: false,
      description: 'The item version this decision was made against, e.g. "3"; a stale one gives 412',
      schema: { type: "string" },
    });
  }
  const responses: Json = {
    [String(route.status ?? 200)]: {
      description: "Success",
      content: {
        [route.produces?.split(";")[0] ?? "application/json"]: {
          schema: jsonSchema(route.response, "output"),
        },
      },
    },
  };
  for (const status of route.errors) {
    const schema = status === 422 ? validationError : errorDetail;
    responses[String(status)] = {
      description: ERROR_TEXT[status] ?? "Error",
      content: jsonContent(jsonSchema(schema, "output")),
    };
  }
  const op: Json = {
    summary: route.summary,
    tags: [route.tag],
    operationId: `${route.method}_${route.path.replace(/[^A-Za-z0-9]+/g, "_").replace(/^_|_$/g, "")}`,
    parameters,
    responses,
  };
  if (route.description) op.description = route.description;
  if (route.body) {
    const schema = jsonSchema(route.body, "input");
    op.requestBody = {
      required: true,
      content: route.csv ? { "text/csv": { schema } } : jsonContent(schema),
    };
  }
  if (route.access !== "public") op.security = [{ bearer: [] }];
  return op;
}

export function buildOpenApi(routes: AnyRoute[]): Json {
  const paths: Record<string, Json> = {
    "/healthz": {
      get: {
        summary: "Liveness",
        tags: ["meta"],
        operationId: "get_healthz",
        responses: { "200": { description: "Up", content: jsonContent(jsonSchema(health, "output")) } },
      },
    },
  };
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, "{$1}");
    paths[path] = { ...paths[path], [route.method]: operation(route) };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "crossmap review and sync API",
      version,
      description:
        "Review (approve, reject, override) and sync of schema and concept mappings. See docs/api.md.",
    },
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    paths,
  };
}
