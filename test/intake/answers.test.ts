import { describe, expect, it } from "vitest";
import { refusalAnswer } from "../../src/intake/answers.js";
import { judge, transportRefusal } from "../../src/intake/verdict.js";

/** An ADT^A01 of version `version` with MSH-13 onwards as `modes` (e.g. "|||AL|NE"). */
const adt = (modes: string, version = "2.5.1") =>
  `MSH|^~\\&|SND|FAC|RCV|RFAC|20260301120000||ADT^A01^ADT_A01|CTL-1|P|${version}${modes}\rPID|1||X1^^^FAC^MR||A^B\r`;
const time = new Date("2024-05-01T12:34:56.789Z");

/** The answer to a refused message, unframed (undefined: none). */
function answer(text: string): string | undefined {
  const v = judge(Buffer.from(text), "patient");
  if (v.kind !== "refuse") throw new Error(`not refused: ${v.kind}`);
  // Without the MLLP frame's 0x0B and 0x1C 0x0D.
  return refusalAnswer(v, "CM1", time)?.subarray(1, -2).toString("latin1");
}

describe("refusalAnswer: which answer a refused message gets", () => {
  it("answers a message whose MSH-15 or MSH-16 is not an acknowledgment type in original mode: AE", () => {
    const head =
      "MSH|^~\\&|RCV|RFAC|SND|FAC|20240501123456.789+0000||ACK^A01^ACK|CM1|P|2.5.1\rMSA|AE|CTL-1\r";
    expect(answer(adt("|||XX"))).toBe(
      `${head}ERR||MSH^1^15|103^Table value not found^HL70357|E|||MSH-15 "XX" is not an acknowledgment type (AL, NE, ER or SU)\r`,
    );
    expect(answer(adt("||||YY"))).toBe(
      `${head}ERR||MSH^1^16|103^Table value not found^HL70357|E|||MSH-16 "YY" is not an acknowledgment type (AL, NE, ER or SU)\r`,
    );
    // A valid MSH-15 beside an invalid MSH-16 does not make it enhanced mode: AE, not CE.
    expect(answer(adt("|||AL|YY"))).toBe(
      `${head}ERR||MSH^1^16|103^Table value not found^HL70357|E|||MSH-16 "YY" is not an acknowledgment type (AL, NE, ER or SU)\r`,
    );
    // Whatever else it breaks first (here MSH-12).
    expect(answer(adt("|||XX", "3.0"))?.split("\r")[1]).toBe("MSA|AE|CTL-1");
  });

  it("in enhanced mode answers CE when MSH-15 asks for errors, AE when only MSH-16 does, else nothing", () => {
    const msa = (modes: string) => answer(adt(modes, "3.0"))?.split("\r")[1];
    expect(msa("")).toBe("MSA|AE|CTL-1");
    expect(msa("|||ER|NE")).toBe("MSA|CE|CTL-1");
    expect(msa("|||NE|ER")).toBe("MSA|AE|CTL-1");
    expect(msa("|||NE|NE")).toBeUndefined();
  });

  it("answers a frame refused before it was read in the character set of its MSH-18, with its fields as sent", () => {
    const head = (modes: string) => adt(modes).replace("|SND|FAC|", "|SND|MÜNCHEN|");
    const refused = (bytes: Buffer) =>
      refusalAnswer(transportRefusal(bytes, "over the limit", "207"), "CM1", time)?.subarray(1, -2);
    const ack = (msh18: string) =>
      `MSH|^~\\&|RCV|RFAC|SND|MÜNCHEN|20240501123456.789+0000||ACK^A01^ACK|CM1|P|2.5.1${msh18}\r` +
      "MSA|AR|CTL-1\rERR|||207^Application internal error^HL70357|E|||over the limit\r";
    // In 8859/1: Ü is the byte DC, and the answer says 8859/1.
    expect(refused(Buffer.from(head("||||||8859/1"), "latin1"))).toEqual(
      Buffer.from(ack("||||||8859/1"), "latin1"),
    );
    // In UTF-8: Ü is C3 9C, as sent (not C3 83 C2 9C).
    expect(refused(Buffer.from(head(""), "utf8"))).toEqual(Buffer.from(ack(""), "utf8"));
  });
});
