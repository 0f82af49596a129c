// The in-memory mirror of a project's items: built from a scan, then kept current from the audit log,
// whoever wrote (here a second handle on the same environment, as the CLI is to the server).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { saveChange } from "../../src/store/changes.js";
import { openStores, type Stores } from "../../src/store/env.js";
import { compareKeys } from "../../src/store/mirror.js";
import type { SchemaItem } from "../../src/store/types.js";

let dir: string;
let stores: Stores;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "crossmap-mirror-"));
  stores = openStores(dir);
});
afterEach(async () => {
  await stores.close();
  rmSync(dir, { recursive: true, force: true });
});

const item = (id: string, version = 1, status: SchemaItem["status"] = "needs_review"): SchemaItem => ({
  id,
  source_table: "t",
  source_column: id,
  target_table: null,
  target_column: null,
  confidence: null,
  status,
  version,
  created_at: "x",
  updated_at: "x",
  reviewed_at: null,
});

const save = (s: Stores, project: string, before: SchemaItem | null, after: SchemaItem) =>
  s.write(() =>
    saveChange(s.schemaItems, s.audit, project, before, after, {
      item_kind: "schema",
      action: before ? "approve" : "push_create",
      key_id: null,
      reviewer: null,
      at: "x",
    }),
  );

it("follows changes and new items of its project only, in LMDB's key order", async () => {
  for (const id of ["b", "d"]) await save(stores, "p", null, item(id));
  const mirror = await stores.mirrors.schema.of("p");
  expect(mirror.items().map((i) => i.id)).toEqual(["b", "d"]);
  const generation = mirror.generation;

  const other = openStores(dir);
  await save(other, "p", item("b"), item("b", 2, "approved"));
  await save(other, "p", null, item("a"));
  await save(other, "p", null, item("c"));
  await save(other, "q", null, item("e"));
  await other.close();

  const same = await stores.mirrors.schema.of("p");
  expect(same).toBe(mirror);
  expect(same.items().map((i) => [i.id, i.version, i.status])).toEqual([
    ["a", 1, "needs_review"],
    ["b", 2, "approved"],
    ["c", 1, "needs_review"],
    ["d", 1, "needs_review"],
  ]);
  expect(mirror.generation).toBe(generation + 3);
  expect(same.items().every((i) => i.audit_log === undefined)).toBe(true);
  expect((await stores.mirrors.schema.of("q")).items().map((i) => i.id)).toEqual(["e"]);
});

it("compares keys by code point, as LMDB orders their UTF-8 bytes", () => {
  const keys = ["\u{1F600}", "\uFF01", "b", "a", "ab", "\u00e9"];
  const bytes = [...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
  expect([...keys].sort(compareKeys)).toEqual(bytes);
  expect(bytes).toEqual(["a", "ab", "b", "\u00e9", "\uFF01", "\u{1F600}"]);
});

it("reads a large project in chunks, in order, and stays current after a change", async () => {
  const ids = Array.from({ length: 4100 }, (_, i) => `i${String(i).padStart(5, "0")}`);
  await stores.write(() => {
    for (const id of ids) stores.schemaItems.put("big", item(id));
  });
  stores.mirrors.schema.warm("big");
  const mirror = await stores.mirrors.schema.of("big");
  expect(mirror.items().map((i) => i.id)).toEqual(ids);
  await save(stores, "big", item("i00002"), item("i00002", 2, "rejected"));
  expect((await stores.mirrors.schema.of("big")).items()[2]).toMatchObject({
    id: "i00002",
    status: "rejected",
  });
});

it("takes this process's own changes at their commit, without reading them back from the log", async () => {
  await save(stores, "p", null, item("a"));
  const mirror = await stores.mirrors.schema.of("p");
  const get = stores.audit.get.bind(stores.audit);
  let reads = 0;
  stores.audit.get = (seq) => {
    reads++;
    return get(seq);
  };
  await save(stores, "p", item("a"), item("a", 2, "approved"));
  await save(stores, "p", null, item("b"));
  expect((await stores.mirrors.schema.of("p")).items().map((i) => [i.id, i.version])).toEqual([
    ["a", 2],
    ["b", 1],
  ]);
  expect(reads).toBe(0);
  // An older version arriving late (the same change seen both ways) never replaces a newer one.
  mirror.applyOwn(1, item("a", 1));
  expect(mirror.items()[0]!.version).toBe(2);
});
