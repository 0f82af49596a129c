// The conversion threads (real worker threads, the PID-only plan): a message handed out behind another of
// its key (`after`) is converted on that one's thread, behind it, while a message without one goes to a
// thread with room; so a key's messages keep their order however many threads there are.
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
  it("convert a message given `after` behind that one on its thread; others go to a thread with room", async () => {
    const c = await startConverter({ plan: await pidOnlyPlan(), bundle: "collection" }, 2);
    converter = c;
    const ended: string[] = [];
    const track = (name: string, p: Promise<Outcome>) =>
      p.then((o) => {
        ended.push(name);
        return o;
      });
    // The long one and seven more fill the first thread to its spill mark (8), in one batch.
    const first = c.convert(long("L"), source(0));
    const all = [track("long", first)];
    for (let i = 1; i < 8; i++) all.push(track(`first-${i}`, c.convert(adtA08(`F${i}`, "OTHER"), source(i))));
    // Behind the long one (its key's next message), and one of another key: the second thread.
    all.push(track("behind", c.convert(adtA08("B", "BUSY"), source(8), first)));
    all.push(track("free", c.convert(adtA08("G", "FREE"), source(9))));
    const outcomes = await Promise.all(all);
    expect(outcomes.map((o) => o.kind)).toEqual(Array(10).fill("bundle"));
    expect(ended.indexOf("free")).toBeLessThan(ended.indexOf("long"));
    expect(ended.indexOf("behind")).toBeGreaterThan(ended.indexOf("long"));
  });
});
