import { describe, expect, it } from "vitest";
import { cleanLine, splitMessages, streamMessages } from "../../../src/pipeline/hl7v2/split.js";

const MSH = "MSH|^~\\&|APP|FAC|||20240101||ADT^A01|1|P|2.5.1";
const segs = (text: string) => [...splitMessages(text)].map((m) => m.segments);

describe("splitMessages", () => {
  it("accepts CR, LF, CRLF and a mix of them as segment separators", () => {
    const expected = [[MSH, "PID|1", "PV1|1"]];
    expect(segs(`${MSH}\rPID|1\rPV1|1\r`)).toEqual(expected);
    expect(segs(`${MSH}\nPID|1\nPV1|1\n`)).toEqual(expected);
    expect(segs(`${MSH}\r\nPID|1\r\nPV1|1\r\n`)).toEqual(expected);
    expect(segs(`${MSH}\r\nPID|1\rPV1|1\n`)).toEqual(expected);
  });
  it("drops a leading UTF-8 BOM and blank lines", () => {
    expect(segs(`\ufeff${MSH}\n\n  \nPID|1`)).toEqual([[MSH, "PID|1"]]);
  });
  it("drops MLLP framing (VT before, FS CR after each message)", () => {
    const framed = `\u000b${MSH}\rPID|1\r\u001c\r\u000b${MSH}\rPID|2\r\u001c\r`;
    expect(segs(framed)).toEqual([
      [MSH, "PID|1"],
      [MSH, "PID|2"],
    ]);
  });
  it("cuts several messages, numbering them from 1 with the line each starts on", () => {
    const ms = [...splitMessages(`${MSH}\nPID|1\n${MSH}\nPID|2\nOBX|1`)];
    expect(ms.map((m) => [m.index, m.line, m.segments.length])).toEqual([
      [1, 1, 2],
      [2, 3, 3],
    ]);
  });
  it("reads the messages of FHS/BHS batches and leaves the envelope out", () => {
    const batch = `FHS|^~\\&|APP\nBHS|^~\\&|APP\n${MSH}\nPID|1\n${MSH}\nPID|2\nBTS|2\nFTS|1`;
    expect(segs(batch)).toEqual([
      [MSH, "PID|1"],
      [MSH, "PID|2"],
    ]);
  });
  it("keeps segments before any MSH as a message of their own, for the caller to report", () => {
    expect(segs(`PID|1\n${MSH}\nPID|2`)).toEqual([["PID|1"], [MSH, "PID|2"]]);
  });
  it("cleanLine strips framing bytes and BOMs on any line", () => {
    expect(cleanLine("\u000b\ufeffMSH|^~\\&\u001c")).toBe("MSH|^~\\&");
    expect(cleanLine("\u001c")).toBe("");
  });
});

describe("streamMessages", () => {
  async function collect(chunks: (string | Uint8Array)[]) {
    async function* gen() {
      yield* chunks;
    }
    const out: string[][] = [];
    for await (const m of streamMessages(gen())) out.push(m.segments);
    return out;
  }
  it("joins lines cut between chunks, including a CRLF and a UTF-8 character cut in two", async () => {
    const bytes = Buffer.from(`${MSH}\r\nPID|1||||MÜLLER\r\n${MSH}\r\nPID|2`, "utf8");
    const cutAt = [MSH.length + 1, bytes.indexOf(0xc3) + 1, bytes.length - 3];
    const chunks: Uint8Array[] = [];
    let from = 0;
    for (const c of cutAt) {
      chunks.push(bytes.subarray(from, c));
      from = c;
    }
    chunks.push(bytes.subarray(from));
    expect(await collect(chunks)).toEqual([
      [MSH, "PID|1||||MÜLLER"],
      [MSH, "PID|2"],
    ]);
  });
  it("reads text chunks too", async () => {
    expect(await collect([`${MSH}\nPI`, "D|1\n"])).toEqual([[MSH, "PID|1"]]);
  });
});
