import { describe, expect, it } from "vitest";
import { buildAck, escapeText } from "../../src/intake/ack.js";
import { formerResendKey, resendKey, senderOf } from "../../src/intake/header.js";
import { judge, transportRefusal, type Verdict } from "../../src/intake/verdict.js";
import { DEFAULT_DELIMITERS } from "../../src/pipeline/hl7v2/delimiters.js";

const ADT =
  "MSH|^~\\&|ADTApp|GHH^1.2.3^ISO|EHR|HOSP|20240101120000||ADT^A08^ADT_A01|MSG1|P|2.5.1\r" +
  "EVN|A08|20240101120000\r" +
  "PID|1||123^^^HOSP^MR~999^^^SSA^SS||DOE^JOHN\r";
const time = new Date("2024-05-01T12:34:56.789Z");
const bytes = (s: string, enc: BufferEncoding = "utf8") => Buffer.from(s, enc);
const refusal = (v: Verdict) => (v.kind === "refuse" ? [v.level, v.refusal] : v.kind);

describe("judge: what the listener does with a frame", () => {
  it("keeps a readable message, with its patient as ordering key", () => {
    const v = judge(bytes(ADT), "patient");
    expect(v.kind === "keep" && [v.keys, v.header.controlId, v.header.event, v.header.version]).toEqual([
      ["patient:123^HOSP"],
      "MSG1",
      "A08",
      "2.5.1",
    ]);
  });

  it("orders a merge on both patients, a message without PID on its sender, and all on the sender with --order sender", () => {
    const merge = `${ADT.replace("A08^ADT_A01", "A40^ADT_A39")}MRG|456^^^HOSP^MR\r`;
    const keys = (text: string, by: "patient" | "sender") => {
      const v = judge(bytes(text), by);
      return v.kind === "keep" ? v.keys : v.kind;
    };
    expect(keys(merge, "patient")).toEqual(["patient:123^HOSP", "patient:456^HOSP"]);
    expect(keys(ADT.replace(/PID[^\r]*\r/, ""), "patient")).toEqual(["sender:ADTApp|GHH^1.2.3^ISO"]);
    expect(keys(merge, "sender")).toEqual(["sender:ADTApp|GHH^1.2.3^ISO"]);
  });

  it("refuses what cannot be read at all (AR), naming why", () => {
    expect(refusal(judge(bytes("hello"), "patient"))).toEqual([
      "reject",
      { code: "100", text: 'the message does not start with MSH but with "hello"' },
    ]);
    expect(refusal(judge(bytes("MSH|^^|A"), "patient"))).toEqual([
      "reject",
      { code: "102", text: 'encoding characters (MSH-2) "^^" must be 4 or 5 characters, e.g. ^~\\&' },
    ]);
    expect(refusal(judge(bytes(`${ADT}P1|x\r`), "patient"))).toEqual([
      "reject",
      {
        code: "100",
        text: 'segment 4: "P1|x" is not a segment: expected a 3-character id and "|"',
      },
    ]);
    expect(refusal(judge(Buffer.concat([bytes(ADT), Buffer.of(0xff, 0xfe)]), "patient"))).toEqual([
      "reject",
      { code: "102", text: "the message is not valid UTF-8 (MSH-18 names no other character set)" },
    ]);
  });

  it("reads a message in 8859/1 when MSH-18 says so", () => {
    const latin = `${ADT.replace("|2.5.1\r", "|2.5.1||||||8859/1\r").replace("DOE^JOHN", "MÜLLER^JÖRG")}`;
    const v = judge(bytes(latin, "latin1"), "patient");
    expect(v.kind === "keep" && [v.header.charset, v.text.includes("MÜLLER^JÖRG")]).toEqual(["latin1", true]);
  });

  it("reads the MSH of a message in UTF-8 as UTF-8: its fields, resend key and sender are the characters sent", () => {
    const utf8 = ADT.replace("|ADTApp|GHH^1.2.3^ISO|", "|ADTApp|MÜNCHEN|").replace("|MSG1|", "|MSG-Ä1|");
    const v = judge(bytes(utf8), "patient");
    if (v.kind !== "keep") throw new Error(v.kind);
    expect([v.header.fields[4], v.header.controlId, senderOf(v.header), resendKey(v.header)]).toEqual([
      "MÜNCHEN",
      "MSG-Ä1",
      "ADTApp|MÜNCHEN",
      "ADTApp\u001fMÜNCHEN\u001fMSG-Ä1",
    ]);
    // The key a listener made before, reading the line's bytes as Latin-1 (Ü is C3 9C in UTF-8).
    expect(formerResendKey(v.header)).toBe("ADTApp\u001fM\u00c3\u009cNCHEN\u001fMSG-\u00c3\u00841");
    // A control id ending in à (C3 A0): the former listener's trim() took A0 for a no-break space.
    const nbsp = judge(bytes(utf8.replace("|MSG-Ä1|", "|MSG-à|")), "patient");
    expect(nbsp.kind === "keep" && formerResendKey(nbsp.header)).toBe(
      "ADTApp\u001fM\u00c3\u009cNCHEN\u001fMSG-\u00c3",
    );
    const noPid = judge(bytes(utf8.replace(/PID[^\r]*\r/, "")), "patient");
    expect(noPid.kind === "keep" && noPid.keys).toEqual(["sender:ADTApp|MÜNCHEN"]);
    // The same in ASCII or in 8859/1 made the same key before: no former one.
    const ascii = judge(bytes(ADT), "patient");
    expect(ascii.kind === "keep" && formerResendKey(ascii.header)).toBeUndefined();
    const latin = judge(bytes(utf8.replace("|2.5.1\r", "|2.5.1||||||8859/1\r"), "latin1"), "patient");
    expect(latin.kind === "keep" && [latin.header.fields[4], formerResendKey(latin.header)]).toEqual([
      "MÜNCHEN",
      undefined,
    ]);
  });

  it("reads the MSH of a frame refused before it was read in the character set its MSH-18 names", () => {
    const utf8 = ADT.replace("|ADTApp|GHH^1.2.3^ISO|", "|ADTApp|MÜNCHEN|");
    const latin = Buffer.from(utf8.replace("|2.5.1\r", "|2.5.1||||||8859/1\r"), "latin1");
    const header = (head: Buffer) => {
      const h = transportRefusal(head, "too large", "207").header;
      return h && [h.fields[4], h.charset];
    };
    expect(header(latin)).toEqual(["MÜNCHEN", "latin1"]);
    expect(header(bytes(utf8))).toEqual(["MÜNCHEN", "utf-8"]);
    // Cut inside Ü (C3 9C) before the line ends: the MSH as far as it came, without half a character.
    const cut = bytes(utf8).subarray(0, bytes(utf8).indexOf(0x9c));
    expect(header(cut)).toEqual(["M", "utf-8"]);
  });

  it("reads a message in ASCII as UTF-8, and refuses a character set it does not know (AR)", () => {
    const ascii = judge(bytes(ADT.replace("|2.5.1\r", "|2.5.1||||||ascii\r")), "patient");
    expect(ascii.kind === "keep" && [ascii.header.charset, ascii.text]).toEqual([
      "utf-8",
      ADT.replace("|2.5.1\r", "|2.5.1||||||ascii\r"),
    ]);
    expect(refusal(judge(bytes(ADT.replace("|2.5.1\r", "|2.5.1||||||8859/15\r")), "patient"))).toEqual([
      "reject",
      { code: "102", text: 'MSH-18 character set "8859/15" is not supported (UTF-8, ASCII and 8859/1 are)' },
    ]);
  });

  it("refuses what breaks a rule (AE): no MSH-10, no MSH-9, not version 2, a bad MSH-15, two messages", () => {
    expect(refusal(judge(bytes(ADT.replace("|MSG1|", "||")), "patient"))).toEqual([
      "error",
      {
        code: "101",
        location: "MSH^1^10",
        text: "MSH-10 (message control id) is empty: it is what recognises a resend",
      },
    ]);
    expect(refusal(judge(bytes(ADT.replace("ADT^A08^ADT_A01", "")), "patient"))).toEqual([
      "error",
      { code: "101", location: "MSH^1^9", text: "MSH-9 (message type) is empty" },
    ]);
    expect(refusal(judge(bytes(ADT.replace("|2.5.1", "|3.0")), "patient"))).toEqual([
      "error",
      {
        code: "203",
        location: "MSH^1^12",
        text: 'MSH-12 version "3.0" is not supported: only HL7 v2 messages are accepted (MSH-12 2.x, such as 2.3.1 or 2.5.1)',
      },
    ]);
    expect(refusal(judge(bytes(ADT.replace("|2.5.1", "|2.5.1|||XX")), "patient"))).toEqual([
      "error",
      {
        code: "103",
        location: "MSH^1^15",
        text: 'MSH-15 "XX" is not an acknowledgment type (AL, NE, ER or SU)',
      },
    ]);
    expect(refusal(judge(bytes(ADT + ADT), "patient"))).toEqual([
      "error",
      {
        code: "100",
        location: "MSH^4",
        text: "a frame carries one message; this one carries 2 (one MSH each)",
      },
    ]);
  });

  it("does not answer an acknowledgment", () => {
    const v = judge(bytes("MSH|^~\\&|A|B|C|D|20240101||ACK^A08^ACK|X1|P|2.5.1\rMSA|AA|MSG1\r"), "patient");
    expect(v.kind).toBe("ignore");
  });
});

describe("buildAck", () => {
  const header = () => {
    const v = judge(bytes(ADT), "patient");
    if (v.kind !== "keep") throw new Error("not kept");
    return v.header;
  };

  it("swaps sender and receiver, keeps event, processing id and version, answers MSH-10", () => {
    expect(buildAck(header(), "AA", { controlId: "CM1", time })).toBe(
      "MSH|^~\\&|EHR|HOSP|ADTApp|GHH^1.2.3^ISO|20240501123456.789+0000||ACK^A08^ACK|CM1|P|2.5.1\rMSA|AA|MSG1\r",
    );
  });

  it("names the error in ERR-2, ERR-3, ERR-4 and ERR-7 from 2.5 on, in MSA-3 and ERR-1 before", () => {
    const error = { code: "101" as const, location: "MSH^1^10", text: "MSH-10 | is empty" };
    expect(buildAck(header(), "AE", { controlId: "CM2", time, errors: [error] })).toBe(
      "MSH|^~\\&|EHR|HOSP|ADTApp|GHH^1.2.3^ISO|20240501123456.789+0000||ACK^A08^ACK|CM2|P|2.5.1\r" +
        "MSA|AE|MSG1\rERR||MSH^1^10|101^Required field missing^HL70357|E|||MSH-10 \\F\\ is empty\r",
    );
    const old = judge(bytes(ADT.replace("|2.5.1", "|2.3")), "patient");
    if (old.kind !== "keep") throw new Error("not kept");
    expect(buildAck(old.header, "AE", { controlId: "CM3", time, errors: [error] })).toBe(
      "MSH|^~\\&|EHR|HOSP|ADTApp|GHH^1.2.3^ISO|20240501123456.789+0000||ACK^A08^ACK|CM3|P|2.3\r" +
        "MSA|AE|MSG1|MSH-10 \\F\\ is empty\rERR|MSH^1^10^101&Required field missing&HL70357\r",
    );
  });

  it("names 8859/1 in MSH-18 when it answers a message in Latin-1 (however its MSH-18 spelt it)", () => {
    const latin = judge(bytes(ADT.replace("|2.5.1\r", "|2.5.1||||||iso-8859-1\r"), "latin1"), "patient");
    if (latin.kind !== "keep") throw new Error("not kept");
    expect(buildAck(latin.header, "AA", { controlId: "CM5", time })).toBe(
      "MSH|^~\\&|EHR|HOSP|ADTApp|GHH^1.2.3^ISO|20240501123456.789+0000||ACK^A08^ACK|CM5|P|2.5.1||||||8859/1\r" +
        "MSA|AA|MSG1\r",
    );
  });

  it("answers a frame without a readable MSH with an AR of its own", () => {
    expect(
      buildAck(undefined, "AR", { controlId: "CM4", time, errors: [{ code: "100", text: "no MSH" }] }),
    ).toBe(
      "MSH|^~\\&|||||20240501123456.789+0000||ACK|CM4|P|2.5.1\rMSA|AR|\r" +
        "ERR|||100^Segment sequence error^HL70357|E|||no MSH\r",
    );
  });

  it("escapes every delimiter and folds line breaks", () => {
    expect(escapeText("a|b^c~d\\e&f\ng", DEFAULT_DELIMITERS)).toBe("a\\F\\b\\S\\c\\R\\d\\E\\e\\T\\f g");
  });
});
