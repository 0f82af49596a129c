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

describe("IdRegistry batches", () => {
  it("hands a batch's changes over per table, a key whose row came later once more with its row", () => {
    const r = new IdRegistry();
    r.idFor("person", "a");
    r.idFor("visit_occurrence", "v");
    r.claim("person", "b", 7);
    const i32 = (...n: number[]) => Int32Array.from(n);
    expect(r.blocks()).toEqual([
      { namespace: "person", keys: ["a", "b"], ids: i32(1, 2), rows: i32(0, 7) },
      { namespace: "visit_occurrence", keys: ["v"], ids: i32(1), rows: i32(0) },
    ]);
    r.commit();
    expect(r.blocks()).toEqual([]);
    // A row set in the same batch that first saw the key is in that batch's entry, not a second one.
    r.idFor("person", "c");
    r.claim("person", "c", 3);
    r.claim("person", "a", 4);
    expect(r.blocks()).toEqual([{ namespace: "person", keys: ["c", "a"], ids: i32(3, 1), rows: i32(3, 4) }]);
    r.commit();
    // Loaded back in any order, the entry with a row wins over the one that only referenced the key.
    const again = new IdRegistry();
    again.load({ namespace: "person", key: "a", id: 1, row: 4 });
    again.load({ namespace: "person", key: "a", id: 1, row: 0 });
    expect(again.claim("person", "a", 4)).toEqual({ claim: "same", id: 1 });
    expect(again.find("person", "a")).toBe(1);
    expect(again.find("person", "z")).toBeUndefined();
    expect(again.nextId("person")).toBe(2);
  });

  it("undoes a large rolled-back batch and keeps every earlier key findable", () => {
    const r = new IdRegistry(16);
    for (let i = 0; i < 5_000; i++) r.idFor("measurement", `k${i}`);
    r.commit();
    for (let i = 5_000; i < 20_000; i++) r.idFor("measurement", `k${i}`);
    for (let i = 0; i < 100; i++) r.claim("measurement", `k${i}`, 9);
    r.rollback();
    expect(r.size).toBe(5_000);
    for (let i = 0; i < 5_000; i++) expect(r.find("measurement", `k${i}`)).toBe(i + 1);
    expect(r.find("measurement", "k5000")).toBeUndefined();
    expect(r.claim("measurement", "k0", 9)).toEqual({ claim: "new", id: 1 });
    expect(r.idFor("measurement", "new")).toBe(5_001);
  });
});
