// The intake with two real conversion threads (the PID-only plan): a patient's next message may be
// converted on the other thread while the one ahead of it is still being converted, and ends first; its
// Bundle is still written after that one's, so the output keeps each patient's arrival order.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Converter, startConverter as Start } from "../../src/intake/convert-threads.js";
import type { AnswerChannel } from "../../src/intake/intake.js";
import { LmdbJournal } from "../../src/intake/lmdb-journal.js";
import { closeIntakes, closeWithIntakes, openIntake, pidOnlyPlan } from "./intake-harness.js";
import { adtA08, linesOf } from "./mllp-harness.js";

// The threads run compiled code, so this needs `npm run build` first (npm test does it).
const { startConverter } = (await import(
  new URL("../../dist/intake/convert-threads.js", import.meta.url).href
)) as { startConverter: typeof Start };

const channel: AnswerChannel = { sendLater: () => true };
afterEach(closeIntakes);

/** A message of 3,000 PID segments: long enough to convert that a short one on another thread ends first. */
const long = (id: string, patient: string) =>
  adtA08(id, patient) +
  Array.from({ length: 3_000 }, (_, i) => `PID|${i + 2}||${patient}-${i}^^^HOSP^MR||DOE^JOHN`).join("\r");

/** The converter, recording the control ids in the order their conversions end. */
function recording(c: Converter, ended: string[]): Converter {
  return {
    capacity: c.capacity,
    convert: (text, source, after, urgent) =>
      c.convert(text, source, after, urgent).then((o) => {
        ended.push(source.controlId);
        return o;
      }),
    close: () => c.close(),
  };
}

describe("Intake on two conversion threads", () => {
  it("writes a patient's Bundles in arrival order when a later one is converted first", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crossmap-intake-order-"));
    const threads = await startConverter({ plan: await pidOnlyPlan(), bundle: "collection" }, 2);
    closeWithIntakes(() => threads.close());
    const ended: string[] = [];
    const journal = new LmdbJournal(join(dir, "journal"), { windowMs: 60_000, durability: "commit" });
    const { intake, receive } = await openIntake(journal, dir, channel, {
      maxPending: 100,
      fatal: (err) => {
        throw err;
      },
      converter: recording(threads, ended),
    });
    // The long one and seven of other patients fill the first thread to its spill mark (8); BUSY's next
    // message then goes to the second thread, which is free.
    const answers = [receive(long("L", "BUSY"))];
    for (let i = 1; i < 8; i++) answers.push(receive(adtA08(`O${i}`, `OTHER${i}`)));
    answers.push(receive(adtA08("B", "BUSY")));
    await Promise.all(answers);
    await intake.settle(30_000);
    expect(ended.indexOf("B")).toBeLessThan(ended.indexOf("L"));
    const written = linesOf(join(dir, "out"), "bundles").map(
      (l) => (JSON.parse(l) as { identifier?: { value?: string } }).identifier?.value,
    );
    expect(written).toHaveLength(9);
    expect(written.indexOf("L")).toBeLessThan(written.indexOf("B"));
  });
});
