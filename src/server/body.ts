// Reads a JSON request body through koa-bodyparser, turning its failures into the spec's errors:
// oversize -> 413, malformed JSON or a non-JSON body -> 422 (never a 400 or a 500).

import type { IncomingMessage } from "node:http";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { Context } from "koa";
import bodyParser from "koa-bodyparser";
import { AppError } from "../errors.js";
import { parseJson } from "../pipeline/json.js";
import { checkJsonDepth, invalidJson } from "./json-depth.js";
import { decodeBody, invalidUtf8 } from "./utf8-body.js";

export const DEFAULT_BODY_LIMIT = 5 * 1024 * 1024;

/**
 * What a reader gives: the parsed body (`json`), the parsed body with integers beyond 2^53 kept as bigint
 * (`lossless`, for records carrying 64-bit ids), or the JSON text unparsed (`text`, for calls whose body
 * is parsed off the event loop: `{text, marked}`, marked when bytes that are not UTF-8 were marked in it,
 * see utf8-body.ts). Each resolves to `undefined` when the request has no body. A body that is not UTF-8
 * is a 422 naming its fields in the first two modes; in `text` mode whoever parses it says so.
 */
export type BodyMode = "json" | "lossless" | "text";

/** The `text` mode's result. */
export interface RawJsonBody {
  text: string;
  marked: boolean;
}

export function makeBodyReader(
  limitBytes: number,
  mode: BodyMode = "json",
): (ctx: Context) => Promise<unknown> {
  // Always read as text: the depth check runs before any parse (see json-depth.ts).
  // Bytes (raw-body with no encoding, an option koa-bodyparser passes on but does not declare): they are
  // checked as UTF-8 here, not replaced by U+FFFD.
  const parser = bodyParser({
    enableTypes: ["text"],
    extendTypes: { text: ["application/json", "application/*+json"] },
    textLimit: `${limitBytes}b`,
    ...{ encoding: null },
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
    let bytes: Buffer;
    try {
      if (declared !== undefined && isPlainJsonRequest(ctx)) {
        bytes = await readExactly(ctx.req, declared, limitBytes);
      } else {
        await parser(ctx, async () => {});
        const body: unknown = ctx.request.body;
        bytes = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === "string" ? body : "");
      }
    } catch (err) {
      throw bodyError(err, limitBytes);
    }
    const { text, marked } = decodeBody(bytes);
    if (mode === "text") return { text, marked } satisfies RawJsonBody;
    if (marked) throw invalidUtf8(text);
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

/** The body's bytes, checked against the declared length and the limit as raw-body checks them. */
function readExactly(req: IncomingMessage, length: number, limitBytes: number): Promise<Buffer> {
  if (length > limitBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const done = (err: Error | null, bytes?: Buffer) => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("aborted", onAborted);
      if (err) {
        // Stop reading what is left, as raw-body does, so the connection can still answer.
        req.resume();
        reject(err);
      } else resolve(bytes as Buffer);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) done(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = () => {
      if (received !== length) return done(sizeMismatch());
      done(null, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
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
 * Reads a CSV (or plain text) body as bytes, for imports: `undefined` when there is none, 413 over the
 * limit (after decompression), 422 for another Content-Type. The bytes are checked as UTF-8 where the file
 * is parsed (in a data worker), so that a bad byte is reported on its row instead of becoming U+FFFD here.
 */
export function makeBytesReader(limitBytes: number): (ctx: Context) => Promise<Buffer | undefined> {
  return async (ctx) => {
    const declared = ctx.request.length;
    const chunked = ctx.get("transfer-encoding") !== "";
    if (!chunked && (declared === undefined || declared === 0)) return undefined;
    if (!ctx.is("text/csv", "text/plain")) {
      throw new AppError(422, "validation_error", "Invalid request", [
        { path: ["body"], message: "Content-Type must be text/csv", code: "value_error.content_type" },
      ]);
    }
    const encoding = (ctx.get("content-encoding") || "identity").toLowerCase();
    const inflate = INFLATE[encoding];
    if (encoding !== "identity" && inflate === undefined) {
      throw new AppError(422, "validation_error", "Invalid request", [
        {
          path: ["body"],
          message: `Content-Encoding ${encoding} is not supported (gzip, deflate, br or none)`,
          code: "value_error.content_encoding",
        },
      ]);
    }
    if (encoding === "identity" && declared !== undefined && declared > limitBytes) {
      ctx.req.resume();
      throw bodyError({ status: 413 }, limitBytes);
    }
    const source: NodeJS.ReadableStream = inflate ? ctx.req.pipe(inflate()) : ctx.req;
    const parts: Buffer[] = [];
    let received = 0;
    try {
      for await (const part of source) {
        received += (part as Buffer).length;
        if (received > limitBytes) throw Object.assign(new Error("too large"), { status: 413 });
        parts.push(part as Buffer);
      }
    } catch (err) {
      ctx.req.resume();
      const e = err as { status?: number; message?: string };
      if (e.status === 413) throw bodyError(err, limitBytes);
      throw new AppError(422, "validation_error", "Invalid request", [
        {
          path: ["body"],
          message: `the body could not be read: ${e.message ?? String(err)}`,
          code: "value_error.body",
        },
      ]);
    }
    return Buffer.concat(parts);
  };
}

const INFLATE: Record<string, (() => NodeJS.ReadWriteStream) | undefined> = {
  gzip: () => createGunzip(),
  "x-gzip": () => createGunzip(),
  deflate: () => createInflate(),
  br: () => createBrotliDecompress(),
};
