// The only place an error becomes an HTTP response: AppError keeps its status and detail, anything
// else is logged and answered with a bare 500.
import type { Context, Next } from "koa";
import { AppError } from "../errors.js";
import type { LogEntry } from "./logging.js";

export function errorMiddleware(log: (entry: LogEntry) => void) {
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
    } catch (err) {
      if (err instanceof AppError) {
        ctx.status = err.status;
        ctx.body = errorBody(err);
        if (err.status === 401) ctx.set("WWW-Authenticate", "Bearer");
        return;
      }
      log({
        level: "error",
        msg: "unhandled error",
        method: ctx.method,
        path: ctx.path,
        error: err instanceof Error ? (err.stack ?? err.message) : String(err),
      });
      ctx.status = 500;
      ctx.body = { detail: "Internal Server Error" };
    }
  };
}

/** `{"detail": "..."}`, or for 422 FastAPI's list of `{loc, msg, type}`. */
export function errorBody(err: AppError): unknown {
  if (err.status === 422 && err.problems.length > 0) {
    return { detail: err.problems.map((p) => ({ loc: p.path, msg: p.message, type: p.code })) };
  }
  return { detail: err.message };
}
