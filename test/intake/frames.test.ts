import { describe, expect, it } from "vitest";
import { FrameDecoder, type FrameEvent } from "../../src/intake/frames.js";

const VT = "\x0b";
const END = "\x1c\r";
const feed = (d: FrameDecoder, ...chunks: string[]): FrameEvent[] =>
  chunks.flatMap((c) => d.push(Buffer.from(c, "latin1")));
const shown = (events: FrameEvent[]) =>
  events.map((e) =>
    e.kind === "frame"
      ? `frame ${e.bytes.toString("latin1")}`
      : e.kind === "oversize"
        ? `oversize ${e.size} head ${e.head.length}`
        : e.kind === "unended"
          ? `unended ${e.bytes.toString("latin1")}`
          : `garbage ${e.size} ${e.sample}`,
  );

describe("FrameDecoder", () => {
  it("cuts frames, wherever the chunks split them, and skips line ends between frames", () => {
    const d = new FrameDecoder(1000);
    expect(
      shown(feed(d, `${VT}MSH|a\rPID|1${END}\r\n${VT}MSH|b`, "\rX|1\x1c", "\r", `${VT}MSH|c${END}`)),
    ).toEqual(["frame MSH|a\rPID|1", "frame MSH|b\rX|1", "frame MSH|c"]);
    expect(d.open).toBe(false);
  });

  it("keeps a lone 0x1C inside the message (the reader then refuses it)", () => {
    expect(shown(feed(new FrameDecoder(1000), `${VT}MSH|a\x1cb${END}`))).toEqual(["frame MSH|a\x1cb"]);
  });

  it("reports bytes outside a frame once per stretch, with a printable sample", () => {
    const d = new FrameDecoder(1000);
    expect(shown(feed(d, "GET / HTTP/1.1\r\n"))).toEqual(["garbage 16 GET / HTTP/1.1<0D><0A>"]);
    expect(shown(feed(d, "more"))).toEqual([]);
    expect(d.garbageBytes).toBe(20);
    expect(shown(feed(d, `${VT}MSH|a${END}`))).toEqual(["frame MSH|a"]);
    expect(d.garbageBytes).toBe(0);
  });

  it("refuses a frame over the cap, keeping only its head", () => {
    const d = new FrameDecoder(5000);
    const big = `MSH|${"x".repeat(9000)}`;
    expect(shown(feed(d, VT, big.slice(0, 3000), big.slice(3000), END))).toEqual(["oversize 9004 head 4096"]);
    expect(shown(feed(d, `${VT}MSH|ok${END}`))).toEqual(["frame MSH|ok"]);
  });

  it("reports a frame cut short by the next start block", () => {
    const d = new FrameDecoder(1000);
    expect(shown(feed(d, `${VT}MSH|first\r`, `${VT}MSH|second${END}`))).toEqual([
      "unended MSH|first\r",
      "frame MSH|second",
    ]);
  });

  it("says a frame is open until its end comes", () => {
    const d = new FrameDecoder(1000);
    feed(d, `${VT}MSH|a`);
    expect([d.open, d.partial().toString()]).toEqual([true, "MSH|a"]);
  });
});

describe("FrameDecoder.current", () => {
  it("changes with each frame or stretch of garbage begun, so a timer belongs to one", () => {
    const d = new FrameDecoder(1000);
    feed(d, `${VT}MSH|a`);
    const first = d.current;
    feed(d, `${END}${VT}MSH|b`);
    expect([d.open, d.current]).toEqual([true, first + 1]);
    feed(d, `${END}xyz`);
    expect([d.open, d.garbageBytes, d.current]).toEqual([false, 3, first + 2]);
  });
});
