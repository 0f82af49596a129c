// Reads a JSON request body through koa-bodyparser, turning its failures into the spec's errors:
// oversize -> 413, malformed JSON or a non-JSON body -> 422 (never a 400 or a 500).

import type { Context } from "koa";
import bodyParser from "koa-bodyparser";
import { AppError } from "../errors.js";
import { parseJson } from "../pipeline/json.js";

export const DEFAULT_BODY_LIMIT = 5 * 1024 * 1024;

/**
 * Resolves to the parsed body, or `undefined` when the request has none. A `lossless` reader keeps
 * integers beyond 2^53 as bigint (records carrying 64-bit ids): it takes the JSON as text and parses it
 * once with the exact parser.
 */
export function makeBodyReader(limitBytes: number, lossless = false): (ctx: Context) => Promise<unknown> {
  const parser = lossless
    ? bodyParser({
        enableTypes: ["text"],
        extendTypes: { text: ["application/json", "application/*+json"] },
        textLimit: `${limitBytes}b`,
      })
    : bodyParser({ enableTypes: ["json"], jsonLimit: `${limitBytes}b`, strict: false });
  return async (ctx) => {
    const declared = ctx.request.length;
    const chunked = ctx.get("transfer-encoding") !== "";
    if (!chunked && (declared === undefined || declared === 0)) return undefined;
    if (!ctx.is("json", "+json")) {
      throw new AppError(422, "validation_error", "Invalid request", [
        {
          path: ["body"],
          message: "Content-Type must be application/json",
          code: "value_error.content_type",
        },
      ]);
    }
    try {
      await parser(ctx, async () => {});
      const body: unknown = ctx.request.body;
      return lossless && typeof body === "string" ? parseJson(body) : body;
    } catch (err) {
      throw bodyError(err, limitBytes);
    }
  };
}

function bodyError(err: unknown, limitBytes: number): AppError {
  const e = err as { status?: number; type?: string; message?: string };
  if (e.status === 413 || e.type === "entity.too.large") {
    return new AppError(
      413,
      "payload_too_large",
      `Request body is larger than the limit of ${limitBytes} bytes`,
    );
  }
  // JSON.parse reports where it gave up; the wording differs between Node versions, the position does not.
  const at = /position (\d+)/.exec(e.message ?? "");
  return new AppError(422, "validation_error", "Invalid request", [
    {
      path: at ? ["body", Number(at[1])] : ["body"],
      message: "Invalid JSON",
      code: "value_error.jsondecode",
    },
  ]);
}
