// Reads a JSON request body through koa-bodyparser, turning its failures into the spec's errors:
// oversize -> 413, malformed JSON or a non-JSON body -> 422 (never a 400 or a 500).

import type { IncomingMessage } from "node:http";
import type { Context } from "koa";
import bodyParser from "koa-bodyparser";
import { AppError } from "../errors.js";
import { parseJson } from "../pipeline/json.js";
import { checkJsonDepth, invalidJson } from "./json-depth.js";

export const DEFAULT_BODY_LIMIT = 5 * 1024 * 1024;

/**
 * What a reader gives: the parsed body (`json`), the parsed body with integers beyond 2^53 kept as bigint
 * (`lossless`, for records carrying 64-bit ids), or the JSON text unparsed (`text`, for calls whose body
 * is parsed off the event loop). Each resolves to `undefined` when the request has no body.
 */
export type BodyMode = "json" | "lossless" | "text";

export function makeBodyReader(
  limitBytes: number,
  mode: BodyMode = "json",
): (ctx: Context) => Promise<unknown> {
  // Always read as text: the depth check runs before any parse (see json-depth.ts).
  const parser = bodyParser({
    enableTypes: ["text"],
    extendTypes: { text: ["application/json", "application/*+json"] },
    textLimit: `${limitBytes}b`,
  });
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
    let text: string;
    try {
      if (declared !== undefined && isPlainJsonRequest(ctx)) {
        text = await readExactly(ctx.req, declared, limitBytes);
      } else {
        await parser(ctx, async () => {});
        text = typeof ctx.request.body === "string" ? ctx.request.body : "";
      }
    } catch (err) {
      throw bodyError(err, limitBytes);
    }
    if (mode === "text") return text;
    checkJsonDepth(text);
    try {
      return mode === "lossless" ? parseJson(text) : parseLikeBodyParser(text);
    } catch (err) {
      throw bodyError(err, limitBytes);
    }
  };
}

// The common case (a small JSON body with a Content-Length, not compressed) is read here without the
// body parser's stack of streams and options, which cost more than the review itself. Everything else
// takes the parser's path. Both give the same results and the same errors.

/** Content types read here as UTF-8; others (a charset, compression) go the parser's way. */
const PLAIN_JSON_TYPES = new Set(["application/json", "application/json; charset=utf-8"]);

function isPlainJsonRequest(ctx: Context): boolean {
  const headers = ctx.req.headers;
  return (
    headers["content-encoding"] === undefined &&
    headers["transfer-encoding"] === undefined &&
    PLAIN_JSON_TYPES.has(headers["content-type"] ?? "")
  );
}

/** Errors shaped like raw-body's, so that `bodyError` answers them exactly as before. */
const tooLarge = () => Object.assign(new Error("request entity too large"), { status: 413 });
const sizeMismatch = () =>
  Object.assign(new Error("request size did not match content length"), { status: 400 });

/** The body as UTF-8 text, checked against the declared length and the limit as raw-body checks them. */
function readExactly(req: IncomingMessage, length: number, limitBytes: number): Promise<string> {
  if (length > limitBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const done = (err: Error | null, text?: string) => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("aborted", onAborted);
      if (err) {
        // Stop reading what is left, as raw-body does, so the connection can still answer.
        req.resume();
        reject(err);
      } else resolve(text as string);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) done(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = () => {
      if (received !== length) return done(sizeMismatch());
      const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString("utf8");
      // raw-body's decoder drops a leading byte order mark.
      done(null, text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    };
    const onError = (err: Error) => done(Object.assign(err, { status: 400 }));
    const onAborted = () => done(Object.assign(new Error("request aborted"), { status: 400 }));
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("aborted", onAborted);
  });
}

/** What co-body does with the text in non-strict mode: JSON.parse, then @hapi/bourne's proto check. */
function parseLikeBodyParser(text: string): unknown {
  if (text === "") return text;
  const value: unknown = JSON.parse(text);
  if (value !== null && typeof value === "object" && SUSPECT_PROTO.test(text)) rejectProtoKeys(value);
  return value;
}

const SUSPECT_PROTO =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;

/** Any object anywhere in the value with an own `__proto__` key is refused, as bourne refuses it. */
function rejectProtoKeys(root: object): void {
  let next: object[] = [root];
  while (next.length > 0) {
    const nodes = next;
    next = [];
    for (const node of nodes) {
      if (Object.hasOwn(node, "__proto__")) {
        throw new SyntaxError("Object contains forbidden prototype property");
      }
      for (const value of Object.values(node)) {
        if (value !== null && typeof value === "object") next.push(value);
      }
    }
  }
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
  return invalidJson(err);
}

/**
 * Reads a CSV (or plain text) body as text, for imports: `undefined` when there is none, 413 over the
 * limit, 422 for another Content-Type.
 */
export function makeTextReader(limitBytes: number): (ctx: Context) => Promise<string | undefined> {
  const parser = bodyParser({
    enableTypes: ["text"],
    extendTypes: { text: ["text/csv", "text/plain"] },
    textLimit: `${limitBytes}b`,
  });
  return async (ctx) => {
    const declared = ctx.request.length;
    const chunked = ctx.get("transfer-encoding") !== "";
    if (!chunked && (declared === undefined || declared === 0)) return undefined;
    if (!ctx.is("text/csv", "text/plain")) {
      throw new AppError(422, "validation_error", "Invalid request", [
        { path: ["body"], message: "Content-Type must be text/csv", code: "value_error.content_type" },
      ]);
    }
    try {
      await parser(ctx, async () => {});
    } catch (err) {
      throw bodyError(err, limitBytes);
    }
    const body: unknown = ctx.request.body;
    return typeof body === "string" ? body : undefined;
  };
}
