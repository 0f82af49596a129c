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
function harness(concurrency: number) {
  const log: string[] = [];
  const pending = new Map<string, { resolve: (d: Delivery<string>) => void; reject: (e: unknown) => void }>();
  const d = new Dispatcher<string>({
    concurrency,
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
    await d.submit(bundle("c", ["Patient/1"]));
    // Behind `c` in line: it waits too, so the server gets everything in input order where it matters.
    const last = d.submit(bundle("d", ["Patient/3"]));
    expect(log).toEqual(["start a", "start b"]);
    await finish("b");
    expect(log).toEqual(["start a", "start b", "done b"]);
    await finish("a");
    expect(log).toEqual(["start a", "start b", "done b", "done a", "start c", "start d"]);
    await last;
    await finish("c");
    await finish("d");
    await d.drain();
    expect(log.slice(-2)).toEqual(["done c", "done d"]);
  });

  it("holds the pipeline back while the queue is full", async () => {
    const { d, finish } = harness(1);
    await d.submit(bundle("a", []));
    let returned = false;
    const second = d.submit(bundle("b", [])).then(() => {
      returned = true;
    });
    await Promise.resolve();
    expect(returned).toBe(false);
    await finish("a");
    await second;
    expect(returned).toBe(true);
    await finish("b");
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
