// Test harness: the listener's intake core as `crossmap listen` builds it (a real LMDB journal, output and
// report files, the PID-only plan converted on the main thread), with the journal a test's subclass may
// make fail or wait. What it opens is closed by `closeIntakes` (call it after each test).
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startConverter } from "../../src/intake/convert-threads.js";
import { FileSink } from "../../src/intake/file-sink.js";
import { type AnswerChannel, Intake, type IntakeOptions } from "../../src/intake/intake.js";
import type { LmdbJournal } from "../../src/intake/lmdb-journal.js";
import { listenMetrics } from "../../src/intake/metrics.js";
import { Reports } from "../../src/intake/reports.js";
import { judge } from "../../src/intake/verdict.js";
import { resolvePlanSpec } from "../../src/pipeline/load-plan.js";

const CROSSMAP = fileURLToPath(new URL("../fixtures/mllp/pid-only.yaml", import.meta.url));
const ROLL = { rollBytes: 1 << 20, rollMs: 3_600_000, sync: false };

const closers: (() => Promise<void>)[] = [];

/** Closes what the intakes opened, the last opened first. */
export async function closeIntakes(): Promise<void> {
  for (const close of closers.splice(0).reverse()) await close();
}

/** The plan of the PID-only crossmap (a Patient per PID), as `crossmap listen --crossmap` resolves it. */
export function pidOnlyPlan() {
  return resolvePlanSpec({
    from: undefined,
    to: undefined,
    via: undefined,
    crossmaps: [CROSSMAP],
    transforms: undefined,
    vocab: undefined,
  });
}

/** An intake over `journal` writing into `dir`/out; `receive` takes a message's text as a connection would. */
export async function openIntake(
  journal: LmdbJournal,
  dir: string,
  channel: AnswerChannel,
  options: Pick<IntakeOptions, "maxPending" | "fatal"> & Partial<IntakeOptions>,
) {
  // The PID-only plan on the main thread, unless the test brings its converter (and closes it).
  const own = options.converter === undefined;
  const converter =
    options.converter ?? (await startConverter({ plan: await pidOnlyPlan(), bundle: "collection" }, 0));
  const sink = new FileSink(join(dir, "out"), ROLL);
  const reports = new Reports(join(dir, "out"), ROLL);
  await sink.open(undefined);
  await reports.open(undefined);
  closers.push(
    () => journal.close(),
    () => (own ? converter.close() : Promise.resolve()),
    () => sink.close(),
    () => reports.close(),
  );
  const intake = new Intake({
    journal,
    converter,
    sink,
    reports,
    metrics: listenMetrics(),
    log: () => {},
    ...options,
  });
  const receive = (text: string) => {
    const v = judge(Buffer.from(text, "latin1"), "patient");
    if (v.kind !== "keep") throw new Error(`${text.split("\r")[0]}: ${v.kind}`);
    return intake.receive(v.header, v.text, v.keys, Buffer.from(text, "latin1"), channel);
  };
  return { intake, receive };
}

/** Registers one more thing to close with the intakes (it runs before those opened earlier). */
export function closeWithIntakes(close: () => Promise<void>): void {
  closers.push(close);
}
