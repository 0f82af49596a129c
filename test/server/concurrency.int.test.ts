// Two reviewers, one item: concurrent decisions against the same version never silently overwrite.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Harness, itemPath, seedConcept, seedSchema, startHarness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

it("two concurrent overrides with the same If-Match: exactly one 200 and one 412", async () => {
  const ids = await seedSchema(
    h,
    Array.from({ length: 20 }, (_, i) => ({
      id: `sm_${i}`,
      source_column: `c${i}`,
      target_table: "t",
      target_column: "c",
    })),
  );
  const [alice, bob] = [await h.key("write"), await h.key("write")];
  for (const id of ids) {
    const send = (key: string, column: string) =>
      h.request("POST", `${itemPath(h, "schema", id)}/override`, {
        key,
        headers: { "if-match": '"1"' },
        body: { target_table: "person", target_column: column },
      });
    const results = await Promise.all([send(alice, "by_alice"), send(bob, "by_bob")]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 412]);
    const winner = results.find((r) => r.status === 200)!.json as { target_column: string; version: number };
    expect(winner.version).toBe(2);
    // The stored item is the winner's, and the history has exactly one decision.
    const stored = (await h.request("GET", itemPath(h, "schema", id))).json;
    expect(stored).toMatchObject({ target_column: winner.target_column, version: 2 });
    const history = (await h.request("GET", `${itemPath(h, "schema", id)}/history`)).json as {
      events: unknown[];
    };
    expect(history.events).toHaveLength(2);
  }
});

it("without If-Match, concurrent decisions are serialised and every one is audited", async () => {
  const [id] = await seedConcept(h, [{ id: "cm_busy", source_code: "X", target_concept_id: 1 }]);
  const replies = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      h.request("POST", `${itemPath(h, "concept", id!)}/override`, { body: { target_concept_id: 100 + i } }),
    ),
  );
  expect(replies.every((r) => r.status === 200)).toBe(true);
  expect(replies.map((r) => (r.json as { version: number }).version).sort((a, b) => a - b)).toEqual([
    2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
  ]);
  const history = (await h.request("GET", `${itemPath(h, "concept", id!)}/history`)).json as {
    events: unknown[];
  };
  expect(history.events).toHaveLength(11);
});
