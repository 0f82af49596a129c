// Cuts an ER7 byte stream into batches of whole messages without decoding it: the main thread only finds
// line breaks and the lines that start a message, counting messages and lines as the splitter (split.ts)
// will, so that each batch carries the index of its first message and its first line, and the workers
// decode, split and map it. A message over the per-message limit is never held whole: it is skipped as it
// streams by and reported.
import type { Er7Batch } from "../types.js";
import { cleanLine, isEnvelope } from "./split.js";

export interface Er7BatchOptions {
  file: string;
  /** Cut a batch at the first message start once it holds at least this many bytes. */
  batchBytes: number;
  /** A message longer than this many bytes is an issue, not a message. */
  maxRecordBytes: number;
  /** How the limit is named in messages, e.g. "16 MiB (--max-record-bytes)". */
  limitLabel: string;
  /**
   * Asked once the input has ended: true when it ended in an error (corrupt gzip, a read error), so that
   * its last message, cut off at some line, is told apart instead of converted as if whole.
   */
  failed?: () => boolean;
}

const LF = 0x0a;
const CR = 0x0d;
const VT = 0x0b;
const FS = 0x1c;

/** What a line is to the splitter: nothing (blank), a message start, a batch envelope or a segment. */
export type LineKind = "blank" | "msh" | "envelope" | "segment";

/** Of a line being skipped, the bytes kept: enough to tell whether it starts a message. */
const HEAD_BYTES = 64;

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * The kind of the line `b[s, e)`, as `MessageSplitter.push` sees it. Printable ASCII after the framing
 * bytes (nearly every line) decides it from the bytes; anything else is decoded and cleaned as the splitter
 * cleans it.
 */
export function lineKind(b: Uint8Array, s: number, e: number): LineKind {
  let i = s;
  for (;;) {
    const c = b[i];
    if (i < e && (c === VT || c === FS)) i++;
    else if (i + 2 < e && c === 0xef && b[i + 1] === 0xbb && b[i + 2] === 0xbf) i += 3;
    else break;
  }
  if (i >= e) return "blank";
  const c = b[i]!;
  if (c > 0x20 && c < 0x7f) {
    if (i + 3 > e) return "segment";
    if (c === 0x4d && b[i + 1] === 0x53 && b[i + 2] === 0x48) return "msh";
    return isEnvelope(String.fromCharCode(c, b[i + 1]!, b[i + 2]!)) ? "envelope" : "segment";
  }
  const line = cleanLine(decoder.decode(b.subarray(s, e)));
  if (line === "") return "blank";
  const id = line.slice(0, 3);
  return id === "MSH" ? "msh" : isEnvelope(id) ? "envelope" : "segment";
}

/** Messages and lines counted so far, and whether a message is open (the splitter's `current`). */
interface Count {
  messages: number;
  lines: number;
  open: boolean;
}

/** Counts one line into `c`, as the splitter reads it; true when the line starts a message. */
export function countLine(c: Count, kind: LineKind): boolean {
  c.lines++;
  if (kind === "msh" || (kind === "segment" && !c.open)) {
    c.messages++;
    c.open = true;
    return true;
  }
  if (kind === "envelope") c.open = false;
  return false;
}

/** A message skipped for its size: its index, first line and first segment's id, its bytes and lines so far. */
interface Skipped {
  message: number;
  line: number;
  type: string;
  bytes: number;
  lines: number;
}

/** The segment id a line starts with, as the splitter cleans it. */
function lineId(b: Uint8Array, s: number): string {
  return cleanLine(decoder.decode(b.subarray(s, Math.min(b.length, s + HEAD_BYTES)))).slice(0, 3);
}

/**
 * The batches of one input, read lazily. A batch is a view into the bytes read (or a copy joining the end
 * of one read and the start of the next); the pool moves it to a worker.
 */
export async function* er7Batches(
  input: AsyncIterable<Uint8Array>,
  options: Er7BatchOptions,
): AsyncGenerator<Er7Batch> {
  const { file, batchBytes, maxRecordBytes } = options;
  /** Bytes not given out yet; buf[0] starts the batch being filled (or, skipping, the current line). */
  let buf: Uint8Array = new Uint8Array(0);
  /** Offset in `buf` of the next line to read. */
  let pos = 0;
  let firstMessage = 1;
  let firstLine = 1;
  /** The lines of buf[0, pos). */
  const count: Count = { messages: 0, lines: 0, open: false };
  /** Where the open message starts in `buf`, and the counts before it. */
  let msgStart = 0;
  const before = { messages: 0, lines: 0 };
  let skipping: Skipped | undefined;

  const batch = (end: number, messages: number, lines: number): Er7Batch => {
    const b: Er7Batch = { kind: "er7", file, firstMessage, firstLine, text: buf.subarray(0, end) };
    firstMessage += messages;
    firstLine += lines;
    return b;
  };
  const tooLarge = (s: Skipped): Er7Batch => ({
    kind: "er7",
    file,
    firstMessage: s.message,
    firstLine: s.line,
    text: "",
    tooLarge: { bytes: s.bytes, limit: options.limitLabel, type: s.type },
  });

  const ends = new LineEnds();
  /** Cuts the first `n` bytes off `buf`. */
  const drop = (n: number): void => {
    buf = buf.subarray(n);
    ends.cut(n);
  };
  /** Skipping: the line being read was told apart already (it is the skipped message's). */
  let seen = false;
  /** Keeps only the head of the line being read, and a last CR (which may begin a CRLF). */
  const trim = (s: Skipped): void => {
    if (buf.length <= HEAD_BYTES + 1) return;
    const cr = buf[buf.length - 1] === CR;
    s.bytes += buf.length - HEAD_BYTES - (cr ? 1 : 0);
    buf = cr ? concat(buf.subarray(0, HEAD_BYTES), buf.subarray(buf.length - 1)) : buf.slice(0, HEAD_BYTES);
    ends.reset(buf, 0, 0);
  };

  for await (const chunk of withEnd(input)) {
    const final = chunk === END;
    if (!final) {
      const kept = buf.length;
      buf = kept === 0 ? chunk : concat(buf, chunk);
      ends.reset(buf, 0, kept);
    }
    for (let end = ends.at(pos, final); end !== undefined; end = ends.at(pos, final)) {
      const e = end[0];
      let next = end[1];
      if (skipping) {
        const kind = seen ? "segment" : lineKind(buf, pos, Math.min(e, pos + HEAD_BYTES));
        seen = false;
        if (kind !== "msh" && kind !== "envelope") {
          skipping.bytes += next - pos;
          skipping.lines++;
          drop(next);
          pos = 0;
          continue;
        }
        // The next message (or a batch envelope) ends the one skipped.
        yield tooLarge(skipping);
        firstMessage = skipping.message + 1;
        firstLine = skipping.line + skipping.lines;
        skipping = undefined;
        count.open = false;
      }
      const kind = lineKind(buf, pos, e);
      if ((kind === "msh" || kind === "envelope") && count.open && pos - msgStart > maxRecordBytes) {
        // The message this line ends was read whole (in one read) but is over the limit all the same.
        if (msgStart > 0) yield batch(msgStart, before.messages, before.lines);
        const lines = count.lines - before.lines;
        const type = lineId(buf, msgStart);
        yield tooLarge({ message: firstMessage, line: firstLine, type, bytes: pos - msgStart, lines });
        firstMessage++;
        firstLine += lines;
        drop(pos);
        next -= pos;
        pos = 0;
        count.messages = 0;
        count.lines = 0;
      }
      // Cut before a line that starts a message, once the batch has its bytes.
      if ((kind === "msh" || kind === "envelope") && pos >= batchBytes) {
        yield batch(pos, count.messages, count.lines);
        drop(pos);
        next -= pos;
        pos = 0;
        count.messages = 0;
        count.lines = 0;
      }
      const { messages, lines } = count;
      if (countLine(count, kind)) {
        msgStart = pos;
        before.messages = messages;
        before.lines = lines;
      }
      pos = next;
    }
    if (final) break;
    if (skipping) {
      trim(skipping);
      continue;
    }
    // Over the limit, the open message (or the one the line being read starts, told by its head) is
    // skipped, and the messages before it are given out.
    let start = count.open ? msgStart : pos;
    let messages = count.open ? before.messages : count.messages;
    let lines = count.open ? before.lines : count.lines;
    const long = buf.length - pos >= HEAD_BYTES;
    if (long) {
      const kind = lineKind(buf, pos, pos + HEAD_BYTES);
      if (kind === "msh" || kind === "envelope" || !count.open) {
        start = pos;
        messages = count.messages;
        lines = count.lines;
      }
    }
    if (buf.length - start <= maxRecordBytes) continue;
    const type = lineId(buf, start);
    if (start > 0) yield batch(start, messages, lines);
    skipping = {
      message: firstMessage,
      line: firstLine,
      type,
      bytes: pos - start,
      lines: count.lines - lines,
    };
    drop(pos);
    pos = 0;
    count.messages = 0;
    count.lines = 0;
    count.open = true;
    seen = long;
    trim(skipping);
  }
  if (!skipping && count.open && buf.length - msgStart > maxRecordBytes) {
    const type = lineId(buf, msgStart);
    if (msgStart > 0) yield batch(msgStart, before.messages, before.lines);
    skipping = { message: firstMessage, line: firstLine, type, bytes: 0, lines: 0 };
    drop(msgStart);
  }
  if (skipping) {
    skipping.bytes += buf.length;
    yield tooLarge(skipping);
  } else if (count.open && options.failed?.() === true) {
    if (msgStart > 0) yield batch(msgStart, before.messages, before.lines);
    const type = lineId(buf, msgStart);
    yield {
      kind: "er7",
      file,
      firstMessage,
      firstLine,
      text: "",
      cutShort: { type, lines: count.lines - before.lines },
    };
  } else if (buf.length > 0) yield batch(buf.length, count.messages, count.lines);
}

const END = new Uint8Array(0);

async function* withEnd(input: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  for await (const chunk of input) if (chunk.length > 0) yield chunk;
  yield END;
}

/**
 * Finds line ends in a buffer: where the next CR and the next LF are, found with indexOf (memchr) and kept
 * until passed, so that each byte is looked at once however the lines end (a loop over the bytes in JS cost
 * the main thread ~4x as much). Offsets move with the buffer when its start is cut off.
 */
class LineEnds {
  private b: Uint8Array = new Uint8Array(0);
  private cr = -2;
  private lf = -2;

  /** A new buffer whose first `kept` bytes are the old one's from `from` (0, 0: all new). */
  reset(b: Uint8Array, from: number, kept: number): void {
    const shift = (x: number) => (x >= from && x < from + kept ? x - from : -2);
    this.cr = shift(this.cr);
    this.lf = shift(this.lf);
    this.b = b;
  }

  /** The buffer's start moved to `by` (a batch was cut off). */
  cut(by: number): void {
    this.b = this.b.subarray(by);
    // -1 (none left in the buffer) stays true; an end that was cut off is looked for again (-2).
    const shift = (x: number) => (x >= by ? x - by : x === -1 ? -1 : -2);
    this.cr = shift(this.cr);
    this.lf = shift(this.lf);
  }

  /**
   * The end of the line starting at `pos` and the start of the next: [end, next]; undefined when the line
   * is not complete yet (a CR at the end of what was read may be the first half of a CRLF). At the end of
   * the input, the last line ends there.
   */
  at(pos: number, final: boolean): [number, number] | undefined {
    const b = this.b;
    if (pos >= b.length) return undefined;
    if (this.cr !== -1 && this.cr < pos) this.cr = b.indexOf(CR, pos);
    if (this.lf !== -1 && this.lf < pos) this.lf = b.indexOf(LF, pos);
    const { cr, lf } = this;
    if (cr === -1 && lf === -1) return final ? [b.length, b.length] : undefined;
    if (cr === -1 || (lf !== -1 && lf < cr)) return [lf, lf + 1];
    if (cr + 1 < b.length) return [cr, b[cr + 1] === LF ? cr + 2 : cr + 1];
    return final ? [cr, cr + 1] : undefined;
  }
}

/** One buffer of two: allocated without zero-filling (Buffer.concat), every byte is overwritten. */
function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  return Buffer.concat([a, b]);
}
