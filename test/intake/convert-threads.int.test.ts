// The conversion threads (real worker threads, the PID-only plan): a message handed out behind another of
// its key (`after`) is converted on that one's thread, behind it, while that thread holds fewer than its
// spill mark; past it, on another thread (the intake keeps the key's output in order, intake-order.int).
import { afterEach, describe, expect, it } from "vitest";
import type { Outcome } from "../../src/intake/convert.js";
import type { Converter, startConverter as Start } from "../../src/intake/convert-threads.js";
import { pidOnlyPlan } from "./intake-harness.js";
import { adtA08 } from "./mllp-harness.js";

// The threads run compiled code, so this needs `npm run build` first (npm test does it).
const { startConverter } = (await import(
  new URL("../../dist/intake/convert-threads.js", import.meta.url).href
)) as { startConverter: typeof Start };
let converter: Converter | undefined;
afterEach(async () => {
  await converter?.close();
  converter = undefined;
});

const source = (id: number) => ({ id, sender: "LAB|HOSP", controlId: `M${id}`, receivedAt: 0 });

/** A message of 3,000 PID segments: long enough to convert that a short one on another thread ends first. */
const long = (id: string) =>
  adtA08(id, "BUSY") +
  Array.from({ length: 3_000 }, (_, i) => `PID|${i + 2}||BUSY-${i}^^^HOSP^MR||DOE^JOHN`).join("\r");

/**
 * Two threads; the long message (key BUSY) and `more` others go to the first thread, and each conversion's
 * end is recorded by name. `send` converts one more message, tracked the same way.
 */
async function firstThreadHolding(more: number) {
  const c = await startConverter({ plan: await pidOnlyPlan(), bundle: "collection" }, 2);
  converter = c;
  const ended: string[] = [];
  const all: Promise<Outcome>[] = [];
  const send = (name: string, text: string, after?: Promise<Outcome>, urgent?: boolean) => {
    const p = c.convert(text, source(all.length), after, urgent);
    all.push(
      p.then((o) => {
        ended.push(name);
        return o;
      }),
    );
    return p;
  };
  const first = send("long", long("L"));
  for (let i = 1; i <= more; i++) send(`first-${i}`, adtA08(`F${i}`, "OTHER"));
  const done = async () => {
    expect((await Promise.all(all)).map((o) => o.kind)).toEqual(Array(all.length).fill("bundle"));
    return ended;
  };
  return { first, send, done };
}

describe("conversion threads", () => {
  it("convert a message given `after` behind that one on its thread while it has room, urgent or not", async () => {
    // The first thread holds 7, under its spill mark (8).
    const { first, send, done } = await firstThreadHolding(6);
    // Urgent, which alone would go to the least loaded thread (the second): behind the long one instead.
    send("behind", adtA08("B", "BUSY"), first, true);
    // The first thread is at its mark now: another message goes to the second.
    send("free", adtA08("G", "FREE"));
    const ended = await done();
    expect(ended.indexOf("free")).toBeLessThan(ended.indexOf("long"));
    expect(ended.indexOf("behind")).toBeGreaterThan(ended.indexOf("long"));
  });

  it("convert an urgent message between two messages of the batch its thread is converting", async () => {
    // The first thread holds its 8; the second converts a batch led by a very long message.
    const { send, done } = await firstThreadHolding(7);
    const huge =
      adtA08("H", "HUGE") +
      Array.from({ length: 6_000 }, (_, i) => `PID|${i + 2}||HUGE-${i}^^^HOSP^MR||DOE^JOHN`).join("\r");
    send("huge", huge);
    for (let i = 1; i <= 3; i++) send(`after-huge-${i}`, adtA08(`A${i}`, "OTHER"));
    // Well into the huge one's conversion (it takes a second or more), an urgent message goes to the second thread
    // (the less loaded): it is converted when the huge one is done, before the rest of that batch, and
    // its result comes back at once, not with the batch's at its end.
    await new Promise((resolve) => setTimeout(resolve, 100));
    send("urgent", adtA08("U", "WAITING"), undefined, true);
    const ended = await done();
    expect(ended.indexOf("urgent")).toBeLessThan(ended.indexOf("huge"));
    expect(ended.indexOf("urgent")).toBeLessThan(ended.indexOf("after-huge-1"));
  });

  it("convert a message given `after` on another thread once that one's holds its spill mark", async () => {
    const { first, send, done } = await firstThreadHolding(7);
    send("behind", adtA08("B", "BUSY"), first);
    const ended = await done();
    expect(ended.indexOf("behind")).toBeLessThan(ended.indexOf("long"));
  });
});
