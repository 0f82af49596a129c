import { describe, expect, it } from "vitest";
import type { Outgoing } from "../../../src/sinks/fhir-server/bundles.js";
import { Dispatcher } from "../../../src/sinks/fhir-server/dispatcher.js";
import { MergingDispatcher } from "../../../src/sinks/fhir-server/merging-dispatcher.js";
import type { Delivery } from "../../../src/sinks/fhir-server/sender.js";

const bundle = (id: string, keys: string[]): Outgoing<string> => ({
  type: "transaction",
  id,
  entries: keys.map(() => "{}"),
  requests: keys,
  origins: keys.map(() => id),
  keys,
});

/** A delivery that finishes when the test says so, logging starts and ends. */
function harness(concurrency: number, window?: number) {
  const log: string[] = [];
  const pending = new Map<string, { resolve: (d: Delivery<string>) => void; reject: (e: unknown) => void }>();
  const d = new Dispatcher<string>({
    concurrency,
    ...(window !== undefined ? { window } : {}),
    deliver: (out) => {
      log.push(`start ${out.id}`);
      return new Promise((resolve, reject) => pending.set(out.id as string, { resolve, reject }));
    },
    delivered: (out) => log.push(`done ${out.id}`),
  });
  const finish = async (id: string) => {
    pending.get(id)?.resolve({ accepted: 1, rejected: [] });
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { d, log, finish, pending };
}

describe("Dispatcher", () => {
  it("sends Bundles that write different resources at once, and holds one that writes a resource in flight", async () => {
    const { d, log, finish } = harness(4);
    await d.submit(bundle("a", ["Patient/1", "Encounter/1"]));
    await d.submit(bundle("b", ["Patient/2"]));
    await d.submit(bundle("c", ["Patient/1", "Observation/7"]));
    // Nothing in common with a Bundle before it: it goes past `c`, which waits for `a`.
    await d.submit(bundle("d", ["Patient/3"]));
    // Nothing in flight writes Observation/7, but `c`, before it in line, does: it waits behind `c`.
    await d.submit(bundle("e", ["Observation/7"]));
    expect(log).toEqual(["start a", "start b", "start d"]);
    await finish("b");
    expect(log).toEqual(["start a", "start b", "start d", "done b"]);
    await finish("a");
    expect(log.slice(4)).toEqual(["done a", "start c"]);
    await finish("d");
    await finish("c");
    expect(log.slice(6)).toEqual(["done d", "done c", "start e"]);
    await finish("e");
    await d.drain();
    expect(log.at(-1)).toBe("done e");
  });

  it("starts waiting Bundles in input order once their keys are free", async () => {
    const { d, log, finish } = harness(4);
    await d.submit(bundle("a", ["Patient/1"]));
    await d.submit(bundle("b", ["Patient/1", "Encounter/1"]));
    await d.submit(bundle("c", ["Encounter/1"]));
    await d.submit(bundle("d", ["Patient/1"]));
    expect(log).toEqual(["start a"]);
    await finish("a");
    expect(log).toEqual(["start a", "done a", "start b"]);
    await finish("b");
    expect(log.slice(3)).toEqual(["done b", "start c", "start d"]);
    await finish("c");
    await finish("d");
    await d.drain();
  });

  it("holds the pipeline back while the queue is full", async () => {
    const { d, finish } = harness(1, 2);
    await d.submit(bundle("a", []));
    await d.submit(bundle("b", []));
    let returned = false;
    const third = d.submit(bundle("c", [])).then(() => {
      returned = true;
    });
    await Promise.resolve();
    expect(returned).toBe(false);
    await finish("a");
    await third;
    expect(returned).toBe(true);
    await finish("b");
    await finish("c");
    await d.drain();
  });

  it("stops at the first failure: what is in flight finishes, the next submit and drain throw it", async () => {
    const { d, log, pending, finish } = harness(2);
    await d.submit(bundle("a", []));
    await d.submit(bundle("b", []));
    pending.get("a")?.reject(new Error("server gone"));
    await finish("x");
    await expect(d.submit(bundle("c", []))).rejects.toThrow("server gone");
    const drained = d.drain();
    await finish("b");
    await expect(drained).rejects.toThrow("server gone");
    expect(log).toEqual(["start a", "start b", "done b"]);
  });

  it("discards what was not sent, counting its entries", async () => {
    const { d, finish } = harness(1);
    await d.submit(bundle("a", ["x"]));
    void d.submit(bundle("b", ["y", "z"]));
    expect(d.discard()).toBe(2);
    await finish("a");
    await d.drain();
  });
});

/** A message's transaction: one entry per key; fullUrls `urn:uuid:<key>` unless given. */
const message = (id: string, keys: string[]) => bundle(id, keys);
const urls = (keys: string[]) => ({ fullUrls: keys.map((k) => `urn:uuid:${k}`) });
/** Lets the dispatcher's deferred start run (it waits for the submits of one turn of the event loop). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** As `harness`, merging: each request named by its messages' ids, `a+b`. */
function merging(concurrency: number, bounds: { messages: number; entries: number }, window?: number) {
  const log: string[] = [];
  const sent: Outgoing<string>[] = [];
  const pending = new Map<string, (d: Delivery<string>) => void>();
  const name = (out: Outgoing<string>) => (out.parts ?? [out]).map((p) => p.id).join("+");
  const d = new MergingDispatcher<string>({
    concurrency,
    merge: bounds,
    ...(window !== undefined ? { window } : {}),
    deliver: (out) => {
      log.push(`start ${name(out)}`);
      sent.push(out);
      return new Promise((resolve) => pending.set(name(out), resolve));
    },
    delivered: (out) => log.push(`done ${name(out)}`),
  });
  const finish = async (id: string) => {
    pending.get(id)?.({ accepted: 1, rejected: [] });
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { d, log, sent, finish };
}

describe("MergingDispatcher", () => {
  it("sends the ready messages as one transaction when a request can start; one sharing a key waits for its answer", async () => {
    const { d, log, sent, finish } = merging(1, { messages: 3, entries: 100 });
    await d.submit(message("a", ["Patient/1"]), urls(["Patient/1"]));
    await d.submit(message("b", ["Patient/2"]), urls(["Patient/2"]));
    await d.submit(message("c", ["Patient/1", "Encounter/1"]), urls(["Patient/1", "Encounter/1"]));
    await d.submit(message("d", ["Patient/3"]), urls(["Patient/3"]));
    await d.submit(message("e", ["Patient/4"]), urls(["Patient/4"]));
    expect(log).toEqual([]);
    await turn();
    // `c` waits for `a`; the next ready ones fill the transaction up to 3 messages, in input order.
    expect(log).toEqual(["start a+b+d"]);
    const [first] = sent as [Outgoing<string>];
    expect(first.type).toBe("transaction");
    expect(first.id).toBeUndefined();
    expect(first.keys).toEqual(["Patient/1", "Patient/2", "Patient/3"]);
    expect(first.origins).toEqual(["a", "b", "d"]);
    await finish("a+b+d");
    expect(log.slice(1)).toEqual(["done a+b+d", "start c+e"]);
    expect((sent[1] as Outgoing<string>).keys).toEqual(["Patient/1", "Encounter/1", "Patient/4"]);
    await finish("c+e");
    await d.drain();
  });

  it("holds a message behind an earlier waiting one it shares a key with, though nothing in flight writes it", async () => {
    const { d, log, finish } = merging(4, { messages: 3, entries: 100 });
    await d.submit(message("a", ["Patient/1"]), urls(["a"]));
    await d.submit(message("c", ["Patient/1", "Observation/7"]), urls(["c"]));
    await d.submit(message("e", ["Observation/7"]), urls(["e"]));
    await turn();
    expect(log).toEqual(["start a"]);
    await finish("a");
    expect(log.slice(1)).toEqual(["done a", "start c"]);
    await finish("c");
    expect(log.slice(3)).toEqual(["done c", "start e"]);
    await finish("e");
    await d.drain();
  });

  it("discards what was not sent, counting its entries, and never starts it once what it waited for answers", async () => {
    const { d, log, finish } = merging(1, { messages: 3, entries: 100 });
    await d.submit(message("a", ["Patient/1"]), urls(["a"]));
    await turn();
    await d.submit(message("b", ["Patient/1", "Encounter/1"]), urls(["b"]));
    await d.submit(message("c", ["Patient/2"]), urls(["c"]));
    expect(d.discard()).toBe(3);
    await finish("a");
    await turn();
    await d.drain();
    expect(log).toEqual(["start a", "done a"]);
  });

  it("keeps several transactions in flight, each taking what is ready when it starts", async () => {
    const { d, log, finish } = merging(2, { messages: 2, entries: 100 });
    for (const id of ["a", "b", "c", "d", "e"]) await d.submit(message(id, [`Patient/${id}`]), urls([id]));
    await turn();
    expect(log).toEqual(["start a+b", "start c+d"]);
    await finish("c+d");
    expect(log.slice(2)).toEqual(["done c+d", "start e"]);
    await finish("a+b");
    await finish("e");
    await d.drain();
  });

  it("never merges past the entry bound or a fullUrl already taken; a message submitted as not mergeable goes alone", async () => {
    const { d, log, finish } = merging(1, { messages: 10, entries: 3 });
    await d.submit(message("a", ["Patient/1", "Encounter/1"]), urls(["Patient/1", "Encounter/1"]));
    // Two entries more than the bound allows with `a`: `b` waits; `c` (one entry) fits.
    await d.submit(message("b", ["Patient/2", "Encounter/2"]), urls(["Patient/2", "Encounter/2"]));
    await d.submit(message("c", ["Patient/3"]), urls(["Patient/3"]));
    // Shares a fullUrl with `b` (not a key): not in `b`'s transaction.
    await d.submit(message("d", ["Patient/4"]), { fullUrls: ["urn:uuid:Patient/2"] });
    await d.submit(message("e", ["Patient/5"]));
    await d.submit(message("f", ["Patient/6", "Patient/7", "Patient/8", "Patient/9"]), urls(["x"]));
    await turn();
    expect(log).toEqual(["start a+c"]);
    await finish("a+c");
    expect(log.slice(1)).toEqual(["done a+c", "start b"]);
    await finish("b");
    expect(log.slice(3)).toEqual(["done b", "start d"]);
    await finish("d");
    expect(log.slice(5)).toEqual(["done d", "start e"]);
    await finish("e");
    // Larger than the bound: alone, as it is.
    expect(log.slice(7)).toEqual(["done e", "start f"]);
    await finish("f");
    await d.drain();
  });

  it("holds the pipeline back while as many messages as the window wait, until one starts", async () => {
    const { d, log, finish } = merging(1, { messages: 2, entries: 100 }, 2);
    await d.submit(message("a", ["Patient/1"]), urls(["a"]));
    let returned = 0;
    const second = d.submit(message("b", ["Patient/1"]), urls(["b"])).then(() => {
      returned++;
    });
    await Promise.resolve();
    expect(returned).toBe(0);
    // `a` starts: one message waits, there is room.
    await turn();
    await second;
    expect(log).toEqual(["start a"]);
    expect(returned).toBe(1);
    // `b` waits for `a`: with `c` the window is full again until `b` starts.
    const third = d.submit(message("c", ["Patient/1"]), urls(["c"])).then(() => {
      returned++;
    });
    await turn();
    expect(returned).toBe(1);
    await finish("a");
    await third;
    expect(returned).toBe(2);
    expect(log).toEqual(["start a", "done a", "start b"]);
    await finish("b");
    await turn();
    await finish("c");
    await d.drain();
  });
});
