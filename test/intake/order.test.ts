import { describe, expect, it } from "vitest";
import { KeyedOrder, type Queued } from "../../src/intake/order.js";

function drain(o: KeyedOrder<string>): string[] {
  const out: string[] = [];
  for (let q = o.take(); q; q = o.take()) out.push(q.value);
  return out;
}

describe("KeyedOrder", () => {
  it("hands out a key's messages in order, keys in parallel, only once kept; the next of a key behind the one out", () => {
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
    expect([first?.value, first?.after]).toEqual(["a1", undefined]);
    // a1 is out: a2 may go too, behind it (on its thread).
    const second = o.take();
    expect(second?.value).toBe("a2");
    expect(second?.after).toBe(first);
    expect(drain(o)).toEqual([]);
    o.done(first!);
    o.done(second!);
    expect(o.size).toBe(1);
  });

  it("lets a message kept after the one ahead went out go behind it, and the one behind a cancelled one", () => {
    const o = new KeyedOrder<string>();
    const [a1, a2, a3, a4] = ["a1", "a2", "a3", "a4"].map((v) => o.add(["a"], v)) as Queued<string>[];
    o.kept(a1!);
    const first = o.take()!;
    expect(drain(o)).toEqual([]);
    o.kept(a2!);
    expect(o.take()).toBe(a2);
    expect(a2!.after).toBe(a1);
    // a3 never kept (a failed keep): a4, kept, goes behind a2.
    o.kept(a4!);
    expect(drain(o)).toEqual([]);
    o.cancel(a3!);
    expect(o.take()).toBe(a4);
    expect(a4!.after).toBe(a2);
    o.done(first);
    expect(drain(o)).toEqual([]);
  });

  it("has at most maxChain of a key out at once; the next goes when the first is done", () => {
    const o = new KeyedOrder<string>(2);
    const items = ["a1", "a2", "a3", "a4"].map((v) => o.add(["a"], v));
    for (const i of items) o.kept(i);
    expect(drain(o)).toEqual(["a1", "a2"]);
    o.done(items[0]!);
    const third = o.take()!;
    expect([third.value, third.after?.value, drain(o)]).toEqual(["a3", "a2", []]);
    o.done(items[1]!);
    expect(drain(o)).toEqual(["a4"]);
  });

  it("holds a message with two keys until it heads both queues; one key's message may go behind it", () => {
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
    expect(merge.after).toBeUndefined();
    const b2 = o.take()!;
    expect([merge.value, b2.value, b2.after?.value, drain(o)]).toEqual(["merge", "b2", "merge", []]);
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
