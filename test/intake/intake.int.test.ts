// The intake core when the journal fails (a full or broken disk, which cannot be made to happen on
// demand): the messages waiting for room are not kept and get no answer, so their connections close and
// the listener can stop; none waits for ever. Real LMDB journal, files, plan and converter; only the
// failing write is injected.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AnswerChannel } from "../../src/intake/intake.js";
import type { JournalEntry, KeepResult, OutputState } from "../../src/intake/journal.js";
import { LmdbJournal } from "../../src/intake/lmdb-journal.js";
import { closeIntakes, openIntake } from "./intake-harness.js";
import { adtA08 } from "./mllp-harness.js";

const DISK = "ENOSPC: no space left on device";

/** The LMDB journal, but the commit of converted marks (or the keeping of one message) fails. */
class FailingJournal extends LmdbJournal {
  failKeepOf: string | undefined;
  failCommit = false;
  /** The failing commit waits for this before it fails (so that the test knows what is in flight then). */
  holdCommit: Promise<void> | undefined;
  override keep(entry: Omit<JournalEntry, "id">, key: string, answer: Buffer): Promise<KeepResult> {
    if (entry.controlId === this.failKeepOf) return Promise.reject(new Error(DISK));
    return super.keep(entry, key, answer);
  }
  override converted(ids: readonly number[], state: OutputState): Promise<void> {
    if (this.failCommit) {
      return (this.holdCommit ?? Promise.resolve()).then(() => Promise.reject(new Error(DISK)));
    }
    return super.converted(ids, state);
  }
}

const channel: AnswerChannel = { sendLater: () => true };
afterEach(closeIntakes);

async function intakeWith(journal: FailingJournal, dir: string) {
  const fatal: string[] = [];
  const { intake, receive } = await openIntake(journal, dir, channel, {
    maxPending: 1,
    fatal: (err) => fatal.push(err.message),
  });
  return { intake, receive: (id: string) => receive(adtA08(id, id)), fatal };
}

const msa = (answer: Buffer | undefined) => answer?.toString("latin1").match(/\rMSA\|[^\r]*/)?.[0];

describe("Intake when the journal fails", () => {
  it("refuses the messages waiting for room when a commit fails, and every later one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crossmap-intake-"));
    const journal = new FailingJournal(join(dir, "journal"), { windowMs: 60_000, durability: "commit" });
    journal.failCommit = true;
    let release!: () => void;
    journal.holdCommit = new Promise((resolve) => {
      release = resolve;
    });
    const { intake, receive, fatal } = await intakeWith(journal, dir);
    const first = receive("A-1");
    // One message kept and not converted at most (--max-pending 1): A-2 is let in once A-1 is converted,
    // and kept. Then two converted and not committed, the other bound: wait for the commit of
    // A-1, which fails.
    const second = receive("A-2");
    const third = receive("A-3");
    const fourth = receive("A-4");
    expect(msa(await first)).toBe("\rMSA|AA|A-1");
    expect(msa(await second)).toBe("\rMSA|AA|A-2");
    expect(intake.waiting).toBe(2);
    release();
    await expect(third).rejects.toThrow(DISK);
    await expect(fourth).rejects.toThrow(DISK);
    await expect(receive("A-5")).rejects.toThrow(DISK);
    expect(fatal).toEqual([`cannot commit converted output: ${DISK}`]);
    expect(intake.health).toBe("failing");
    expect(intake.waiting).toBe(0);
  });

  it("keeps none of the messages waiting for room once one could not be kept", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crossmap-intake-"));
    const journal = new FailingJournal(join(dir, "journal"), { windowMs: 60_000, durability: "commit" });
    journal.failKeepOf = "B-2";
    const { intake, receive, fatal } = await intakeWith(journal, dir);
    const first = receive("B-1");
    const second = receive("B-2");
    const third = receive("B-3");
    expect(msa(await first)).toBe("\rMSA|AA|B-1");
    await expect(second).rejects.toThrow(DISK);
    await expect(third).rejects.toThrow(DISK);
    expect(fatal).toEqual([`cannot keep a message in the journal: ${DISK}`]);
    // Only B-1 was in the journal, and its commit (begun before B-2 failed) ends: B-3 was refused before
    // it was kept.
    await intake.settle(1000);
    expect(journal.pendingCount()).toBe(0);
  });
});
