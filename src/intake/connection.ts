// One MLLP connection: frames in, one answer per frame out, in the order the frames came. A slow, silent
// or hostile peer holds only this connection: a frame must end within the frame timeout, a silent
// connection is closed after the idle timeout, a frame over the cap is refused, and reading stops while
// too many answers are owed or the peer does not read its answers.
import type { Socket } from "node:net";
import { refusalAnswer } from "./answers.js";
import { FrameDecoder, type FrameEvent } from "./frames.js";
import type { OrderBy } from "./header.js";
import type { AnswerChannel, Intake } from "./intake.js";
import type { ListenMetrics } from "./metrics.js";
import { judge, type Refused, transportRefusal } from "./verdict.js";

export interface ConnectionLimits {
  /** Largest message (bytes between 0x0B and 0x1C 0x0D). */
  maxBytes: number;
  /** A frame (or a stretch of bytes outside frames) must end within this time (ms). */
  frameTimeoutMs: number;
  /** A connection with nothing sent either way for this long is closed (ms; 0: never). */
  idleTimeoutMs: number;
  orderBy: OrderBy;
}

/** Answers owed past which the connection stops reading (a sender that does not wait for its ACKs). */
const MAX_OWED = 32;
/** Bytes of answers the peer has not read past which the connection stops reading. */
const MAX_UNREAD = 1 << 20;

/** MSA-1 of a framed acknowledgment, for the metrics. */
export function ackCode(bytes: Buffer): string {
  const text = bytes.toString("latin1");
  const at = text.indexOf("\rMSA");
  return at < 0 ? "?" : text.slice(at + 5, at + 7);
}

export class Connection implements AnswerChannel {
  private readonly decoder: FrameDecoder;
  private answers: Promise<void> = Promise.resolve();
  private owed = 0;
  private frameTimer: NodeJS.Timeout | undefined;
  private timerFor = -1;
  private closed = false;
  /** False once the connection is winding down: reading does not resume. */
  private reading = true;
  readonly peer: string;

  constructor(
    private readonly socket: Socket,
    private readonly intake: Intake,
    private readonly metrics: ListenMetrics,
    private readonly limits: ConnectionLimits,
    private readonly log: (line: string) => void,
  ) {
    this.peer = `${socket.remoteAddress ?? "?"}:${socket.remotePort ?? "?"}`;
    this.decoder = new FrameDecoder(limits.maxBytes);
    socket.setNoDelay(true);
    if (limits.idleTimeoutMs > 0) socket.setTimeout(limits.idleTimeoutMs);
    socket.on("data", (chunk: Buffer) => this.data(chunk));
    socket.on("timeout", () => this.idle());
    socket.on("drain", () => this.flowControl());
    socket.on("error", (err) => this.log(`${this.peer}: ${err.message}`));
    socket.on("close", () => {
      this.closed = true;
      clearTimeout(this.frameTimer);
    });
  }

  sendLater(bytes: Buffer): boolean {
    if (this.closed || this.socket.destroyed || !this.socket.writable) return false;
    this.socket.write(bytes);
    return true;
  }

  /** Stops reading, sends the answers owed, then closes (at shutdown). */
  async drain(): Promise<void> {
    this.reading = false;
    this.socket.pause();
    await this.answers;
    this.close("shutdown");
  }

  private data(chunk: Buffer): void {
    for (const event of this.decoder.push(chunk)) this.handle(event);
    if (this.decoder.garbageBytes > this.limits.maxBytes) {
      this.close("garbage");
      return;
    }
    // The timer runs from the start of the frame (or stretch of garbage) open now, not an earlier one.
    const open = this.decoder.open || this.decoder.garbageBytes > 0;
    if (!open || this.timerFor !== this.decoder.current) {
      clearTimeout(this.frameTimer);
      this.frameTimer = undefined;
    }
    if (open && this.frameTimer === undefined) {
      this.timerFor = this.decoder.current;
      this.frameTimer = setTimeout(() => this.frameTimeout(), this.limits.frameTimeoutMs);
    }
  }

  private handle(event: FrameEvent): void {
    const m = this.metrics;
    if (event.kind === "garbage") {
      m.refused(1, { reason: "outside_frame" });
      const text =
        `${event.size} bytes outside an MLLP frame ("${event.sample}"): a message starts with 0x0B ` +
        "and ends with 0x1C 0x0D";
      this.answer(Promise.resolve(this.refusal(transportRefusal(undefined, text))));
      return;
    }
    m.received();
    if (event.kind === "oversize") {
      m.refused(1, { reason: "too_large" });
      const text = `the message is ${event.size} bytes, over the limit of ${this.limits.maxBytes} (--max-message-bytes)`;
      this.answer(Promise.resolve(this.refusal(transportRefusal(event.head, text, "207"))));
      return;
    }
    if (event.kind === "unended") {
      m.refused(1, { reason: "unended" });
      const text = "the frame was not ended (0x1C 0x0D) before the next one started (0x0B)";
      this.answer(Promise.resolve(this.refusal(transportRefusal(event.bytes, text))));
      return;
    }
    const verdict = judge(event.bytes, this.limits.orderBy);
    if (verdict.kind === "ignore") {
      m.ignored();
      this.log(`${this.peer}: ${verdict.header.controlId || "a message"} not answered: ${verdict.reason}`);
      return;
    }
    if (verdict.kind === "refuse") {
      m.refused(1, { reason: verdict.level === "reject" ? "unreadable" : "rule" });
      this.answer(Promise.resolve(this.refusal(verdict)));
      return;
    }
    this.answer(this.intake.receive(verdict.header, verdict.text, verdict.keys, event.bytes, this));
  }

  /** The answer to a refused frame (answers.ts), logged. */
  private refusal(verdict: Refused): Buffer | undefined {
    const h = verdict.header;
    this.log(`${this.peer}: ${h?.controlId ? `${h.controlId} ` : ""}refused: ${verdict.refusal.text}`);
    return refusalAnswer(verdict, this.intake.nextAnswerId(), new Date());
  }

  /** Queues an answer behind the ones owed before it. */
  private answer(answer: Promise<Buffer | undefined>): void {
    this.owed++;
    this.flowControl();
    this.answers = this.answers
      .then(() => answer)
      .then(
        (bytes) => {
          if (bytes === undefined || this.closed) return;
          this.socket.write(bytes);
          this.metrics.acks(1, { code: ackCode(bytes) });
        },
        () => {
          // Not kept: no answer, and the connection closes, so the sender sends it again.
          this.close("journal_error");
        },
      )
      .finally(() => {
        this.owed--;
        this.flowControl();
      });
  }

  private flowControl(): void {
    if (this.closed) return;
    const full = this.owed >= MAX_OWED || this.socket.writableLength > MAX_UNREAD;
    if (full && !this.socket.isPaused()) this.socket.pause();
    else if (!full && this.reading && this.socket.isPaused()) this.socket.resume();
  }

  private frameTimeout(): void {
    this.frameTimer = undefined;
    const seconds = this.limits.frameTimeoutMs / 1000;
    if (this.decoder.open) {
      this.metrics.received();
      this.metrics.refused(1, { reason: "frame_timeout" });
      const text = `the frame was not ended (0x1C 0x0D) within ${seconds} s`;
      this.answer(Promise.resolve(this.refusal(transportRefusal(this.decoder.partial(), text))));
    }
    // The stream cannot be trusted to be in step any more: answer what is owed, then close.
    this.reading = false;
    this.socket.pause();
    this.answers.then(() => this.close("frame_timeout"));
  }

  private idle(): void {
    // Answers owed mean the listener is the slow one: the peer is waiting, not idle.
    if (this.owed > 0 || this.decoder.open) return;
    this.close("idle");
  }

  close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.frameTimer);
    this.metrics.closed(1, { reason });
    this.socket.end();
    // A peer that never reads its end would keep the socket: it goes after a grace period.
    setTimeout(() => this.socket.destroy(), 2000).unref();
  }
}
