// MLLP framing: cuts the bytes of one TCP connection into messages (0x0B, the message, 0x1C 0x0D) and
// reports what is not a well-formed frame (bytes outside a frame, a frame over the size cap, a frame cut
// by the start of the next one), so the connection can answer each with its documented ACK.

export const VT = 0x0b;
export const FS = 0x1c;
export const CR = 0x0d;

/** Bytes kept of a frame over the cap: enough for its MSH, so its refusal can still name it. */
export const HEAD_BYTES = 4096;

export type FrameEvent =
  /** A whole frame: the message between 0x0B and 0x1C 0x0D. */
  | { kind: "frame"; bytes: Buffer }
  /** A whole frame over the cap: its first HEAD_BYTES bytes and its full size. */
  | { kind: "oversize"; head: Buffer; size: number }
  /** A frame that a new 0x0B started before its 0x1C 0x0D came: what it held. */
  | { kind: "unended"; bytes: Buffer }
  /** Bytes outside any frame (but whitespace between frames), reported once per stretch. */
  | { kind: "garbage"; size: number; sample: string };

// Line ends, spaces and tabs between frames are common (a sender ending each frame with a newline) and
// harmless: they are skipped without a word.
const BETWEEN = new Set([CR, 0x0a, 0x20, 0x09]);

export class FrameDecoder {
  private chunks: Buffer[] = [];
  private size = 0;
  private inFrame = false;
  /** Set when the last byte of the previous chunk was 0x1C inside a frame. */
  private sawFs = false;
  private garbage = 0;
  private garbageSample = "";
  private garbageReported = false;
  /** Counts frames and stretches of garbage begun: a timer set for one is not the next one's. */
  private begun = 0;

  constructor(private readonly maxBytes: number) {}

  /** True while a frame has started and not ended (the frame timeout runs). */
  get open(): boolean {
    return this.inFrame;
  }

  /** The first bytes of the open frame, to name it in a refusal. */
  partial(): Buffer {
    return Buffer.concat(this.chunks).subarray(0, HEAD_BYTES);
  }

  /** Which frame or stretch of garbage is open now (changes when another begins). */
  get current(): number {
    return this.begun;
  }

  /** Bytes outside frames in the current stretch (to close a connection that sends nothing else). */
  get garbageBytes(): number {
    return this.garbage;
  }

  push(chunk: Buffer): FrameEvent[] {
    const events: FrameEvent[] = [];
    let i = 0;
    while (i < chunk.length) {
      if (!this.inFrame) {
        const b = chunk[i] as number;
        if (b === VT) {
          this.endGarbage(events, true);
          this.inFrame = true;
          this.begun++;
          this.chunks = [];
          this.size = 0;
          this.sawFs = false;
        } else if (!BETWEEN.has(b) || this.garbage > 0) {
          if (this.garbage === 0) this.begun++;
          if (this.garbageSample.length < 40) this.garbageSample += printable(b);
          this.garbage++;
        }
        i++;
        continue;
      }
      // Inside a frame: look for its end, or for a 0x0B that starts another one before it.
      if (this.sawFs) {
        this.sawFs = false;
        if (chunk[i] === CR) {
          events.push(this.finish(Buffer.alloc(0), true));
          i++;
          continue;
        }
        this.add(Buffer.of(FS));
      }
      let j = i;
      let end = -1;
      let restart = -1;
      for (; j < chunk.length; j++) {
        const b = chunk[j];
        if (b === FS) {
          end = j;
          break;
        }
        if (b === VT) {
          restart = j;
          break;
        }
      }
      if (restart >= 0) {
        events.push(this.finish(chunk.subarray(i, restart), false));
        i = restart;
        continue;
      }
      if (end < 0) {
        this.add(chunk.subarray(i));
        break;
      }
      if (end + 1 >= chunk.length) {
        this.add(chunk.subarray(i, end));
        this.sawFs = true;
        break;
      }
      if (chunk[end + 1] === CR) {
        events.push(this.finish(chunk.subarray(i, end), true));
        i = end + 2;
        continue;
      }
      // A lone 0x1C is not an end: it stays in the message (and makes it unparseable there, with a reason).
      this.add(chunk.subarray(i, end + 1));
      i = end + 1;
    }
    // Reported at the end of a chunk, so a sender that wrote garbage and waits hears back now.
    this.endGarbage(events, false);
    return events;
  }

  private add(part: Buffer): void {
    if (part.length === 0) return;
    // Past the cap only the head is kept: a frame far over it costs no memory.
    if (this.size < this.maxBytes) this.chunks.push(Buffer.from(part));
    else if (this.size < HEAD_BYTES) this.chunks.push(Buffer.from(part.subarray(0, HEAD_BYTES - this.size)));
    this.size += part.length;
  }

  private finish(last: Buffer, ended: boolean): FrameEvent {
    this.add(last);
    this.inFrame = false;
    const size = this.size;
    const bytes = Buffer.concat(this.chunks);
    this.chunks = [];
    this.size = 0;
    if (!ended) return { kind: "unended", bytes: bytes.subarray(0, Math.min(bytes.length, this.maxBytes)) };
    if (size > this.maxBytes) return { kind: "oversize", head: bytes.subarray(0, HEAD_BYTES), size };
    return { kind: "frame", bytes };
  }

  /** Reports the stretch of garbage so far (once); `closed` when a frame starts and the stretch ends. */
  private endGarbage(events: FrameEvent[], closed: boolean): void {
    if (this.garbage === 0) return;
    if (!this.garbageReported) {
      events.push({ kind: "garbage", size: this.garbage, sample: this.garbageSample });
      this.garbageReported = true;
    }
    if (closed) {
      this.garbage = 0;
      this.garbageSample = "";
      this.garbageReported = false;
    }
  }
}

function printable(b: number): string {
  // Angle brackets, not backslashes: the sample goes into an ERR field, where a backslash is an escape.
  return b >= 0x20 && b < 0x7f
    ? String.fromCharCode(b)
    : `<${b.toString(16).padStart(2, "0").toUpperCase()}>`;
}
