// The listener's core, between the connections and the output: keeps each accepted message in the journal
// before its answer leaves, converts kept messages in order per key on the conversion threads, and commits
// their output together with the journal's marks. Waits (and so delays answers) when too much is kept
// and not yet converted, instead of dropping or refusing anything.
import { answerIds, applicationAnswer, keptAnswer, waitsForConversion } from "./answers.js";
import type { Outcome } from "./convert.js";
import type { Converter } from "./convert-threads.js";
import { decodeFrame, formerResendKey, formerSenderOf, type Header, resendKey, senderOf } from "./header.js";
import type { Journal, JournalEntry } from "./journal.js";
import type { ListenMetrics } from "./metrics.js";
import { KeyedOrder, type Queued } from "./order.js";
import type { Reports } from "./reports.js";
import type { Sink, Source } from "./sink.js";

/** Where an application acknowledgment goes later: the connection the message came on. */
export interface AnswerChannel {
  /** Sends a framed answer; false when the connection is gone. */
  sendLater(bytes: Buffer): boolean;
}

interface Pending {
  id: number;
  at: number;
  text: string;
  keys: string[];
  sender: string;
  controlId: string;
  /** Set for messages received in this run (not for those recovered from the journal). */
  header?: Header;
  channel?: AnswerChannel;
  outcome?: Outcome;
  /** Its sender, or one behind it on its keys, waits for its conversion (order.ts). */
  urgent?: boolean;
  /** Its conversion, while under way: the message behind it on its key goes to its thread if it can. */
  conversion?: Promise<Outcome>;
  /**
   * Set from when it is handed out until its outcome is handed to the output: the message behind it on its
   * key, converted meanwhile (on any thread), goes to the output only after it (order.ts `after`).
   */
  handedOver?: Promise<void>;
}

export interface IntakeOptions {
  journal: Journal;
  converter: Converter;
  sink: Sink;
  reports: Reports;
  metrics: ListenMetrics;
  /** Messages kept and not yet converted past which new ones wait (their answers are delayed). */
  maxPending: number;
  log: (line: string) => void;
  /** Called when output cannot be committed: the process must stop (a restart resumes from the journal). */
  fatal: (err: Error) => void;
  /** Least time between the starts of two commits (ms; default COMMIT_SPACING_MS). */
  commitSpacingMs?: number;
}

/**
 * Least time between the starts of two commits (ms). Each commit syncs the output files and the journal
 * on the disk the acknowledgments' own syncs wait on; waiting messages are let in as conversions end
 * (hasRoom), so the spacing delays only when output becomes final, not the answers. 50 ms, not 200: in
 * the same `npm run bench -- mllp` run at load 1.6, 200 ms halved one connection's rate (217 -> 100 acked/s,
 * ACK p99 50 -> 163 ms) and cut 8 connections' MSH-only rate from 1,202 to 783 acked/s; 50 ms gave back
 * the base figures (296 vs 286 and 1,305 vs 1,322 acked/s) with the other changes kept. Not for a message
 * whose sender waits for its application ACK (order.ts `urgent`): its commit starts as soon as it is
 * converted (with the order's priority for such messages, the bench's application-ACK p99 went from 127.5
 * to 50.7 ms, means of runs in the order base, this, this, base: docs/mllp.md).
 */
const COMMIT_SPACING_MS = 50;

export class Intake {
  /**
   * A key has at most half of what the conversion threads hold out at once: a busy patient's messages use
   * every thread, and the other keys always find room.
   */
  private readonly order: KeyedOrder<Pending>;
  /** Admitted and not yet committed, oldest first (for the gate and the lag). */
  private readonly backlog = new Set<Pending>();
  private readonly waiters: { resolve: () => void; reject: (err: Error) => void }[] = [];
  private written: Pending[] = [];
  private inFlight = 0;
  /** Room promised to admitted messages not yet in the backlog. */
  private reserved = 0;
  /** Of the backlog: converted and handed to the output, not committed yet. */
  private converted = 0;
  private committing: Promise<void> | undefined;
  /** Ends the wait between two commits at once (a sender waits for a message written meanwhile). */
  private hurryCommit: (() => void) | undefined;
  private failed: Error | undefined;
  private stopping = false;
  private lastCommit = 0;
  readonly nextAnswerId = answerIds();

  constructor(private readonly o: IntakeOptions) {
    this.order = new KeyedOrder(Math.max(1, Math.floor(o.converter.capacity / 2)));
  }

  /** Puts back in order what the journal kept and did not convert before the last stop. */
  async recover(): Promise<number> {
    let n = 0;
    for await (const e of this.o.journal.unconverted()) {
      const decoded = decodeFrame(e.bytes);
      const text = "text" in decoded ? decoded.text : e.bytes.toString("latin1");
      const p: Pending = { ...pendingOf(e), text };
      if ("text" in decoded) renamed(p, decoded.header);
      this.backlog.add(p);
      this.order.kept(this.order.add(p.keys, p));
      n++;
    }
    this.pump();
    return n;
  }

  get health(): string {
    return this.failed ? "failing" : "ok";
  }

  /** Messages waiting for room to be kept. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Seconds since the oldest message kept and not converted was received (0 when none). */
  lagSeconds(now: number): number {
    const oldest = this.backlog.values().next().value as Pending | undefined;
    return oldest ? Math.max(0, (now - oldest.at) / 1000) : 0;
  }

  /**
   * Takes a message in arrival order: it waits for room (backpressure), is queued on its keys and kept.
   * Resolves with the answer to send once it is kept (undefined when MSH-15 asks for none); rejects when it
   * could not be kept (the connection then closes unanswered).
   */
  receive(
    header: Header,
    text: string,
    keys: string[],
    bytes: Buffer,
    channel: AnswerChannel,
  ): Promise<Buffer | undefined> {
    const now = Date.now();
    const p: Pending = {
      id: -1,
      at: now,
      text,
      keys,
      sender: senderOf(header),
      controlId: header.controlId,
      header,
      channel,
    };
    return this.admit().then(() => {
      this.reserved--;
      // Admitted in the same turn as a failure: not kept either.
      if (this.failed) throw this.failed;
      return this.keep(p, header, bytes);
    });
  }

  /** Queues the message in arrival order and keeps it; resolves with its answer once it is durable. */
  private async keep(p: Pending, header: Header, bytes: Buffer): Promise<Buffer | undefined> {
    // A sender that gets no answer before the application ACK waits for the conversion: it goes first.
    const queued = this.order.add(p.keys, p, waitsForConversion(header));
    this.backlog.add(p);
    // The answer is made now so that the journal keeps it: a resend gets these very bytes again.
    const answer = keptAnswer(header, this.nextAnswerId(), new Date(p.at));
    const entry = { at: p.at, bytes, keys: p.keys, sender: p.sender, controlId: p.controlId };
    try {
      const r = await this.o.journal.keep(entry, resendKey(header), answer, formerResendKey(header));
      if (r.kind === "duplicate") {
        this.drop(p, queued);
        this.o.metrics.duplicates();
        // The first copy's answer; this one's when the journal no longer has it (kept, all the same).
        const again = r.answer.length > 0 ? r.answer : answer;
        return again.length > 0 ? again : undefined;
      }
      p.id = r.id;
      this.order.kept(queued);
      this.pump();
      return answer.length > 0 ? answer : undefined;
    } catch (err) {
      // Failed first, so that the room this frees admits none of the messages waiting for it.
      this.fail(err as Error);
      this.drop(p, queued);
      this.o.fatal(new Error(`cannot keep a message in the journal: ${(err as Error).message}`));
      throw err;
    }
  }

  /** Room in the backlog: at once, or once enough is committed (first come, first served). */
  private admit(): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    if (this.hasRoom() && this.waiters.length === 0) {
      this.reserved++;
      return Promise.resolve();
    }
    this.o.metrics.delayed();
    return new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private release(): void {
    while (this.waiters.length > 0 && this.hasRoom()) {
      this.reserved++;
      this.waiters.shift()?.resolve();
    }
  }

  /**
   * Room for one more: fewer than maxPending kept and not converted, so that a waiting message is let in
   * as soon as a conversion ends, not at the next commit (which would hold answers back by the commit
   * interval and make the latency tail); and, with what is converted and not yet committed (a slow output),
   * fewer than twice that.
   */
  private hasRoom(): boolean {
    const all = this.backlog.size + this.reserved;
    return all - this.converted < this.o.maxPending && all < 2 * this.o.maxPending;
  }

  private drop(p: Pending, queued: Queued<Pending>): void {
    this.order.cancel(queued);
    this.backlog.delete(p);
    this.release();
    this.pump();
  }

  /** Nothing more is kept: the messages waiting for room get no answer (their senders send them again). */
  private fail(err: Error): void {
    this.failed ??= err;
    for (const w of this.waiters.splice(0)) w.reject(err);
  }

  /**
   * Hands ready messages to the conversion threads, up to their capacity. A message handed out behind
   * another of its key (`after`) is converted side by side with it, on that one's thread or, when that one
   * holds enough, another (a conversion depends on its message alone), and goes to the output only after
   * it: the output keeps each key's arrival order, whichever conversion ends first.
   */
  private pump(): void {
    while (this.inFlight < this.o.converter.capacity && this.failed === undefined && !this.stopping) {
      const q = this.order.take();
      if (q === undefined) return;
      this.inFlight++;
      const p = q.value;
      // Dropped once used: each message holding the one ahead would keep a busy key's whole past.
      const ahead = q.after?.value;
      q.after = undefined;
      let handedOver!: () => void;
      p.handedOver = new Promise<void>((resolve) => {
        handedOver = resolve;
      });
      const conversion = this.o.converter.convert(p.text, sourceOf(p), ahead?.conversion, q.urgent);
      p.conversion = conversion;
      const before = ahead?.handedOver;
      const ready = before === undefined ? conversion : Promise.all([conversion, before]).then(([o]) => o);
      ready.then((outcome) => {
        this.inFlight--;
        p.conversion = undefined;
        p.handedOver = undefined;
        // Read now: a message ahead of an urgent one becomes urgent too, also while it is being converted.
        p.urgent = q.urgent;
        this.converted++;
        this.written.push(p);
        p.outcome = outcome;
        this.toOutput(p, outcome);
        handedOver();
        if (p.urgent) this.hurryCommit?.();
        // Handed to the output in this order, so the next message of its keys may go now.
        this.order.done(q);
        this.pump();
        this.release();
        this.kick();
      });
    }
  }

  private toOutput(p: Pending, outcome: Outcome): void {
    const source = sourceOf(p);
    if (outcome.kind === "dead") {
      this.o.reports.deadLetter(source, outcome.issues, p.text);
      return;
    }
    this.o.sink.write({ ...source, keys: p.keys, bundle: outcome.bundle });
    if (outcome.issuesLine) this.o.reports.issuesOf(outcome.issuesLine);
  }

  /** Starts a commit unless one runs (which then takes what came meanwhile). */
  kick(): void {
    if (this.committing !== undefined || this.failed !== undefined || this.stopping) return;
    const now = Date.now();
    if (this.written.length === 0 && !this.o.sink.due?.(now) && !this.o.reports.due(now)) return;
    this.committing = this.commitAll().finally(() => {
      this.committing = undefined;
    });
  }

  /**
   * At shutdown: waits for what is being converted, stops handing out more, and commits it all with the
   * output files closed (what is not converted stays in the journal for the next start).
   */
  async settle(timeoutMs: number): Promise<void> {
    this.stopping = true;
    const until = Date.now() + timeoutMs;
    while (this.inFlight > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    // A commit waiting out the spacing goes now.
    this.hurryCommit?.();
    await this.committing;
    if (this.failed === undefined) await this.commitAll(true);
  }

  private async commitAll(close = false): Promise<void> {
    try {
      let first = true;
      while (this.written.length > 0 || first) {
        // A sender waiting for its application ACK is not kept waiting for the spacing as well.
        if (!first && !close && !this.written.some((p) => p.urgent)) {
          // Commits spaced out: each costs a sync of the output files and of the journal, which the
          // acknowledgments wait behind on the same disk; a batch every COMMIT_SPACING_MS is enough.
          const wait = this.lastCommit + (this.o.commitSpacingMs ?? COMMIT_SPACING_MS) - performance.now();
          if (wait > 0) {
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, wait);
              this.hurryCommit = () => {
                clearTimeout(timer);
                resolve();
              };
            });
            this.hurryCommit = undefined;
          }
        }
        first = false;
        const batch = this.written;
        this.written = [];
        const started = performance.now();
        this.lastCommit = started;
        const last = close && this.written.length === 0;
        // The output and the reports are synced side by side.
        let [flushed, reports] = await Promise.all([this.o.sink.flush(last), this.o.reports.flush(last)]);
        if (flushed.refused.length > 0) {
          for (const r of flushed.refused) {
            const p = batch.find((x) => x.id === r.id);
            if (!p) continue;
            p.outcome = { kind: "dead", issues: r.issues };
            this.o.reports.deadLetter(
              { id: p.id, sender: p.sender, controlId: p.controlId, receivedAt: p.at },
              r.issues,
              p.text,
            );
          }
          reports = await this.o.reports.flush(last);
        }
        await this.o.journal.converted(
          batch.map((p) => p.id),
          { sink: flushed.state, reports },
        );
        await this.o.sink.committed();
        this.o.reports.committed();
        this.o.metrics.commitSeconds((performance.now() - started) / 1000);
        for (const p of batch) this.committed(p);
        this.release();
      }
    } catch (err) {
      this.fail(err as Error);
      this.o.fatal(new Error(`cannot commit converted output: ${(err as Error).message}`));
    }
  }

  private committed(p: Pending): void {
    this.backlog.delete(p);
    this.converted--;
    const m = this.o.metrics;
    const outcome = p.outcome as Outcome;
    if (outcome.kind === "dead") m.deadLetters();
    else {
      m.converted();
      if (outcome.warnings > 0) m.issues(outcome.warnings, { severity: "warning" });
      if (outcome.errors > 0) m.issues(outcome.errors, { severity: "error" });
    }
    const h = p.header;
    if (h === undefined || p.channel === undefined) return;
    const app = applicationAnswer(h, outcome, this.nextAnswerId(), new Date());
    if (app === undefined) return;
    if (p.channel.sendLater(app.bytes)) m.acks(1, { code: app.code });
    else m.undelivered();
  }
}

const sourceOf = (p: Pending): Source => ({
  id: p.id,
  sender: p.sender,
  controlId: p.controlId,
  receivedAt: p.at,
});

/**
 * A message kept by a listener that read a UTF-8 MSH line as Latin-1 names its sender so (`LAB|MÃ\u009cNCHEN`):
 * named as read now, in its label and in its sender ordering key, so that it is converted in order with the
 * sender's messages received after the upgrade.
 */
function renamed(p: Pending, h: Header): void {
  const former = formerSenderOf(h);
  if (former === undefined || p.sender !== former) return;
  const sender = senderOf(h);
  p.sender = sender;
  p.keys = p.keys.map((k) => (k === `sender:${former}` ? `sender:${sender}` : k));
}

function pendingOf(e: JournalEntry): Omit<Pending, "text"> {
  return { id: e.id, at: e.at, keys: e.keys, sender: e.sender, controlId: e.controlId };
}
