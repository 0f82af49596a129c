// The intake's commits are spaced out (one sync of the output and the journal per interval), but not for a
// message whose sender waits for its application ACK (MSH-15 NE, MSH-16 AL): its commit starts once it is
// converted, whether a commit is running then or the intake is waiting out the interval. The spacing here
// is an hour, so an application ACK that waited for it would never come. Real LMDB journal, files, plan and
// converter; the journal only holds the first commit until the test lets it go.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AnswerChannel } from "../../src/intake/intake.js";
import type { OutputState } from "../../src/intake/journal.js";
import { LmdbJournal } from "../../src/intake/lmdb-journal.js";
import { until } from "../scale/nats-harness.js";
import { closeIntakes, closeWithIntakes, openIntake } from "./intake-harness.js";
import { adtA08 } from "./mllp-harness.js";

/** The LMDB journal, its first commit of converted marks held until `release`; the ids of each commit. */
class HoldingJournal extends LmdbJournal {
  readonly commits: number[][] = [];
  /** Commits finished. */
  done = 0;
  release!: () => void;
  private readonly held = new Promise<void>((resolve) => {
    this.release = resolve;
  });
  override async converted(ids: readonly number[], state: OutputState): Promise<void> {
    this.commits.push([...ids]);
    if (this.commits.length === 1) await this.held;
    await super.converted(ids, state);
    this.done++;
  }
}

afterEach(closeIntakes);

async function intakeOf() {
  const dir = mkdtempSync(join(tmpdir(), "crossmap-intake-commit-"));
  const journal = new HoldingJournal(join(dir, "journal"), { windowMs: 60_000, durability: "commit" });
  const later: string[] = [];
  const channel: AnswerChannel = {
    sendLater: (bytes) => {
      later.push(bytes.toString("latin1").match(/\rMSA\|[^\r]*/)?.[0] ?? "");
      return true;
    },
  };
  const { intake, receive } = await openIntake(journal, dir, channel, {
    maxPending: 10,
    fatal: (err) => {
      throw err;
    },
    commitSpacingMs: 3_600_000,
  });
  closeWithIntakes(() => intake.settle(1000));
  closeWithIntakes(async () => journal.release());
  /** Converted and written: the converter of --workers 0 answers within the turn. */
  const converted = () => new Promise((resolve) => setImmediate(resolve));
  return { journal, receive, later, converted };
}

const msa = (answer: Buffer | undefined) => answer?.toString("latin1").match(/\rMSA\|[^\r]*/)?.[0];

describe("Intake commits", () => {
  it("commits a message whose sender waits for its application ACK right after a running commit", async () => {
    const { journal, receive, later, converted } = await intakeOf();
    expect(msa(await receive(adtA08("A-1", "A-1")))).toBe("\rMSA|AA|A-1");
    await until(async () => journal.commits.length === 1, 10_000, "A-1's commit begun");
    // While A-1's commit runs: no answer once kept (MSH-15 NE), the application ACK once committed.
    expect(await receive(adtA08("U-1", "U-1", "|||NE|AL"))).toBeUndefined();
    await converted();
    journal.release();
    await until(async () => later.length > 0, 10_000, "the application ACK");
    expect([later, journal.commits]).toEqual([["\rMSA|AA|U-1"], [[1], [2]]]);
  });

  it("ends the wait between two commits when such a message is converted meanwhile", async () => {
    const { journal, receive, later, converted } = await intakeOf();
    expect(msa(await receive(adtA08("A-1", "A-1")))).toBe("\rMSA|AA|A-1");
    await until(async () => journal.commits.length === 1, 10_000, "A-1's commit begun");
    // A-2 is converted while A-1's commit runs: its own commit waits out the spacing (an hour here).
    expect(msa(await receive(adtA08("A-2", "A-2")))).toBe("\rMSA|AA|A-2");
    await converted();
    journal.release();
    await until(async () => journal.done === 1, 10_000, "A-1 committed");
    // The commit loop goes on to wait out the spacing for A-2 (a few turns after A-1's commit ends).
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await receive(adtA08("U-1", "U-1", "|||NE|AL"))).toBeUndefined();
    await until(async () => later.length > 0, 10_000, "the application ACK");
    expect([later, journal.commits]).toEqual([["\rMSA|AA|U-1"], [[1], [2, 3]]]);
  });
});
