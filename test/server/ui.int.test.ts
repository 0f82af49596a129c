// The workbench page's static files: served without a key, with the build's names only, and a clear
// answer when the page was never built.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Koa from "koa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen } from "../../src/server/listen.js";
import { UI_CACHE_FILES, uiMiddleware } from "../../src/server/ui.js";
import { type Harness, startHarness } from "./harness.js";

const built = mkdtempSync(join(tmpdir(), "crossmap-ui-dir-"));
let h: Harness;
let bare: Harness;

beforeAll(async () => {
  writeFileSync(join(built, "index.html"), "<!doctype html><title>t</title>");
  writeFileSync(join(built, "app.js"), "export {};");
  h = await startHarness({ uiDir: built });
  bare = await startHarness({ uiDir: join(built, "missing") });
});
afterAll(async () => {
  await h.stop();
  await bare.stop();
  rmSync(built, { recursive: true, force: true });
});

describe("GET /ui/", () => {
  it("serves index.html and the bundle without a key, with their types and a strict policy", async () => {
    const page = await h.request("GET", "/ui/", { key: null });
    expect(page.status).toBe(200);
    expect(page.text).toBe("<!doctype html><title>t</title>");
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    const js = await h.request("GET", "/ui/app.js", { key: null });
    expect([js.status, js.headers.get("content-type"), js.text]).toEqual([
      200,
      "text/javascript; charset=utf-8",
      "export {};",
    ]);
  });

  it("answers /favicon.ico with 204 and no key, so a browser's request for it is not a 404", async () => {
    const r = await h.request("GET", "/favicon.ico", { key: null });
    expect([r.status, r.text]).toEqual([204, ""]);
  });
  it("redirects /ui to /ui/", async () => {
    const r = await fetch(`${h.url}/ui`, { redirect: "manual" });
    expect([r.status, r.headers.get("location")]).toEqual([302, "/ui/"]);
  });

  it("answers 404 for names the build does not make, and for paths out of its folder", async () => {
    for (const path of ["/ui/other.js", "/ui/%2e%2e%2fpackage.json", "/ui/.env", "/ui/app.exe"]) {
      const r = await h.request("GET", path, { key: null });
      expect([path, r.status]).toEqual([path, 404]);
    }
    expect((await h.request("GET", "/ui/other.js", { key: null })).json).toEqual({
      detail: "No file /ui/other.js in the workbench page",
    });
  });

  it("says how to build the page when it was never built", async () => {
    const r = await bare.request("GET", "/ui/", { key: null });
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ detail: "The workbench page is not built; run npm run build" });
  });
});

describe("what /ui/ keeps in memory", () => {
  it("keeps only files that exist, at most UI_CACHE_FILES of them, however many names are asked for", async () => {
    const many = mkdtempSync(join(tmpdir(), "crossmap-ui-many-"));
    for (let i = 0; i < UI_CACHE_FILES + 4; i++) writeFileSync(join(many, `f${i}.css`), `/* ${i} */`);
    const ui = uiMiddleware(many);
    const server = await listen(new Koa().use(ui), 0, "127.0.0.1");
    try {
      // Issue 27: 20,000 of these (each a 404) took the server from 139 to 640 MB.
      const long = "v".repeat(15_000);
      const statuses = new Map<number, number>();
      for (let i = 0; i < 300; i++) {
        const r = await fetch(`${server.url}/ui/${long}-${i}.css`);
        await r.arrayBuffer();
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      }
      expect([...statuses]).toEqual([[404, 300]]);
      expect(ui.cachedNames()).toEqual([]);
      for (let i = 0; i < UI_CACHE_FILES + 4; i++) {
        const r = await fetch(`${server.url}/ui/f${i}.css`);
        expect([r.status, await r.text()]).toEqual([200, `/* ${i} */`]);
      }
      // The least recently served go first.
      expect(ui.cachedNames()).toEqual(Array.from({ length: UI_CACHE_FILES }, (_, i) => `f${i + 4}.css`));
      expect(await (await fetch(`${server.url}/ui/f0.css`)).text()).toBe("/* 0 */");
      expect(ui.cachedNames().at(-1)).toBe("f0.css");
    } finally {
      await server.close();
      rmSync(many, { recursive: true, force: true });
    }
  });
});
