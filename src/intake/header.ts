// What the listener reads of a message before keeping it: its text (in the character set MSH-18 names),
// its MSH fields (for the ACK, the resend check and the rules) and its ordering keys (PID-3, MRG-1).
// Reading the rest is the HL7 v2 reader's job, in the conversion.
import { type Delimiters, readDelimiters } from "../pipeline/hl7v2/delimiters.js";

export interface Header {
  delimiters: Delimiters;
  /** The MSH fields as written, `fields[n]` being MSH-n (`fields[1]` the field separator). */
  fields: string[];
  /** MSH-10, the message control id. */
  controlId: string;
  /** MSH-9.1 and MSH-9.2: message type and trigger event. */
  type: string;
  event: string;
  /** MSH-12.1, the version id. */
  version: string;
  /** MSH-15 and MSH-16 (accept and application acknowledgment types); both "" in original mode. */
  acceptAck: string;
  appAck: string;
  /** The character set the bytes were read in. */
  charset: "utf-8" | "latin1";
  /**
   * Of a UTF-8 MSH line with characters outside ASCII: the resend key and sender label a listener made
   * before it read such a line as UTF-8, from the same line read as Latin-1 (see formerResendKey).
   */
  former?: { resendKey: string; sender: string };
}

/**
 * MSH-18 values read as Latin-1, and as UTF-8 (ASCII being a subset of it); anything else is refused.
 * docs/mllp.md lists the same.
 */
const LATIN1 = new Set(["8859/1", "ISO-8859-1", "ISO8859-1"]);
const UTF8 = new Set(["", "UNICODE UTF-8", "UTF-8", "ASCII", "UNICODE"]);

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Where the MSH line of a frame ends (its first CR or LF, else the end of the bytes). */
function lineEnd(bytes: Buffer): number {
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0d || bytes[i] === 0x0a) return i;
  }
  return bytes.length;
}

/** The MSH line of a frame read as Latin-1 (every byte a character). */
function firstLine(bytes: Buffer, end: number): string {
  return bytes.toString("latin1", 0, end).replace(/^\xef\xbb\xbf/, "");
}

/**
 * The MSH line read as UTF-8, or undefined when it is not valid UTF-8. `cut`: the line stops where the
 * bytes at hand stop (a frame refused before its end), so a character cut there is left out, not an error.
 */
function utf8Line(bytes: Buffer, end: number, cut: boolean): string | undefined {
  try {
    // A decoder of its own: one that streams keeps a cut character for the next call.
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, end), { stream: cut });
  } catch {
    return undefined;
  }
}

/** Splits an MSH line into fields so that `fields[n]` is MSH-n. */
export function mshFields(line: string, field: string): string[] {
  const parts = line.split(field);
  // "MSH|^~\&|A" -> ["MSH", "^~\&", "A"]: MSH-1 is the separator itself, so MSH-2 is parts[1].
  return ["MSH", field, ...parts.slice(1)];
}

const component = (value: string | undefined, d: Delimiters, n = 1): string =>
  (value ?? "").split(d.repetition)[0]?.split(d.component)[n - 1] ?? "";

export type Decoded =
  | { text: string; header: Header }
  | { problem: string; code: ErrorCode; header?: Header };

/** HL7 table 0357 codes the listener uses in ERR-3. */
export type ErrorCode = "100" | "101" | "102" | "103" | "203" | "207";

/**
 * Reads a frame's bytes: the MSH (from the first line, read as Latin-1 since it is ASCII in every
 * character set), then the whole text in MSH-18's character set. A problem names what made it unreadable;
 * the header is given with it when the MSH could be read, so the refusal can still answer the sender.
 */
export function decodeFrame(bytes: Buffer): Decoded {
  const msh = readMsh(bytes, false);
  if ("problem" in msh) return msh;
  const { header, charset } = msh;
  if (header.charset === "latin1") return { text: bytes.toString("latin1"), header };
  if (!UTF8.has(charset)) {
    return {
      problem: `MSH-18 character set "${charset}" is not supported (UTF-8, ASCII and 8859/1 are)`,
      code: "102",
      header,
    };
  }
  try {
    return { text: strictUtf8.decode(bytes), header };
  } catch {
    return {
      problem: "the message is not valid UTF-8 (MSH-18 names no other character set)",
      code: "102",
      header,
    };
  }
}

/**
 * The MSH of a frame and the character set MSH-18 names (its first component, upper case). The line is read
 * as Latin-1 first, which is enough to find MSH-18 (ASCII in every character set); a message in UTF-8 with
 * characters outside ASCII in its MSH line is read again as UTF-8, so that its fields are the characters
 * sent (MSH-4 `MÜNCHEN`, not `MÃ\u009cNCHEN`), as the ACK copies them and as the resend key and the sender
 * label name them. An MSH line that is not valid UTF-8 stays as read in Latin-1 (the message is refused).
 * `partial`: the bytes are the start of a frame only (refused before its end).
 */
function readMsh(
  bytes: Buffer,
  partial: boolean,
): { header: Header; charset: string } | { problem: string; code: ErrorCode } {
  const end = lineEnd(bytes);
  const line = firstLine(bytes, end);
  if (!line.startsWith("MSH")) {
    const start = printable(line.slice(0, 20));
    return { problem: `the message does not start with MSH but with "${start}"`, code: "100" };
  }
  const delimiters = readDelimiters(line);
  if (typeof delimiters === "string") return { problem: delimiters, code: "102" };
  const header = readHeader(line, delimiters);
  const charset = component(header.fields[18], delimiters).trim().toUpperCase();
  if (LATIN1.has(charset)) {
    header.charset = "latin1";
    return { header, charset };
  }
  // Only ASCII in the line (nearly every message): the same characters in UTF-8.
  if (!UTF8.has(charset) || !/[\x80-\xff]/.test(line)) return { header, charset };
  const text = utf8Line(bytes, end, partial && end === bytes.length);
  if (text === undefined) return { header, charset };
  const d = readDelimiters(text);
  if (typeof d === "string") return { problem: d, code: "102" };
  const utf8 = readHeader(text, d);
  utf8.former = { resendKey: resendKey(header), sender: senderOf(header) };
  return { header: utf8, charset };
}

function readHeader(line: string, delimiters: Delimiters): Header {
  const fields = mshFields(line, delimiters.field);
  return {
    delimiters,
    fields,
    controlId: (fields[10] ?? "").trim(),
    type: component(fields[9], delimiters).trim(),
    event: component(fields[9], delimiters, 2).trim(),
    version: component(fields[12], delimiters).trim(),
    acceptAck: (fields[15] ?? "").trim().toUpperCase(),
    appAck: (fields[16] ?? "").trim().toUpperCase(),
    charset: "utf-8",
  };
}

/**
 * The MSH of a frame's first bytes, when it has one (to answer a frame refused before it was read), in the
 * character set its MSH-18 names: a refusal of a message in 8859/1 is answered in 8859/1 too.
 */
export function headerOf(bytes: Buffer): Header | undefined {
  const msh = readMsh(bytes, true);
  return "header" in msh ? msh.header : undefined;
}

/** The resend check's key: the sender (MSH-3, MSH-4) and MSH-10. */
export function resendKey(h: Header): string {
  return `${h.fields[3] ?? ""}\u001f${h.fields[4] ?? ""}\u001f${h.controlId}`;
}

/**
 * The resend key a listener made of this message before it read a UTF-8 MSH line as UTF-8: the key of the
 * line read as Latin-1, as that listener read it (`MÃ\u009cNCHEN` for `MÜNCHEN`; a control id whose last
 * character's UTF-8 ends in A0, such as `à`, lost that byte to trim() there as a no-break space). Undefined
 * when that is the same key (an MSH line in ASCII, or a message in 8859/1, which was always read so). A
 * journal kept before the upgrade holds such keys: a resend across it is recognised by this one.
 */
export function formerResendKey(h: Header): string | undefined {
  return h.former?.resendKey;
}

/** The sender label a listener made before reading a UTF-8 MSH line as UTF-8 (as formerResendKey). */
export function formerSenderOf(h: Header): string | undefined {
  return h.former?.sender;
}

/** The sender as a label: `MSH-3|MSH-4` as written. */
export function senderOf(h: Header): string {
  return `${h.fields[3] ?? ""}|${h.fields[4] ?? ""}`;
}

export type OrderBy = "patient" | "sender";

/**
 * The keys a message is converted in order on. `patient`: each PID-3's first identifier (CX-1 with its
 * assigning authority CX-4) and each MRG-1's, so a merge or link waits for every patient it names; a
 * message naming no patient falls back to its sender. `sender`: MSH-3 and MSH-4.
 */
export function orderKeys(text: string, h: Header, by: OrderBy): string[] {
  const sender = `sender:${senderOf(h)}`;
  if (by === "sender") return [sender];
  const d = h.delimiters;
  const keys: string[] = [];
  // Found with indexOf rather than by splitting the message into lines: this runs on the main thread for
  // every message, and most of a message is not PID or MRG.
  for (const [type, n] of [
    ["PID", 3],
    ["MRG", 1],
  ] as const) {
    const tag = `${type}${d.field}`;
    for (let at = text.indexOf(tag); at >= 0; at = text.indexOf(tag, at + 4)) {
      if (at > 0 && text[at - 1] !== "\r" && text[at - 1] !== "\n") continue;
      let end = at;
      while (end < text.length && text[end] !== "\r" && text[end] !== "\n") end++;
      const value = text.slice(at, end).split(d.field)[n] ?? "";
      const first = value.split(d.repetition)[0] ?? "";
      const parts = first.split(d.component);
      const id = (parts[0] ?? "").trim();
      if (id === "") continue;
      const authority = (parts[3] ?? "").split(d.subcomponent)[0]?.trim() ?? "";
      const key = `patient:${id}^${authority}`;
      if (!keys.includes(key)) keys.push(key);
    }
  }
  return keys.length > 0 ? keys : [sender];
}

function printable(s: string): string {
  return s.replace(/[^\x20-\x7e]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}
