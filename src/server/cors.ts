// CORS for dashboards served from other origins: off unless origins are listed (`serve --cors-origin`).
// Listed origins get their preflights answered and may read responses (with the ETag); others get no
// CORS headers, so a browser keeps their pages from calling the API with a reviewer's key.
import type { Context, Next } from "koa";
import { AppError } from "../errors.js";

const ALLOWED_METHODS = "GET, POST, OPTIONS";
const ALLOWED_HEADERS = "Authorization, Content-Type, If-Match";
/** How long a browser may cache a preflight answer, in seconds. */
const MAX_AGE = "600";

/** An origin as browsers send it (`scheme://host[:port]`); anything else is a usage error. */
export function checkOrigin(value: string): string {
  let origin: string;
  try {
    origin = new URL(value).origin;
  } catch {
    origin = "null";
  }
  if (origin === "null" || origin !== value) {
    throw new AppError(
      400,
      "invalid_argument",
      `--cors-origin must be an origin such as https://dashboard.example.org (scheme, host and port only), got ${value}`,
    );
  }
  return origin;
}

export function corsMiddleware(origins: readonly string[]) {
  const allowed = new Set(origins);
  return async (ctx: Context, next: Next): Promise<void> => {
    if (allowed.size === 0) return next();
    // The answer depends on the Origin header whenever CORS is on: caches must not mix them up.
    ctx.vary("Origin");
    const origin = ctx.get("origin");
    if (!allowed.has(origin)) return next();
    ctx.set("Access-Control-Allow-Origin", origin);
    if (ctx.method === "OPTIONS" && ctx.get("access-control-request-method") !== "") {
      ctx.set("Access-Control-Allow-Methods", ALLOWED_METHODS);
      ctx.set("Access-Control-Allow-Headers", ALLOWED_HEADERS);
      ctx.set("Access-Control-Max-Age", MAX_AGE);
      ctx.status = 204;
      return;
    }
    ctx.set("Access-Control-Expose-Headers", "ETag");
    await next();
  };
}
