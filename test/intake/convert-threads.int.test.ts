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

describe("conversion threads", () => {
  it("convert a message given `after` behind that one on its thread while it has room, urgent or not", async () => {
    const c = await startConverter({ plan: await pidOnlyPlan(), bundle: "collection" }, 2);
    converter = c;
    const ended: string[] = [];
    const track = (name: string, p: Promise<Outcome>) =>
      p.then((o) => {
        ended.push(name);
        return o;
      });
    // The long one and six more: the first thread holds 7, under its spill mark (8).
    const first = c.convert(long("L"), source(0));
    const all = [track("long", first)];
    for (let i = 1; i < 7; i++) all.push(track(`first-${i}`, c.convert(adtA08(`F${i}`, "OTHER"), source(i))));
    // Urgent, which alone would go to the least loaded thread (the second): behind the long one instead.
    all.push(track("behind", c.convert(adtA08("B", "BUSY"), source(7), first, true)));
    // The first thread is at its mark now: another message goes to the second.
    all.push(track("free", c.convert(adtA08("G", "FREE"), source(8))));
    const outcomes = await Promise.all(all);
    expect(outcomes.map((o) => o.kind)).toEqual(Array(9).fill("bundle"));
    expect(ended.indexOf("free")).toBeLessThan(ended.indexOf("long"));
    expect(ended.indexOf("behind")).toBeGreaterThan(ended.indexOf("long"));
  });

  it("convert a message given `after` on another thread once that one's holds its spill mark", async () => {
    const c = await startConverter({ plan: await pidOnlyPlan(), bundle: "collection" }, 2);
    converter = c;
    const ended: string[] = [];
    const track = (name: string, p: Promise<Outcome>) =>
      p.then((o) => {
        ended.push(name);
        return o;
      });
    // The long one and seven more fill the first thread to its spill mark (8).
    const first = c.convert(long("L"), source(0));
    const all = [track("long", first)];
    for (let i = 1; i < 8; i++) all.push(track(`first-${i}`, c.convert(adtA08(`F${i}`, "OTHER"), source(i))));
    all.push(track("behind", c.convert(adtA08("B", "BUSY"), source(8), first)));
    const outcomes = await Promise.all(all);
    expect(outcomes.map((o) => o.kind)).toEqual(Array(9).fill("bundle"));
    expect(ended.indexOf("behind")).toBeLessThan(ended.indexOf("long"));
  });
});
