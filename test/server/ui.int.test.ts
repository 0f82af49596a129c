// The workbench page's static files: served without a key, with the build's names only, and a clear
// answer when the page was never built.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
