// Decodes an ER7 batch: one validity check (simdutf) and one decode for valid UTF-8, nearly every batch;
// otherwise each invalid sequence becomes U+FFFD and is noted with its line and the text before it on that
// line, so that the message converter can name the message, segment and field it spoiled.
import { isUtf8 } from "node:buffer";
import { utf8Faults } from "../utf8.js";

/** One invalid sequence: the line (0-based within the batch), the line's text before it, its bytes. */
export interface LineFault {
  before: string;
  bytes: string;
}

export interface DecodedBatch {
  text: string;
  /** By line index within the batch (CR, LF and CRLF end a line); undefined when the batch is valid. */
  faults?: Map<number, LineFault[]>;
}

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

export function decodeBatch(text: Uint8Array | string): DecodedBatch {
  if (typeof text === "string") return { text };
  if (isUtf8(text)) return { text: decoder.decode(text) };
  const faults = new Map<number, LineFault[]>();
  const parts: string[] = [];
  let line = 0;
  for (let start = 0; start < text.length; line++) {
    let end = start;
    while (end < text.length && text[end] !== 0x0a && text[end] !== 0x0d) end++;
    const brk = end < text.length ? (text[end] === 0x0d && text[end + 1] === 0x0a ? 2 : 1) : 0;
    let decoded = "";
    let from = start;
    for (const f of utf8Faults(text, start, end)) {
      const at = start + f.byte;
      decoded += decoder.decode(text.subarray(from, at));
      const list = faults.get(line) ?? [];
      list.push({ before: decoded, bytes: f.bytes });
      faults.set(line, list);
      decoded += "\uFFFD";
      from = at + f.bytes.split(" ").length;
    }
    decoded += decoder.decode(text.subarray(from, end));
    parts.push(decoded, decoder.decode(text.subarray(end, end + brk)));
    start = end + brk;
  }
  return { text: parts.join(""), faults };
}
