import { describe, expect, it } from "vitest";
import { KeyedOrder } from "../../src/intake/order.js";

function drain(o: KeyedOrder<string>): string[] {
  const out: string[] = [];
  for (let q = o.take(); q; q = o.take()) out.push(q.value);
  return out;
}

describe("KeyedOrder", () => {
  it("hands out one message per key at a time, keys in parallel, only once kept", () => {
    const o = new KeyedOrder<string>();
    const a1 = o.add(["a"], "a1");
    const a2 = o.add(["a"], "a2");
    const b1 = o.add(["b"], "b1");
    expect(drain(o)).toEqual([]);
    o.kept(a2);
    o.kept(b1);
    expect(drain(o)).toEqual(["b1"]);
    o.kept(a1);
    const first = o.take();
    expect(first?.value).toBe("a1");
    expect(drain(o)).toEqual([]);
    o.done(first!);
    expect(drain(o)).toEqual(["a2"]);
    expect(o.size).toBe(2);
  });

  it("holds a message with two keys until it heads both queues, and the messages after it too", () => {
    const o = new KeyedOrder<string>();
    const items = [
      o.add(["a"], "a1"),
      o.add(["b"], "b1"),
      o.add(["a", "b"], "merge"),
      o.add(["b"], "b2"),
      o.add(["c"], "c1"),
    ];
    for (const i of items) o.kept(i);
    const ready = [o.take()!, o.take()!, o.take()!];
    expect(ready.map((q) => q.value)).toEqual(["a1", "b1", "c1"]);
    o.done(ready[0]!);
    expect(drain(o)).toEqual([]);
    o.done(ready[1]!);
    const merge = o.take()!;
    expect([merge.value, drain(o)]).toEqual(["merge", []]);
    o.done(merge);
    expect(drain(o)).toEqual(["b2"]);
  });

  it("lets the next message go when one is cancelled (a resend, a failed keep)", () => {
    const o = new KeyedOrder<string>();
    const a1 = o.add(["a"], "a1");
    const a2 = o.add(["a"], "a2");
    o.kept(a2);
    o.cancel(a1);
    expect(drain(o)).toEqual(["a2"]);
  });
});
