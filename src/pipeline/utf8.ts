// UTF-8 input that is not valid UTF-8 becomes an issue, not silent U+FFFD: one fast validity check per
// batch or chunk (simdutf, via buffer.isUtf8), and a byte-by-byte scan only where it fails.
import { isUtf8 } from "node:buffer";

/** What is wrong at one place: `0xff`, `0xe2 0x82` (a sequence cut short), ... */
export interface Utf8Fault {
  /** Offset of the first bad byte within the bytes checked. */
  byte: number;
  /** The bad bytes, as `0xNN` words. */
  bytes: string;
}

/**
 * The length of the valid-or-invalid unit at `i`: a whole valid sequence (positive), or the count of bytes
 * to replace as one fault (negative, the maximal ill-formed prefix as the Unicode standard counts it).
 * `end` bounds the sequence; a sequence cut by it is a fault of the bytes it has.
 */
function unitAt(b: Uint8Array, i: number, end: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  let need: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) need = 1;
  else if (c >= 0xe0 && c <= 0xef) {
    need = 2;
    if (c === 0xe0) lo = 0xa0;
    else if (c === 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    need = 3;
    if (c === 0xf0) lo = 0x90;
    else if (c === 0xf4) hi = 0x8f;
  } else return -1;
  for (let k = 1; k <= need; k++) {
    const j = i + k;
    if (j >= end) return -k;
    const d = b[j]!;
    if (d < (k === 1 ? lo : 0x80) || d > (k === 1 ? hi : 0xbf)) return -k;
  }
  return need + 1;
}

const hex = (b: Uint8Array, from: number, n: number): string =>
  Array.from(b.subarray(from, from + n), (x) => `0x${x.toString(16).padStart(2, "0")}`).join(" ");

/** Every fault in `bytes[from, to)`; empty when the range is valid UTF-8. */
export function utf8Faults(bytes: Uint8Array, from = 0, to = bytes.length): Utf8Fault[] {
  const faults: Utf8Fault[] = [];
  if (isUtf8(bytes.subarray(from, to))) return faults;
  for (let i = from; i < to; ) {
    const n = unitAt(bytes, i, to);
    if (n > 0) {
      i += n;
      continue;
    }
    faults.push({ byte: i - from, bytes: hex(bytes, i, -n) });
    i += -n;
  }
  return faults;
}

/** The sentence an invalid_utf8 issue says: `invalid UTF-8 (0xff) at byte 3 of the line; ...`. */
export function utf8Message(bytes: string, where: string): string {
  return `invalid UTF-8 (${bytes}) ${where}; the record is not read (the input must be UTF-8)`;
}

/** Decoded text of one chunk, and where in it the bytes that were not UTF-8 were replaced. */
export interface DecodedChunk {
  text: string;
  /** Offsets in `text` of each U+FFFD put in for a fault, with the fault. */
  faults: { at: number; fault: Utf8Fault }[];
}

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Decodes a byte stream chunk by chunk, carrying a sequence split across two chunks over to the next, and
 * saying where it replaced invalid bytes (offsets within each chunk's text, byte offsets within the
 * stream). Valid chunks, nearly all of them, cost one isUtf8 pass and one decode.
 */
export class Utf8Stream {
  private carry: Uint8Array | undefined;
  /** Bytes of the stream before the current chunk (for fault offsets). */
  private consumed = 0;

  decode(chunk: Uint8Array, final = false): DecodedChunk {
    let bytes = chunk;
    if (this.carry) {
      const joined = new Uint8Array(this.carry.length + chunk.length);
      joined.set(this.carry);
      joined.set(chunk, this.carry.length);
      bytes = joined;
    }
    const startOffset = this.consumed - (this.carry?.length ?? 0);
    this.carry = undefined;
    let end = bytes.length;
    if (!final) {
      const keep = incompleteTail(bytes);
      if (keep > 0) {
        end -= keep;
        this.carry = bytes.slice(end);
      }
    }
    this.consumed += chunk.length;
    const body = bytes.subarray(0, end);
    if (isUtf8(body)) return { text: decoder.decode(body), faults: [] };
    // The rare path: decode valid runs as they are and put one U+FFFD for each fault, noting where.
    const parts: string[] = [];
    const faults: DecodedChunk["faults"] = [];
    let at = 0;
    let run = 0;
    for (let i = 0; i < end; ) {
      const n = unitAt(body, i, end);
      if (n > 0) {
        i += n;
        continue;
      }
      const text = decoder.decode(body.subarray(run, i));
      parts.push(text, "\uFFFD");
      at += text.length;
      faults.push({ at, fault: { byte: startOffset + i, bytes: hex(body, i, -n) } });
      at += 1;
      i += -n;
      run = i;
    }
    parts.push(decoder.decode(body.subarray(run, end)));
    return { text: parts.join(""), faults };
  }
}

/** How many bytes at the end of `b` begin a sequence that the next chunk may complete (0-3). */
function incompleteTail(b: Uint8Array): number {
  for (let back = 1; back <= 3 && back <= b.length; back++) {
    const c = b[b.length - back]!;
    if (c < 0x80) return 0;
    if (c >= 0xc0) {
      const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      return need > back ? back : 0;
    }
  }
  return 0;
}

/**
 * The lines of `bytes` (numbered from `firstLine`) that are not valid UTF-8, each with its issue message;
 * undefined when all are valid, which one isUtf8 pass over the whole batch tells.
 */
export function invalidUtf8Lines(bytes: Uint8Array, firstLine: number): Map<number, string> | undefined {
  if (isUtf8(bytes)) return undefined;
  const bad = new Map<number, string>();
  let line = firstLine;
  for (let start = 0; start < bytes.length; line++) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    const fault = utf8Faults(bytes, start, end)[0];
    if (fault) bad.set(line, utf8Message(fault.bytes, `at byte ${fault.byte + 1} of the line`));
    start = end + 1;
  }
  return bad;
}

/**
 * Text of `bytes` where each byte that is not part of valid UTF-8 becomes the lone surrogate U+DC80-U+DCFF
 * of its value (Python's "surrogateescape"), instead of U+FFFD. Valid UTF-8 never decodes to a lone
 * surrogate, so after parsing (CSV cells, JSON strings) the values holding one are exactly those the bad
 * bytes were in, and `markedBytes` says which bytes. `marked` is false when the input was valid.
 */
export function decodeMarked(bytes: Uint8Array): { text: string; marked: boolean } {
  if (isUtf8(bytes)) return { text: decoder.decode(bytes), marked: false };
  const parts: string[] = [];
  let run = 0;
  for (let i = 0; i < bytes.length; ) {
    const n = unitAt(bytes, i, bytes.length);
    if (n > 0) {
      i += n;
      continue;
    }
    parts.push(decoder.decode(bytes.subarray(run, i)));
    for (let k = 0; k < -n; k++) parts.push(String.fromCharCode(0xdc00 + bytes[i + k]!));
    i += -n;
    run = i;
  }
  parts.push(decoder.decode(bytes.subarray(run)));
  return { text: parts.join(""), marked: true };
}

const MARK = /[\udc80-\udcff]+/u;

/** The first run of bytes `decodeMarked` marked in `text`, as `0xNN` words; undefined when none. */
export function markedBytes(text: string): string | undefined {
  const m = MARK.exec(text);
  if (!m) return undefined;
  return Array.from(m[0], (c) => `0x${(c.charCodeAt(0) - 0xdc00).toString(16).padStart(2, "0")}`).join(" ");
}
