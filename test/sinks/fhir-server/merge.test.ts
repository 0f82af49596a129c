import { describe, expect, it } from "vitest";
import type { Outgoing } from "../../../src/sinks/fhir-server/bundles.js";
import {
  type MessageTransaction,
  searches,
  TransactionMerger,
} from "../../../src/sinks/fhir-server/merge.js";

/** A message's transaction writing `keys` (one entry each), with fullUrls `urn:uuid:<key>` unless given. */
const message = (id: string, keys: string[], fullUrls?: string[]): MessageTransaction<string> => ({
  outgoing: {
    type: "transaction",
    id,
    entries: keys.map((k) => `{"request":{"method":"PUT","url":"${k}"}}`),
    requests: keys.map((k) => `PUT ${k}`),
    origins: keys.map(() => id),
    keys,
  },
  fullUrls: fullUrls ?? keys.map((k) => `urn:uuid:${k}`),
});

/** What each ready transaction is: its messages' ids. */
const ids = (ready: Outgoing<string>[]) => ready.map((o) => (o.parts ?? [o]).map((p) => p.id).join("+"));

describe("TransactionMerger", () => {
  it("merges messages up to the message bound, entries and keys in input order", () => {
    const m = new TransactionMerger<string>({ messages: 3, entries: 100 });
    expect(ids(m.add(message("a", ["Patient/1", "Encounter/1"])))).toEqual([]);
    expect(ids(m.add(message("b", ["Patient/2"])))).toEqual([]);
    const ready = m.add(message("c", ["Patient/3"]));
    expect(ids(ready)).toEqual(["a+b+c"]);
    const [merged] = ready as [Outgoing<string>];
    expect(merged.id).toBeUndefined();
    expect(merged.type).toBe("transaction");
    expect(merged.keys).toEqual(["Patient/1", "Encounter/1", "Patient/2", "Patient/3"]);
    expect(merged.requests).toEqual(["PUT Patient/1", "PUT Encounter/1", "PUT Patient/2", "PUT Patient/3"]);
    expect(merged.origins).toEqual(["a", "a", "b", "c"]);
    expect(merged.entries).toHaveLength(4);
    expect(m.drain()).toEqual([]);
  });

  it("with one transaction open, starts the next at a message sharing a key or a fullUrl with it", () => {
    const m = new TransactionMerger<string>({ messages: 10, entries: 100, open: 1 });
    m.add(message("a", ["Patient/1", "Encounter/1"]));
    m.add(message("b", ["Patient/2"]));
    expect(ids(m.add(message("c", ["Encounter/1", "Observation/9"])))).toEqual(["a+b"]);
    // A conditional write's key, or ifNoneExist's `Type?query`, counts as any other.
    m.add(message("d", ["Patient?identifier=s|1"]));
    expect(ids(m.add(message("e", ["Patient?identifier=s|1"])))).toEqual(["c+d"]);
    // The same fullUrl in two messages (a Bundle's fullUrls are unique), though what they write differs.
    expect(ids(m.add(message("f", ["Patient/7"], ["urn:uuid:e"])))).toEqual([]);
    expect(ids(m.add(message("g", ["Patient/8"], ["urn:uuid:e"])))).toEqual(["e+f"]);
    expect(ids(m.drain())).toEqual(["g"]);
  });

  it("puts a message in the first transaction after every one it shares something with", () => {
    const m = new TransactionMerger<string>({ messages: 10, entries: 100 });
    m.add(message("a1", ["Patient/A", "Encounter/A1"]));
    m.add(message("a2", ["Patient/A", "Encounter/A2"]));
    m.add(message("a3", ["Patient/A", "Encounter/A3"]));
    // b1 shares nothing: it joins the first; b2 shares Patient/B with b1 only: the second.
    m.add(message("b1", ["Patient/B"]));
    m.add(message("b2", ["Patient/B", "Practitioner/1"]));
    // c shares Practitioner/1 (second) and Encounter/A3 (third): after both, so a fourth.
    m.add(message("c", ["Practitioner/1", "Encounter/A3"], ["urn:uuid:c"]));
    // d shares Practitioner/1 with the second and the fourth: after the fourth, so a fifth.
    m.add(message("d", ["Patient/D", "Practitioner/1"]));
    // e shares Patient/B with the second only: the third, the first after it, though it was started earlier.
    m.add(message("e", ["Patient/B", "Encounter/B9"]));
    expect(ids(m.drain())).toEqual(["a1+b1", "a2+b2", "a3+e", "c", "d"]);
  });

  it("sends the oldest transaction when one more would be open, and the oldest ones that are full", () => {
    const m = new TransactionMerger<string>({ messages: 2, entries: 100, open: 2 });
    expect(ids(m.add(message("a1", ["Patient/A"])))).toEqual([]);
    expect(ids(m.add(message("a2", ["Patient/A"])))).toEqual([]);
    expect(ids(m.add(message("a3", ["Patient/A"])))).toEqual(["a1"]);
    // b joins a2's transaction, which is then full, and goes with the one ahead of it; a3's stays.
    expect(ids(m.add(message("b", ["Patient/B"])))).toEqual(["a2+b"]);
    expect(ids(m.drain())).toEqual(["a3"]);
  });

  it("keeps a transaction under the entry bound; a larger message goes alone, its Bundle as it was", () => {
    const m = new TransactionMerger<string>({ messages: 10, entries: 4, open: 1 });
    m.add(message("a", ["A/1", "A/2"]));
    expect(ids(m.add(message("b", ["B/1", "B/2", "B/3"])))).toEqual(["a"]);
    expect(ids(m.add(message("c", ["C/1"])))).toEqual(["b+c"]);
    const big = m.add(message("d", ["D/1", "D/2", "D/3", "D/4", "D/5"]));
    expect(ids(big)).toEqual(["d"]);
    expect(big[0]?.id).toBe("d");
    expect(big[0]?.parts).toBeUndefined();
  });

  it("with a bound of one message, hands each message on at once, unchanged", () => {
    const m = new TransactionMerger<string>({ messages: 1, entries: 100 });
    const a = message("a", ["Patient/1"]);
    expect(m.add(a)).toEqual([a.outgoing]);
    expect(m.drain()).toEqual([]);
  });

  it("sends alone a message that writes or refers to a resource by a search, after those before it", () => {
    const m = new TransactionMerger<string>({ messages: 10, entries: 100 });
    m.add(message("a", ["Patient/1"]));
    m.add(message("a2", ["Patient/1"]));
    expect(ids(m.add({ ...message("b", ["Observation/1"]), alone: true }))).toEqual(["a", "a2", "b"]);
    const plain = message("c", ["Observation/2"]).outgoing;
    expect(searches(plain)).toBe(false);
    expect(
      searches({ ...plain, entries: ['{"note":"Patient?x","subject":{"reference":"urn:uuid:1"}}'] }),
    ).toBe(false);
    expect(searches({ ...plain, entries: ['{"subject":{"reference":"Patient?identifier=s|1"}}'] })).toBe(
      true,
    );
    expect(searches({ ...plain, keys: ["Patient?identifier=s|1"] })).toBe(true);
  });
});
