// The main thread's cutting of ER7 bytes into batches agrees with the splitter: every batch starts at a
// message, and the index of its first message and its first line are those the splitter gives the whole
// input, whatever the line ends, framing, blank lines, envelopes, read sizes and batch sizes.
import { describe, expect, it } from "vitest";
import { er7Batches } from "../../../src/pipeline/hl7v2/batches.js";
import { type RawMessage, splitMessages } from "../../../src/pipeline/hl7v2/split.js";
import type { Er7Batch } from "../../../src/pipeline/types.js";

const LINES = [
  "MSH|^~\\&|A|B|||20240101||ADT^A01|1|P|2.5.1",
  "PID|1||42^^^H^MR||DOE^JO",
  "OBX|1|ST|x||é 漢字 😀",
  "BHS|^~\\&|A",
  "BTS|1",
  "",
  "   ",
  "\u000bMSH|^~\\&|A|B|||20240101||ORU^R01|2|P|2.5.1",
  "\u001c",
  "\ufeffMSH|^~\\&|A|B",
  "garbage that is no segment",
  " MSH|^~\\&|indented",
  "\u00a0",
  "MS",
  "MSH",
  "\u001c\u000b",
];
const ENDS = ["\r", "\n", "\r\n"];

/** A small deterministic generator (mulberry32), so a failure can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function* chunks(bytes: Buffer, sizes: () => number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; ) {
    const n = Math.max(1, sizes());
    yield bytes.subarray(i, i + n);
    i += n;
  }
}

async function cut(bytes: Buffer, batchBytes: number, read: () => number, max = 1 << 20) {
  const out: Er7Batch[] = [];
  for await (const b of er7Batches(chunks(bytes, read), {
    file: "f",
    batchBytes,
    maxRecordBytes: max,
    limitLabel: "L",
  }))
    out.push({ ...b, text: typeof b.text === "string" ? b.text : Buffer.from(b.text).toString("utf8") });
  return out;
}

function fromBatches(batches: Er7Batch[]): RawMessage[] {
  return batches.flatMap((b) => [...splitMessages(b.text as string, b.firstMessage, b.firstLine)]);
}

describe("er7Batches", () => {
  it("cuts at message starts and numbers messages and lines as the splitter does", async () => {
    for (let seed = 1; seed <= 150; seed++) {
      const r = random(seed);
      const n = 1 + Math.floor(r() * 40);
      let text = "";
      for (let i = 0; i < n; i++) {
        text +=
          LINES[Math.floor(r() * LINES.length)]! + (i < n - 1 || r() < 0.5 ? ENDS[Math.floor(r() * 3)]! : "");
      }
      const bytes = Buffer.from(text);
      const whole = [...splitMessages(text)];
      const batchBytes = 1 + Math.floor(r() * 120);
      const readMax = 1 + Math.floor(r() * 60);
      const batches = await cut(bytes, batchBytes, () => Math.floor(r() * readMax));
      expect(fromBatches(batches), `seed ${seed}`).toEqual(whole);
      expect(batches.map((b) => b.text).join(""), `seed ${seed}`).toBe(text);
      for (const b of batches.slice(1)) {
        let start = b.text as string;
        while ("\u000b\u001c\ufeff".includes(start[0] ?? "x")) start = start.slice(1);
        expect(start.slice(0, 3), `seed ${seed}`).toMatch(/^(MSH|BHS|BTS)$/);
      }
    }
  });

  it("skips a message over the limit as it streams by, reporting its index, line and size", async () => {
    const big = `OBX|1|ED|x||${"A".repeat(5000)}`;
    const text = [
      "MSH|^~\\&|1",
      "PID|1",
      "MSH|^~\\&|2",
      big,
      big,
      "MSH|^~\\&|3",
      "PID|3",
      `MSH|^~\\&|4|${"B".repeat(3000)}`,
      "MSH|^~\\&|5",
    ].join("\r\n");
    for (const read of [1, 7, 63, 64, 65, 100, 100_000]) {
      const batches = await cut(Buffer.from(text), 10, () => read, 2000);
      const skipped = batches.filter((b) => b.tooLarge !== undefined);
      expect(
        skipped.map((b) => [b.firstMessage, b.firstLine, b.tooLarge]),
        `read ${read}`,
      ).toEqual([
        [2, 3, { bytes: 12 + 2 * 5014, limit: "L", type: "MSH" }],
        [4, 8, { bytes: 3013, limit: "L", type: "MSH" }],
      ]);
      const rest = fromBatches(batches.filter((b) => b.tooLarge === undefined));
      expect(rest.map((m) => [m.index, m.line, m.segments.length])).toEqual([
        [1, 1, 2],
        [3, 6, 2],
        [5, 9, 1],
      ]);
    }
  });

  it("tells the last message of an input that ended in an error apart: its lines may be all there was of it", async () => {
    const text = [
      "MSH|^~\\&|A|B|||20240101||ADT^A01|1|P|2.5.1",
      "PID|1||1",
      "MSH|^~\\&|A|B|||20240101||ADT^A01|2|P|2.5.1",
      "PID|1||2",
      "PV1|1|I",
    ].join("\r");
    for (const failed of [true, false]) {
      const out: Er7Batch[] = [];
      for await (const b of er7Batches(
        chunks(Buffer.from(text), () => 7),
        {
          file: "f",
          batchBytes: 1 << 20,
          maxRecordBytes: 1 << 20,
          limitLabel: "L",
          failed: () => failed,
        },
      ))
        out.push(b);
      const whole = fromBatches(
        out
          .filter((b) => b.cutShort === undefined)
          .map((b) => ({ ...b, text: Buffer.from(b.text).toString("utf8") })),
      );
      if (failed) {
        expect(whole.map((m) => m.index)).toEqual([1]);
        expect(out.at(-1)).toEqual({
          kind: "er7",
          file: "f",
          firstMessage: 2,
          firstLine: 3,
          text: "",
          cutShort: { type: "MSH", lines: 3 },
        });
      } else expect(whole.map((m) => m.index)).toEqual([1, 2]);
    }
  });
});
