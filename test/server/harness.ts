// Test harness: a real server on port 0 over real LMDB files in a temp dir, plus small HTTP helpers.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AppOptions, type CrossmapApp, createApp } from "../../src/server/app.js";
import { listen, type RunningServer } from "../../src/server/listen.js";
import type { LogEntry } from "../../src/server/logging.js";
import { openStores, type Stores } from "../../src/store/env.js";
import type { KeyScope } from "../../src/store/types.js";

export interface Harness {
  url: string;
  dataDir: string;
  stores: Stores;
  admin: string;
  projectId: string;
  logs: LogEntry[];
  /** A new key; `projectId` defaults to the harness project. */
  key(scope: KeyScope, projectId?: string): Promise<string>;
  /** The id of the key a secret belongs to. */
  keyId(secret: string): string;
  /** Stops the server and closes LMDB, then opens both again on the same data dir (new port). */
  restart(): Promise<void>;
  stop(): Promise<void>;
  request(method: string, path: string, opts?: RequestOpts): Promise<Reply>;
}

export interface RequestOpts {
  key?: string | null;
  /** Objects are sent as JSON; strings are sent as they are. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export async function startHarness(
  options: Partial<Omit<AppOptions, "stores" | "log">> = {},
): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), "crossmap-test-"));
  const logs: LogEntry[] = [];
  let stores = openStores(dataDir);
  let running: RunningServer;
  let app: CrossmapApp;
  const boot = async () => {
    app = createApp({ stores, log: (e) => logs.push(e), ...options });
    running = await listen(app, 0, "127.0.0.1");
  };
  const shutdown = async () => {
    await running.close();
    await app.closeWorkers();
    await stores.close();
  };
  await boot();
  const admin = (await stores.write(() => stores.keys.create("admin", null))).secret;
  const project = await stores.write(() =>
    stores.projects.create({ name: "test", target_model: "omop_cdm_v5.4" }),
  );

  const h: Harness = {
    get url() {
      return running.url;
    },
    dataDir,
    get stores() {
      return stores;
    },
    admin,
    projectId: project.id,
    logs,
    key: async (scope, projectId = project.id) =>
      (await stores.write(() => stores.keys.create(scope, scope === "admin" ? null : projectId))).secret,
    keyId: (secret) => stores.keys.authenticate(secret)!.id,
    restart: async () => {
      await shutdown();
      stores = openStores(dataDir);
      await boot();
    },
    stop: async () => {
      await shutdown();
      rmSync(dataDir, { recursive: true, force: true });
    },
    request: async (method, path, opts = {}) => {
      const headers: Record<string, string> = { ...opts.headers };
      const key = opts.key === undefined ? admin : opts.key;
      if (key !== null) headers.authorization = `Bearer ${key}`;
      let body: string | undefined;
      if (opts.body !== undefined) {
        body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
        headers["content-type"] ??= "application/json";
      }
      const res = await fetch(`${running.url}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
      });
      const text = await res.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: res.status, headers: res.headers, text, json };
    },
  };
  return h;
}

/** The review path of one item: `/v1/projects/{p}/{kind}-mapping/{id}`. */
export const itemPath = (h: Harness, kind: "schema" | "concept", id: string, projectId = h.projectId) =>
  `/v1/projects/${projectId}/${kind}-mapping/${id}`;

/** Pushes schema items and returns their ids in order. */
export async function seedSchema(h: Harness, items: object[]): Promise<string[]> {
  const r = await h.request("POST", `/api/v1/sync/projects/${h.projectId}/schema-mappings/bulk`, {
    body: { items },
  });
  if (r.status !== 200) throw new Error(`seed failed: ${r.status} ${r.text}`);
  return (r.json as { items: { id: string }[] }).items.map((i) => i.id);
}

export async function seedConcept(h: Harness, items: object[]): Promise<string[]> {
  const r = await h.request("POST", `/api/v1/sync/projects/${h.projectId}/concept-mappings/bulk`, {
    body: { items },
  });
  if (r.status !== 200) throw new Error(`seed failed: ${r.status} ${r.text}`);
  return (r.json as { items: { id: string }[] }).items.map((i) => i.id);
}

/** Server-managed timestamps differ run to run; tests compare them separately. */
export function withoutTimes<T extends object>(
  item: T,
): Omit<T, "created_at" | "updated_at" | "reviewed_at"> {
  const {
    created_at: _c,
    updated_at: _u,
    reviewed_at: _r,
    ...rest
  } = item as T & {
    created_at?: unknown;
    updated_at?: unknown;
    reviewed_at?: unknown;
  };
  return rest;
}
