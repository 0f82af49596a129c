// The cross-map queue takes calls in turn per client and keeps heavy calls off the last free worker.
import { describe, expect, it } from "vitest";
import { FairQueue } from "../../src/server/fair-queue.js";

const call = (client: string, name: string, heavy = false) => ({ client, heavy, name });

describe("FairQueue", () => {
  it("takes one call per client in turn, each client's calls in their order", () => {
    const q = new FairQueue<ReturnType<typeof call>>();
    for (const c of [
      call("a", "a1"),
      call("a", "a2"),
      call("a", "a3"),
      call("b", "b1"),
      call("c", "c1"),
      call("b", "b2"),
    ])
      q.push(c);
    const order: string[] = [];
    for (let c = q.take(true); c; c = q.take(true)) order.push(c.name);
    expect(order).toEqual(["a1", "b1", "c1", "a2", "b2", "a3"]);
    expect(q.length).toBe(0);
  });

  it("passes over a client whose next call is heavy when heavy calls may not run", () => {
    const q = new FairQueue<ReturnType<typeof call>>();
    for (const c of [call("a", "a1", true), call("a", "a2"), call("b", "b1", true), call("c", "c1")])
      q.push(c);
    expect(q.take(false)?.name).toBe("c1");
    expect(q.take(false)).toBeUndefined();
    expect(q.take(true)?.name).toBe("a1");
    expect(q.take(false)?.name).toBe("a2");
    expect(q.drain().map((c) => c.name)).toEqual(["b1"]);
  });
});
