import { describe, expect, it } from "vitest";
import type { Outgoing } from "../../../src/sinks/fhir-server/bundles.js";
import { Dispatcher } from "../../../src/sinks/fhir-server/dispatcher.js";
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
