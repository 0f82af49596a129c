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

  it("hands out a message whose sender waits for it before the others that are ready", () => {
    const o = new KeyedOrder<string>();
    const items = [o.add(["a"], "a1"), o.add(["b"], "b1"), o.add(["c"], "c1", true), o.add(["d"], "d1")];
    for (const i of items) o.kept(i);
    expect(drain(o)).toEqual(["c1", "a1", "b1", "d1"]);
  });

  it("hurries the messages ahead of an urgent one on its keys, and theirs on their other keys", () => {
    const o = new KeyedOrder<string>();
    const items = [
      o.add(["x"], "x1"),
      o.add(["b"], "b1"),
      o.add(["a"], "a1"),
      o.add(["a", "b"], "merge"),
      o.add(["y"], "y1"),
      o.add(["a"], "a2", true),
    ];
    for (const i of items) o.kept(i);
    expect(items.map((i) => i.urgent)).toEqual([false, true, true, true, false, true]);
    // b1 and a1 are ready (urgent first, in the order they became so); then x1 and y1.
    const first = [o.take()!, o.take()!];
    expect(first.map((q) => q.value).sort()).toEqual(["a1", "b1"]);
    expect(drain(o)).toEqual(["x1", "y1"]);
    for (const q of first) o.done(q);
    const merge = o.take()!;
    expect(merge.value).toBe("merge");
    o.done(merge);
    expect(drain(o)).toEqual(["a2"]);
  });

  it("keeps arrival order on a key where urgent and other messages mix: all ahead of an urgent one go first", () => {
    const o = new KeyedOrder<string>();
    const items = Array.from({ length: 1000 }, (_, i) => o.add(["p"], `p${i}`, i % 10 === 9));
    items.push(o.add(["q"], "q0"));
    for (const i of items) o.kept(i);
    expect(items.slice(0, 1000).every((i) => i.urgent)).toBe(true);
    const out: string[] = [];
    for (let q = o.take(); q; q = o.take()) {
      out.push(q.value);
      o.done(q);
    }
    expect(out).toEqual([...items.slice(0, 1000).map((i) => i.value), "q0"]);
  });
});
