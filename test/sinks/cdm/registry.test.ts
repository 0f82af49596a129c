// The id registry: small integer ids per table, the same for the same key after a reload, and a batch's
// changes kept or forgotten with its transaction.
import { describe, expect, it } from "vitest";
import { IdRegistry, type RegistryEntry } from "../../../src/sinks/cdm/registry.js";

describe("IdRegistry", () => {
  it("numbers each table's keys from 1 in order of first sight, and gives a reloaded key its old id", () => {
    const r = new IdRegistry();
    expect([
      r.idFor("person", "a"),
      r.idFor("person", "b"),
      r.idFor("visit_occurrence", "a"),
      r.idFor("person", "a"),
    ]).toEqual([1, 2, 1, 1]);
    expect(r.claim("person", "b", 77)).toEqual({ claim: "new", id: 2 });
    const saved: RegistryEntry[] = [...r.changes().added];
    r.commit();
    expect(saved).toEqual([
      { namespace: "person", key: "a", id: 1, row: 0 },
      { namespace: "person", key: "b", id: 2, row: 77 },
      { namespace: "visit_occurrence", key: "a", id: 1, row: 0 },
    ]);
    const again = new IdRegistry();
    for (const e of saved) again.load(e);
    expect([again.idFor("person", "b"), again.idFor("person", "c"), again.idFor("person", "a")]).toEqual([
      2, 3, 1,
    ]);
    expect(again.claim("person", "b", 77)).toEqual({ claim: "same", id: 2 });
    expect(again.claim("person", "b", 78)).toEqual({ claim: "differs", id: 2 });
    // A key only referenced so far gets its row now: a change to a known entry.
    expect(again.claim("person", "a", 5)).toEqual({ claim: "new", id: 1 });
    expect(again.changes()).toEqual({
      added: [{ namespace: "person", key: "c", id: 3, row: 0 }],
      rowsSet: [{ namespace: "person", key: "a", id: 1, row: 5 }],
    });
  });

  it("forgets a rolled-back batch: its keys and the ids it took", () => {
    const r = new IdRegistry();
    r.idFor("person", "a");
    r.commit();
    r.idFor("person", "b");
    r.claim("person", "a", 9);
    r.rollback();
    expect(r.changes()).toEqual({ added: [], rowsSet: [] });
    expect(r.claim("person", "a", 9)).toEqual({ claim: "new", id: 1 });
    expect(r.idFor("person", "c")).toBe(2);
  });

  it("starts new ids above those a table already holds", () => {
    const r = new IdRegistry();
    r.reserve("observation_period", 40);
    expect(r.idFor("observation_period", "x")).toBe(41);
  });

  it("keeps a million keys apart", () => {
    const r = new IdRegistry();
    for (let i = 0; i < 1_000_000; i++)
      r.idFor("measurement", String(4_000_000_000_000_000_000n + BigInt(i)));
    r.commit();
    expect(r.size).toBe(1_000_000);
    expect(r.idFor("measurement", "4000000000000999999")).toBe(1_000_000);
    expect(r.idFor("measurement", "4000000000000000000")).toBe(1);
  });
});
