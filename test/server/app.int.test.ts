// The app factory's extension point: routes added by later issues get the same auth, validation and document.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { z } from "zod";
import { createApp } from "../../src/server/app.js";
import { listen } from "../../src/server/listen.js";
import { defineRoute } from "../../src/server/route.js";
import { openStores } from "../../src/store/env.js";

it("mounts extra routes behind auth and validation, and documents them", async () => {
  const dir = mkdtempSync(join(tmpdir(), "crossmap-app-"));
  const stores = openStores(dir);
  const echo = defineRoute({
    method: "post",
    path: "/api/v1/cross-mapping/projects/:project_id/echo",
    summary: "test route",
    tag: "cross-mapping",
    access: "write",
    body: z.object({ n: z.number() }),
    response: z.object({ n: z.number(), project: z.string() }),
    errors: [401, 403, 404, 422],
    handle: ({ body, params }) => ({ body: { n: body.n, project: params.project_id } }),
  });
  const running = await listen(createApp({ stores, extraRoutes: [echo] }), 0, "127.0.0.1");
  try {
    const { secret } = await stores.write(() => stores.keys.create("admin", null));
    const p = await stores.write(() => stores.projects.create({ name: "x" }));
    const url = `${running.url}/api/v1/cross-mapping/projects/${p.id}/echo`;
    const post = (body: string, key: string | null = secret) =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body,
      });
    expect(await (await post('{"n": 2}')).json()).toEqual({ n: 2, project: p.id });
    expect((await post('{"n": 2}', null)).status).toBe(401);
    expect(await (await post('{"n": "2"}')).json()).toEqual({
      detail: [{ loc: ["body", "n"], msg: "value is not a valid float", type: "type_error.float" }],
    });
    const doc = (await (await fetch(`${running.url}/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(doc.paths["/api/v1/cross-mapping/projects/{project_id}/echo"]).toBeDefined();
  } finally {
    await running.close();
    await stores.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
