// Which answer a message gets, by the acknowledgment mode its MSH-15 and MSH-16 ask for (docs/mllp.md):
// the answer once kept, the answer to a refusal, and the application acknowledgment after conversion.
import { type AckCode, buildAck, frameAck } from "./ack.js";
import type { Outcome } from "./convert.js";
import type { Header } from "./header.js";
import type { Refusal, Refused } from "./verdict.js";

/** HL7 table 0155, the acknowledgment conditions MSH-15 and MSH-16 may name; "" (not given) as well. */
const CONDITIONS = new Set(["", "AL", "NE", "ER", "SU"]);
export const isAckCondition = (value: string): boolean => CONDITIONS.has(value);

/**
 * Enhanced mode when MSH-15 or MSH-16 is set; original mode when both are empty, and also when either is
 * not an acknowledgment condition: such a message is refused (verdict.ts), and since it does not say which
 * answers it wants, it gets the one answer of original mode rather than none.
 */
export const enhanced = (h: Header): boolean =>
  (h.acceptAck !== "" || h.appAck !== "") && isAckCondition(h.acceptAck) && isAckCondition(h.appAck);

/** Whether an acknowledgment condition (table 0155) asks for an answer with this outcome; "" is NE. */
export const asks = (condition: string, positive: boolean): boolean =>
  condition === "AL" || (condition === "ER" && !positive) || (condition === "SU" && positive);

/** Answer ids: unique across restarts without a counter in the journal. */
export function answerIds(): () => string {
  const prefix = `CM${Date.now().toString(36).toUpperCase()}`;
  let n = 0;
  return () => `${prefix}${(++n).toString(36).toUpperCase()}`;
}

const framed = (h: Header | undefined, code: AckCode, controlId: string, time: Date, errors?: Refusal[]) =>
  frameAck(buildAck(h, code, { controlId, time, ...(errors ? { errors } : {}) }), h?.charset);

/**
 * Whether the sender's only answer to a message that converts is the application ACK (MSH-15 NE, MSH-16 AL
 * or SU): such a sender waits for the conversion, so the listener converts these messages first.
 */
export const waitsForConversion = (h: Header): boolean =>
  enhanced(h) && !asks(h.acceptAck, true) && asks(h.appAck, true);

/** The answer once kept: AA in original mode, CA when MSH-15 asks for it, else none (empty). */
export function keptAnswer(h: Header, controlId: string, time: Date): Buffer {
  if (!enhanced(h)) return framed(h, "AA", controlId, time);
  return asks(h.acceptAck, true) ? framed(h, "CA", controlId, time) : Buffer.alloc(0);
}

/**
 * The answer to a refused frame: AR/AE in original mode; in enhanced mode CR/CE when MSH-15 asks for
 * errors, else AR/AE as an application acknowledgment when MSH-16 does, else none.
 */
export function refusalAnswer(verdict: Refused, controlId: string, time: Date): Buffer | undefined {
  const h = verdict.header;
  const reject = verdict.level === "reject";
  let code: AckCode | undefined = reject ? "AR" : "AE";
  if (h && enhanced(h)) {
    if (asks(h.acceptAck, false)) code = reject ? "CR" : "CE";
    else if (!asks(h.appAck, false)) code = undefined;
  }
  return code === undefined ? undefined : framed(h, code, controlId, time, [verdict.refusal]);
}

/**
 * The application acknowledgment (enhanced mode) once the conversion is committed: AA once a Bundle is
 * written (its issues go to the issues file, as `map` reports them); AE when the message could not be
 * converted at all (a dead letter), naming why. Undefined when MSH-16 does not ask for it.
 */
export function applicationAnswer(
  h: Header,
  outcome: Outcome,
  controlId: string,
  time: Date,
): { code: AckCode; bytes: Buffer } | undefined {
  if (!enhanced(h)) return undefined;
  const code: AckCode = outcome.kind === "dead" ? "AE" : "AA";
  if (!asks(h.appAck, code === "AA")) return undefined;
  const errors: Refusal[] =
    outcome.kind === "bundle"
      ? []
      : outcome.issues
          .filter((i) => i.severity === "error")
          .slice(0, 10)
          .map((i) => ({
            code: "207",
            ...(i.segment_type ? { location: `${i.segment_type}^${i.segment}` } : {}),
            text: `${i.code}${i.field ? ` at ${i.field}` : ""}: ${i.message}`,
          }));
  return { code, bytes: framed(h, code, controlId, time, errors) };
}
