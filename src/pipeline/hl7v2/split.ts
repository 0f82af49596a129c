// Cuts ER7 text into messages: CR, LF or CRLF segment separators, a UTF-8 BOM, MLLP framing bytes (VT
// before, FS CR after a message), blank lines, and FHS/BHS batch envelopes (whose segments are dropped).

/** The segment lines of one message, as found in the input. */
export interface RawMessage {
  /** 1-based index of the message in its input (a batch envelope does not count). */
  index: number;
  /** 1-based line of the message's first segment in the input. */
  line: number;
  segments: string[];
  /** The line of each segment (blank lines between segments are not segments). */
  lines?: number[];
}

const VT = "\u000b";
const FS = "\u001c";
const BOM = "\ufeff";
const ENVELOPE = new Set(["FHS", "BHS", "BTS", "FTS"]);

/** A batch envelope segment id (FHS, BHS, BTS, FTS): it ends the message before it and is dropped. */
export const isEnvelope = (id: string): boolean => ENVELOPE.has(id);

/** Strips framing and a BOM from one line; "" for lines that carry no segment. */
export function cleanLine(raw: string): string {
  let s = raw;
  if (s.length === 0) return s;
  // MLLP frames and BOMs may start any message, not only the file.
  while (s[0] === VT || s[0] === BOM || s[0] === FS) s = s.slice(1);
  while (s.length > 0 && (s[s.length - 1] === FS || s[s.length - 1] === VT)) s = s.slice(0, -1);
  return s.trim() === "" ? "" : s;
}

/**
 * A push parser: feed it lines, it hands back each message when the next one starts (or at `end()`).
 * Lines before the first MSH that are not batch envelope segments become a message of their own, so the
 * caller reports them as malformed instead of silently losing them.
 */
export class MessageSplitter {
  private current: RawMessage | undefined;
  private count: number;
  private lineNo: number;

  /** `firstMessage` and `firstLine` number the first message and line pushed (a batch's, see batches.ts). */
  constructor(firstMessage = 1, firstLine = 1) {
    this.count = firstMessage - 1;
    this.lineNo = firstLine - 1;
  }

  /** The number of the last line pushed. */
  get line(): number {
    return this.lineNo;
  }

  push(raw: string): RawMessage | undefined {
    this.lineNo++;
    const line = cleanLine(raw);
    if (line === "") return undefined;
    const id = line.slice(0, 3);
    if (id === "MSH" || ENVELOPE.has(id)) {
      const done = this.current;
      this.current = id === "MSH" ? this.start(line) : undefined;
      return done;
    }
    if (this.current === undefined) {
      this.current = this.start(line);
      return undefined;
    }
    this.current.segments.push(line);
    this.current.lines?.push(this.lineNo);
    return undefined;
  }

  end(): RawMessage | undefined {
    const done = this.current;
    this.current = undefined;
    return done;
  }

  private start(line: string): RawMessage {
    return { index: ++this.count, line: this.lineNo, segments: [line], lines: [this.lineNo] };
  }
}

const SEPARATOR = /\r\n|\r|\n/;

/** Every message of a complete text (or of a batch: its first message and line numbered as given). */
export function* splitMessages(text: string, firstMessage = 1, firstLine = 1): Generator<RawMessage> {
  const splitter = new MessageSplitter(firstMessage, firstLine);
  for (const line of text.split(SEPARATOR)) {
    const m = splitter.push(line);
    if (m) yield m;
  }
  const last = splitter.end();
  if (last) yield last;
}

/**
 * Every message of a stream of text or UTF-8 chunks, holding one partial line between chunks. A CRLF cut
 * between two chunks yields an empty line, which is skipped like any blank line.
 */
export async function* streamMessages(input: AsyncIterable<string | Uint8Array>): AsyncGenerator<RawMessage> {
  const splitter = new MessageSplitter();
  const decoder = new TextDecoder("utf-8");
  let carry = "";
  for await (const chunk of input) {
    const text = carry + (typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
    const lines = text.split(SEPARATOR);
    carry = lines.pop() ?? "";
    for (const line of lines) {
      const m = splitter.push(line);
      if (m) yield m;
    }
  }
  carry += decoder.decode();
  if (carry !== "") {
    const m = splitter.push(carry);
    if (m) yield m;
  }
  const last = splitter.end();
  if (last) yield last;
}
