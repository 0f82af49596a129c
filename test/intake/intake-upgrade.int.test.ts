// A journal kept by a listener that read the MSH line of a UTF-8 message as Latin-1 (before the listener
// read it in the message's character set): its resend keys and sender labels name `MÜNCHEN` by its UTF-8
// bytes as Latin-1 characters, `MÃ\u009cNCHEN`. After the upgrade a resend of such a message is still
// recognised, and a message kept then and converted after it is named as sent. Real LMDB journal, files,
// plan and converter; the earlier listener's entries are written into the journal as it wrote them.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AnswerChannel } from "../../src/intake/intake.js";
import { LmdbJournal } from "../../src/intake/lmdb-journal.js";
import { judge } from "../../src/intake/verdict.js";
import { closeIntakes, openIntake } from "./intake-harness.js";
import { linesOf } from "./mllp-harness.js";

const channel: AnswerChannel = { sendLater: () => true };
afterEach(closeIntakes);

/** A message from LAB at MÜNCHEN, in UTF-8 (MSH-18 empty); without PID, it is ordered on its sender. */
const message = (id: string, pid = true) =>
  `MSH|^~\\&|LAB|MÜNCHEN|CROSSMAP|HOSP|20240101120000||ADT^A08^ADT_A01|${id}|P|2.5.1\r` +
  `EVN|A08|20240101120000\r${pid ? `PID|1||${id}^^^HOSP^MR||DOE^JOHN\r` : ""}`;
/** What the earlier listener made of MÜNCHEN: its UTF-8 bytes read as Latin-1. */
const FORMER = Buffer.from("MÜNCHEN", "utf8").toString("latin1");

describe("Intake over a journal kept before UTF-8 MSH lines were read as UTF-8", () => {
  it("recognises a resend across the upgrade and names the sender of a recovered message as sent", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crossmap-upgrade-"));
    const path = join(dir, "journal");
    const before = new LmdbJournal(path, { windowMs: 60_000, durability: "commit" });
    const kept = (id: string, pid: boolean) => ({
      at: Date.now(),
      bytes: Buffer.from(message(id, pid), "utf8"),
      keys: [pid ? `patient:${id}^HOSP` : `sender:LAB|${FORMER}`],
      sender: `LAB|${FORMER}`,
      controlId: id,
    });
    const firstAnswer = Buffer.from("the ACK U-1 got before the upgrade");
    await before.keep(kept("U-1", true), `LAB\u001f${FORMER}\u001fU-1`, firstAnswer);
    await before.keep(kept("U-2", false), `LAB\u001f${FORMER}\u001fU-2`, Buffer.from("U-2's ACK"));
    await before.close();

    const journal = new LmdbJournal(path, { windowMs: 60_000, durability: "commit" });
    const { intake } = await openIntake(journal, dir, channel, { maxPending: 10, fatal: () => {} });
    expect(await intake.recover()).toBe(2);
    const resend = Buffer.from(message("U-1"), "utf8");
    const v = judge(resend, "patient");
    if (v.kind !== "keep") throw new Error(v.kind);
    expect(await intake.receive(v.header, v.text, v.keys, resend, channel)).toEqual(firstAnswer);
    await intake.settle(10_000);
    // U-1 converted once (recovered, not kept again); U-2 (no PID: a dead letter of the PID-only plan)
    // named as its sender wrote itself.
    expect(linesOf(join(dir, "out"), "bundles").length).toBe(1);
    expect(
      linesOf(join(dir, "out"), "dead-letters").map((l) => {
        const { sender, control_id } = JSON.parse(l) as { sender: string; control_id: string };
        return [sender, control_id];
      }),
    ).toEqual([["LAB|MÜNCHEN", "U-2"]]);
    expect(journal.pendingCount()).toBe(0);
  });
});
