// Serves the review workbench page (built into dist/ui by `npm run build`) at /ui/: a few static files,
// no key needed for them (the page asks for one), and a Content-Security-Policy that allows nothing
// but this server, so the page cannot load or send anything elsewhere.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Middleware } from "koa";

/** dist/ui beside this module's package: from src/server (tests) and dist/server (the CLI) alike. */
export const DEFAULT_UI_DIR = fileURLToPath(new URL("../../dist/ui/", import.meta.url));

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  map: "application/json; charset=utf-8",
  txt: "text/plain; charset=utf-8",
};

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Most files kept in memory at once (the build makes four); the least recently served goes first. */
export const UI_CACHE_FILES = 16;

export type UiMiddleware = Middleware & {
  /** The names whose contents are held, least recently served first (for tests). */
  cachedNames(): string[];
};

export function uiMiddleware(dir: string = DEFAULT_UI_DIR): UiMiddleware {
  // The folder is listed once, on the first request, and files are read when first served: they change
  // only with a new build (and a restart). Only names the listing has are ever looked up or kept, so a
  // request for a name that does not exist costs nothing and leaves nothing behind (issue 27: 20,000
  // such names once took the server from 139 to 640 MB).
  let listing: Set<string> | undefined;
  const cache = new Map<string, Buffer>();
  const read = (name: string): Buffer | null => {
    listing ??= listFiles(dir);
    if (!listing.has(name)) return null;
    let body = cache.get(name);
    if (body === undefined) {
      body = readFileSync(join(dir, name));
      if (cache.size >= UI_CACHE_FILES) cache.delete(cache.keys().next().value as string);
    } else cache.delete(name);
    cache.set(name, body);
    return body;
  };
  const middleware: Middleware = async (ctx, next) => {
    // Browsers ask for it on every page of the server: the page has no icon, which 204 says without a 404
    // in the browser's console and the server's log.
    if (ctx.path === "/favicon.ico" && (ctx.method === "GET" || ctx.method === "HEAD")) {
      ctx.status = 204;
      return;
    }
    if (ctx.path !== "/ui" && !ctx.path.startsWith("/ui/")) return next();
    if (ctx.method !== "GET" && ctx.method !== "HEAD") return next();
    if (ctx.path === "/ui") {
      ctx.redirect("/ui/");
      return;
    }
    const name = ctx.path === "/ui/" ? "index.html" : ctx.path.slice(4);
    // Only the build's own flat file names: nothing with a slash, dot-dot or an unknown type.
    const type = TYPES[name.slice(name.lastIndexOf(".") + 1)];
    const body = /^[\w.-]+$/.test(name) && !name.startsWith(".") && type ? read(name) : null;
    if (body === null) {
      ctx.status = 404;
      ctx.body = {
        detail:
          name === "index.html"
            ? "The workbench page is not built; run npm run build"
            : `No file ${ctx.path} in the workbench page`,
      };
      return;
    }
    ctx.set("Content-Type", type!);
    ctx.set("Content-Security-Policy", CSP);
    ctx.set("X-Content-Type-Options", "nosniff");
    ctx.set("Referrer-Policy", "no-referrer");
    ctx.set("Cache-Control", "no-cache");
    ctx.body = body;
  };
  return Object.assign(middleware, { cachedNames: () => [...cache.keys()] });
}

/** The plain files of the build's folder; none when it does not exist (the page was never built). */
function listFiles(dir: string): Set<string> {
  try {
    return new Set(
      readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name),
    );
  } catch {
    return new Set();
  }
}
