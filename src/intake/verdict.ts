// The listener's rules for one frame: keep it, refuse it (AR: it cannot be read as a message at all; AE:
// it can, but breaks a rule below), or answer nothing (it is itself an acknowledgment). docs/mllp.md
// lists the same rules for senders.
import { SEGMENT_ID } from "../pipeline/hl7v2/segment.js";
import { splitMessages } from "../pipeline/hl7v2/split.js";
import { isAckCondition } from "./answers.js";
import { decodeFrame, type ErrorCode, type Header, headerOf, type OrderBy, orderKeys } from "./header.js";

export interface Refusal {
  /** HL7 table 0357 code for ERR-3. */
  code: ErrorCode;
  /** ERR-2 error location (`MSH^1^10`), when one field is to blame. */
  location?: string;
  text: string;
}

/** `reject`: AR (CR in enhanced mode); `error`: AE (CE). */
export interface Refused {
  kind: "refuse";
  level: "reject" | "error";
  header?: Header;
  refusal: Refusal;
}

export type Verdict =
  | { kind: "keep"; header: Header; text: string; keys: string[] }
  | Refused
  | { kind: "ignore"; header: Header; reason: string };

export function judge(bytes: Buffer, orderBy: OrderBy): Verdict {
  const decoded = decodeFrame(bytes);
  if ("problem" in decoded) {
    const refusal = { code: decoded.code, text: decoded.problem };
    return decoded.header
      ? { kind: "refuse", level: "reject", header: decoded.header, refusal }
      : { kind: "refuse", level: "reject", refusal };
  }
  const { text, header } = decoded;
  const reject = (refusal: Refusal): Verdict => ({ kind: "refuse", level: "reject", header, refusal });
  const error = (refusal: Refusal): Verdict => ({ kind: "refuse", level: "error", header, refusal });
  const raws = [...splitMessages(text)];
  const raw = raws[0];
  if (raw === undefined) return reject({ code: "100", text: "the frame holds no segment" });
  // The checks the conversion's reader makes before anything else (parseMessage in
  // pipeline/hl7v2/message.ts), so that what is kept can be read there; made here without parsing.
  const field = header.delimiters.field;
  for (let i = 0; i < raw.segments.length; i++) {
    const s = raw.segments[i] as string;
    const id = s.slice(0, 3);
    if (!SEGMENT_ID.test(id) || (s.length > 3 && s[3] !== field)) {
      const refusal: Refusal = {
        code: "100",
        text: `segment ${i + 1}: "${s.slice(0, 20)}" is not a segment: expected a 3-character id and "${field}"`,
      };
      // ERR-2 names a segment by its id: only when the segment has one.
      if (SEGMENT_ID.test(id)) refusal.location = `${id}^${i + 1}`;
      return reject(refusal);
    }
  }
  if (header.type === "ACK") {
    return { kind: "ignore", header, reason: "an acknowledgment is not acknowledged" };
  }
  if (header.type === "") {
    return error({ code: "101", location: "MSH^1^9", text: "MSH-9 (message type) is empty" });
  }
  if (header.controlId === "") {
    return error({
      code: "101",
      location: "MSH^1^10",
      text: "MSH-10 (message control id) is empty: it is what recognises a resend",
    });
  }
  if (!/^2\.\d/.test(header.version)) {
    return error({
      code: "203",
      location: "MSH^1^12",
      text: `MSH-12 version "${header.version}" is not supported: only HL7 v2 messages are accepted (MSH-12 2.x, such as 2.3.1 or 2.5.1)`,
    });
  }
  for (const [n, value] of [
    [15, header.acceptAck],
    [16, header.appAck],
  ] as const) {
    if (!isAckCondition(value)) {
      return error({
        code: "103",
        location: `MSH^1^${n}`,
        text: `MSH-${n} "${value}" is not an acknowledgment type (AL, NE, ER or SU)`,
      });
    }
  }
  if (raws.length > 1) {
    return error({
      code: "100",
      location: `MSH^${raw.segments.length + 1}`,
      text: `a frame carries one message; this one carries ${raws.length} (one MSH each)`,
    });
  }
  return { kind: "keep", header, text, keys: orderKeys(text, header, orderBy) };
}

/** The refusal of a frame that was not read as a message (garbage, over the cap, cut short). */
export function transportRefusal(head: Buffer | undefined, text: string, code: ErrorCode = "100"): Refused {
  const header = head ? headerOf(head) : undefined;
  const refusal: Refusal = { code, text };
  return header
    ? { kind: "refuse", level: "reject", header, refusal }
    : { kind: "refuse", level: "reject", refusal };
}
