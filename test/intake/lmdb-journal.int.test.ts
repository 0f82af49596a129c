// The LMDB journal's resend rules: a message kept under (MSH-3, MSH-4, MSH-10) is recognised again with its
// original answer, through a restart and after its conversion, for `--dedup-window`; past the window (and
// once pruned) the same key is kept as a new message. Both durabilities: `flush` (the default, each
// answer after the fsync) and `commit`.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Durability, LmdbJournal } from "../../src/intake/lmdb-journal.js";

const open: LmdbJournal[] = [];
afterEach(async () => {
  for (const j of open.splice(0)) await j.close();
});

let durability: Durability = "flush";
function journal(dir: string, windowMs: number): LmdbJournal {
  const j = new LmdbJournal(dir, { windowMs, durability });
  open.push(j);
  return j;
}

const entry = (controlId: string, at: number) => ({
  at,
  bytes: Buffer.from(`MSH|^~\\&|LAB|HOSP|||||ADT^A08|${controlId}|P|2.5.1\r`, "latin1"),
  keys: ["p:1"],
  sender: "LAB|HOSP",
  controlId,
});
const key = (controlId: string) => `LAB\u001fHOSP\u001f${controlId}`;
const ack = (text: string) => Buffer.from(text, "latin1");

describe.each(["flush", "commit"] as const)("LmdbJournal, durability %s", (d) => {
  beforeEach(() => {
    durability = d;
  });

  it("answers a resend with the original answer, through a restart and after the conversion", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crossmap-journal-"));
    let j = journal(dir, 60_000);
    expect(await j.keep(entry("M1", 1000), key("M1"), ack("first"))).toEqual({ kind: "kept", id: 1 });
    // A second copy while the first is being written waits for it and is a resend of it.
    const [a, b] = await Promise.all([
      j.keep(entry("M2", 1001), key("M2"), ack("second")),
      j.keep(entry("M2", 1002), key("M2"), ack("second, again")),
    ]);
    expect(a).toEqual({ kind: "kept", id: 2 });
    expect(b).toEqual({ kind: "duplicate", id: 2, answer: ack("second") });
    await open.pop()?.close();

    j = journal(dir, 60_000);
    expect(j.pendingCount()).toBe(2);
    const kept: { id: number; controlId: string }[] = [];
    for await (const e of j.unconverted()) kept.push({ id: e.id, controlId: e.controlId });
    expect(kept).toEqual([
      { id: 1, controlId: "M1" },
      { id: 2, controlId: "M2" },
    ]);
    await j.converted([1, 2], { sink: "state-1" });
    expect([j.pendingCount(), j.outputState()]).toEqual([0, { sink: "state-1" }]);
    expect(await j.keep(entry("M1", 2000), key("M1"), ack("other"))).toEqual({
      kind: "duplicate",
      id: 1,
      answer: ack("first"),
    });
    // Another sender's message with the same MSH-10 is not a resend.
    expect(await j.keep(entry("M1", 2001), `LAB\u001fOTHER\u001fM1`, ack("x"))).toEqual({
      kind: "kept",
      id: 3,
    });
  });

  it("keeps the same key as a new message past the window, and forgets keys once pruned", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crossmap-journal-"));
    const j = journal(dir, 2000);
    await j.keep(entry("A", 1000), key("A"), ack("a"));
    expect((await j.keep(entry("A", 2500), key("A"), ack("a2"))).kind).toBe("duplicate");
    expect(await j.keep(entry("A", 3001), key("A"), ack("a3"))).toEqual({ kind: "kept", id: 2 });
    await j.keep(entry("B", 5000), key("B"), ack("b"));
    // At 6000 the window reaches back to 4000: A's two keys (kept at 1000 and 3001) go, B's stays.
    expect(await j.prune(6000)).toBe(2);
    // Kept at 3001, A would be a resend at 4500 within the window; pruned, it is new.
    expect(await j.keep(entry("A", 4500), key("A"), ack("a4"))).toEqual({ kind: "kept", id: 4 });
    expect(await j.keep(entry("B", 5500), key("B"), ack("b2"))).toEqual({
      kind: "duplicate",
      id: 3,
      answer: ack("b"),
    });
  });

  it("keeps the messages and the marks of one poll phase together, and forgets only keys not kept again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crossmap-journal-"));
    let j = journal(dir, 2000);
    await j.keep(entry("A", 1000), key("A"), ack("a"));
    // One turn: a new copy of A past the window, B, the mark of message 1, and the prune of A's old key.
    const [a2, b] = await Promise.all([
      j.keep(entry("A", 3500), key("A"), ack("a2")),
      j.keep(entry("B", 3600), key("B"), ack("b")),
      j.converted([1], { sink: "s" }),
      j.prune(3400),
    ]);
    expect([a2, b]).toEqual([
      { kind: "kept", id: 2 },
      { kind: "kept", id: 3 },
    ]);
    await open.pop()?.close();
    j = journal(dir, 2000);
    const kept: number[] = [];
    for await (const e of j.unconverted()) kept.push(e.id);
    expect([kept, j.outputState()]).toEqual([[2, 3], { sink: "s" }]);
    // A's new key stayed though its old one was pruned in the same transaction.
    expect(await j.keep(entry("A", 4000), key("A"), ack("a3"))).toEqual({
      kind: "duplicate",
      id: 2,
      answer: ack("a2"),
    });
  });

  it("takes a message kept under its former key (made by an earlier listener) for a resend", async () => {
    const j = journal(mkdtempSync(join(tmpdir(), "crossmap-journal-")), 60_000);
    const former = "LAB\u001fM\u00c3\u009cNCHEN\u001fU1";
    await j.keep(entry("U1", 1000), former, ack("before the upgrade"));
    expect(await j.keep(entry("U1", 2000), "LAB\u001fMÜNCHEN\u001fU1", ack("now"), former)).toEqual({
      kind: "duplicate",
      id: 1,
      answer: ack("before the upgrade"),
    });
    // Only when asked to: under its own key alone it is new.
    expect(await j.keep(entry("U1", 2001), "LAB\u001fMÜNCHEN\u001fU1", ack("now"))).toEqual({
      kind: "kept",
      id: 2,
    });
  });

  it("with a window of 0 remembers no key: every copy is kept", async () => {
    const j = journal(mkdtempSync(join(tmpdir(), "crossmap-journal-")), 0);
    expect(await j.keep(entry("Z", 1000), key("Z"), ack("z"))).toEqual({ kind: "kept", id: 1 });
    expect(await j.keep(entry("Z", 1001), key("Z"), ack("z"))).toEqual({ kind: "kept", id: 2 });
  });
});
