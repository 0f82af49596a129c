// The stores on real LMDB files: transactions that roll back alone, indexes, runs order, keys, reopening.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { open } from "lmdb";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashSecret, KEY_ID_CACHE_SIZE } from "../../src/store/api-keys.js";
import { saveChange } from "../../src/store/changes.js";
import { openStores, type Stores } from "../../src/store/env.js";
import type { AuditEvent, SchemaItem } from "../../src/store/types.js";

let dir: string;
let stores: Stores;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "crossmap-store-"));
  stores = openStores(dir);
});
afterEach(async () => {
  await stores.close();
  rmSync(dir, { recursive: true, force: true });
});

const item = (id: string, column: string, table: string | null = "t"): SchemaItem => ({
  id,
  source_table: table,
  source_column: column,
  target_table: null,
  target_column: null,
  confidence: null,
  status: "needs_review",
  version: 1,
  created_at: "x",
  updated_at: "x",
  reviewed_at: null,
});

describe("write", () => {
  it("a failing write rolls back alone, even when batched with others in one commit", async () => {
    const ok1 = stores.write(() => stores.schemaItems.put("p", item("a", "c1")));
    const bad = stores.write(() => {
      stores.schemaItems.put("p", item("b", "c2"));
      throw new Error("boom");
    });
    const ok2 = stores.write(() => stores.schemaItems.put("p", item("c", "c3")));
    await expect(bad).rejects.toThrow("boom");
    await Promise.all([ok1, ok2]);
    expect(stores.schemaItems.list("p").items.map((i) => i.id)).toEqual(["a", "c"]);
    expect(stores.schemaItems.findByNaturalKey("p", item("", "c2"))).toBeUndefined();
  });

  it("commit durability acknowledges the same writes, without waiting for the fsync", async () => {
    const fast = openStores(join(dir, "commit"), { durability: "commit" });
    await fast.write(() => fast.schemaItems.put("p", item("a", "c1")));
    await fast.close();
    const again = openStores(join(dir, "commit"));
    expect(again.schemaItems.get("p", "a")).toEqual(item("a", "c1"));
    await again.close();
  });

  it("what was committed is there after reopening", async () => {
    await stores.write(() => stores.schemaItems.put("p", item("a", "c1")));
    await stores.close();
    stores = openStores(dir);
    expect(stores.schemaItems.get("p", "a")).toEqual(item("a", "c1"));
  });
});

describe("items", () => {
  it("are separate per project, and a changed natural key is re-indexed", async () => {
    await stores.write(() => {
      stores.schemaItems.put("p", item("a", "c1"));
      stores.schemaItems.put("p2", item("a", "other"));
    });
    expect(stores.schemaItems.list("p").total).toBe(1);
    expect(stores.schemaItems.findByNaturalKey("p", item("", "c1"))?.id).toBe("a");
    await stores.write(() => stores.schemaItems.put("p", item("a", "c9"), item("a", "c1")));
    expect(stores.schemaItems.findByNaturalKey("p", item("", "c1"))).toBeUndefined();
    expect(stores.schemaItems.findByNaturalKey("p", item("", "c9"))?.id).toBe("a");
    // A project id that is a prefix of another does not leak into its listing.
    expect(stores.schemaItems.list("p").items.map((i) => i.source_column)).toEqual(["c9"]);
  });
});

describe("audit log", () => {
  const facts = (action: AuditEvent["action"]) =>
    ({ item_kind: "schema", action, key_id: "k", at: "t" }) as const;

  it("appends events in sequence, links them from their item, and reads them back as its history", async () => {
    const a1 = item("a", "c1");
    await stores.write(() =>
      saveChange(stores.schemaItems, stores.audit, "p", null, a1, facts("push_create")),
    );
    await stores.write(() =>
      saveChange(stores.schemaItems, stores.audit, "p", null, item("b", "c2"), facts("push_create")),
    );
    const a2 = { ...a1, status: "approved" as const, version: 2 };
    await stores.write(() =>
      saveChange(
        stores.schemaItems,
        stores.audit,
        "p",
        stores.schemaItems.get("p", "a")!,
        a2,
        facts("approve"),
      ),
    );
    // Sequence numbers in the order of the changes, whatever the item: appends, not a page per item.
    expect(stores.schemaItems.get("p", "a")?.audit_log).toEqual([1, 3]);
    expect(stores.schemaItems.get("p", "b")?.audit_log).toEqual([2]);
    const history = stores.audit.history("p", "schema", "a", stores.schemaItems.get("p", "a")!.audit_log!);
    const status = (i: AuditEvent["before"]) => (i as SchemaItem | null)?.status ?? null;
    expect(history.map((e) => [e.action, e.version, status(e.before), status(e.after)])).toEqual([
      ["push_create", 1, null, "needs_review"],
      ["approve", 2, "needs_review", "approved"],
    ]);
    // Snapshots inside events do not carry the item's own log.
    expect(history[1]!.before).toEqual(a1);
    expect(history[1]!.after).toEqual(a2);
  });

  it("reuses the sequence number of an event whose transaction rolled back", async () => {
    const save = (id: string, column: string) =>
      saveChange(stores.schemaItems, stores.audit, "p", null, item(id, column), facts("push_create"));
    await stores.write(() => save("a", "c1"));
    const bad = stores.write(() => {
      save("b", "c2");
      throw new Error("boom");
    });
    await expect(bad).rejects.toThrow("boom");
    await stores.write(() => save("c", "c3"));
    expect(stores.schemaItems.get("p", "c")?.audit_log).toEqual([2]);
    expect(stores.schemaItems.get("p", "b")).toBeUndefined();
  });

  it("still reads events stored under the item, as the first layout kept them", async () => {
    await stores.close();
    const env = open({ path: dir, maxDbs: 16 });
    const legacy: AuditEvent = {
      project_id: "p",
      item_kind: "schema",
      item_id: "a",
      version: 1,
      action: "push_create",
      key_id: null,
      at: "t0",
      before: null,
      after: item("a", "c1"),
    };
    await env
      .openDB<AuditEvent, string>({ name: "audit_events" })
      .put("p\u001fschema\u001fa\u001f0000000001", legacy);
    await env.close();
    stores = openStores(dir);
    const a2 = { ...item("a", "c1"), version: 2, status: "approved" as const };
    await stores.write(() => saveChange(stores.schemaItems, stores.audit, "p", null, a2, facts("approve")));
    const log = stores.schemaItems.get("p", "a")!.audit_log!;
    expect(stores.audit.history("p", "schema", "a", log).map((e) => e.at)).toEqual(["t0", "t"]);
  });
});

describe("runs", () => {
  it("record fills id and a zone-less created_at; list is newest first and paged", async () => {
    const base = {
      source_standard: "omop_cdm_v5.4",
      target_standard: "fhir_r4",
      source_entity: "person",
      target_entity: "Patient",
      record_count: 1,
      status: "completed",
    };
    const a = await stores.runs.record("p", { ...base, created_at: "2026-03-02T10:30:00" });
    const b = await stores.runs.record("p", { ...base, id: "run_b", created_at: "2026-03-04T00:00:00" });
    const c = await stores.runs.record("p", { ...base, created_at: null });
    const d = await stores.runs.record("p", base);
    expect(a.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.crossmap_file).toBeNull();
    expect(d.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    const all = stores.runs.list("p");
    expect(all.runs.map((r) => r.id)).toEqual([d.id, b.id, a.id, c.id]);
    expect(all.total).toBe(4);
    expect(stores.runs.list("p", { limit: 2, offset: 1 }).runs.map((r) => r.id)).toEqual([b.id, a.id]);
    expect(stores.runs.list("other").total).toBe(0);
  });
  it("keeps runs recorded within the same second in recording order, newest first", async () => {
    const base = {
      source_standard: "s",
      target_standard: "t",
      source_entity: "e",
      target_entity: "E",
      record_count: 1,
      status: "completed",
      created_at: "2026-03-05T00:00:00",
    };
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await stores.runs.record("same-second", base)).id);
    expect(stores.runs.list("same-second").runs.map((r) => r.id)).toEqual(ids.reverse());
    expect(Object.keys(stores.runs.get("same-second", ids[0] as string) ?? {})).not.toContain("_order");
  });
});

describe("keys", () => {
  it("store only the hash, authenticate the secret, and stop after revocation", async () => {
    const { key, secret } = await stores.write(() => stores.keys.create("write", "p"));
    expect(secret).toMatch(/^cmk_[A-Za-z0-9_-]{43}$/);
    expect(stores.keys.get(key.id)?.hash).toBe(hashSecret(secret));
    expect(JSON.stringify(stores.keys.get(key.id))).not.toContain(secret);
    expect(stores.keys.authenticate(secret)).toMatchObject({ id: key.id, scope: "write", project_id: "p" });
    expect(stores.keys.authenticate(`${secret}x`)).toBeUndefined();
    const revoked = await stores.write(() => stores.keys.revoke(key.id));
    expect(revoked?.revoked_at).not.toBeNull();
    expect(stores.keys.authenticate(secret)).toBeUndefined();
    expect(stores.keys.list()).toEqual([revoked]);
  });
});

describe("cached lookups", () => {
  it("a key revoked through another environment stops at once, though its id was remembered", async () => {
    const { key, secret } = await stores.write(() => stores.keys.create("write", "p"));
    expect(stores.keys.authenticate(secret)?.id).toBe(key.id);
    // A second environment on the same directory stands in for the CLI in another process.
    const other = openStores(dir);
    await other.write(() => other.keys.revoke(key.id));
    await other.close();
    expect(stores.keys.authenticate(secret)).toBeUndefined();
    const next = await stores.write(() => stores.keys.create("read", "p"));
    expect(stores.keys.authenticate(next.secret)?.id).toBe(next.key.id);
    expect(stores.keys.authenticate(`${next.secret}x`)).toBeUndefined();
  });

  it("keys keep working when more secrets have authenticated than are remembered", async () => {
    const made = await stores.write(() =>
      Array.from({ length: KEY_ID_CACHE_SIZE + 2 }, () => stores.keys.create("read", "p")),
    );
    for (const { key, secret } of made) expect(stores.keys.authenticate(secret)?.id).toBe(key.id);
    for (const { key, secret } of made.slice(0, 3)) expect(stores.keys.authenticate(secret)?.id).toBe(key.id);
  });

  it("a project exists once created, also when created through another environment", async () => {
    expect(stores.projects.exists("nope")).toBe(false);
    const mine = await stores.write(() => stores.projects.create({ name: "a" }));
    expect(stores.projects.exists(mine.id)).toBe(true);
    expect(stores.projects.exists(mine.id)).toBe(true);
    const other = openStores(dir);
    const theirs = await other.write(() => other.projects.create({ name: "b" }));
    await other.close();
    expect(stores.projects.exists(theirs.id)).toBe(true);
    expect(stores.projects.exists("nope")).toBe(false);
  });
});
