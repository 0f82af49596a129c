// Durability: every acknowledged decision is still there after the server and LMDB are restarted.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Harness, itemPath, seedConcept, seedSchema, startHarness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

it("restarting keeps every acknowledged decision, its audit trail and the keys", async () => {
  const schema = await seedSchema(
    h,
    Array.from({ length: 30 }, (_, i) => ({
      id: `sm_${i}`,
      source_column: `c${i}`,
      target_table: "t",
      target_column: "c",
    })),
  );
  const [concept] = await seedConcept(h, [{ id: "cm_1", source_code: "M", target_concept_id: 8507 }]);
  const writer = await h.key("write");
  // Fire the decisions concurrently, so several share one LMDB commit, and only count acknowledged ones.
  const actions = ["approve", "reject", "override"] as const;
  const replies = await Promise.all(
    schema.map((id, i) => {
      const action = actions[i % 3]!;
      return h.request("POST", `${itemPath(h, "schema", id)}/${action}`, {
        key: writer,
        ...(action === "override" ? { body: { target_table: "obs", target_column: `v${i}` } } : {}),
      });
    }),
  );
  expect(replies.every((r) => r.status === 200)).toBe(true);
  const conceptReply = await h.request("POST", `${itemPath(h, "concept", concept!)}/reject`, { key: writer });
  const before = new Map(replies.map((r) => [(r.json as { id: string }).id, r.json]));

  await h.restart();

  for (const id of schema) {
    const r = await h.request("GET", itemPath(h, "schema", id), { key: writer });
    expect(r.json).toEqual(before.get(id));
  }
  expect((await h.request("GET", itemPath(h, "concept", concept!))).json).toEqual(conceptReply.json);
  const history = (await h.request("GET", `${itemPath(h, "schema", "sm_2")}/history`)).json as {
    events: { action: string }[];
  };
  expect(history.events.map((e) => e.action)).toEqual(["push_create", "override"]);
});
