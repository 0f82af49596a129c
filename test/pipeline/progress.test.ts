// The progress line on a terminal, with a note from the batch processor (a NATS run's batches and workers).
import { describe, expect, it } from "vitest";
import { createProgress } from "../../src/pipeline/progress.js";

describe("createProgress", () => {
  it("appends the note to the line", () => {
    let written = "";
    const stream = {
      write: (s: string) => {
        written += s;
        return true;
      },
      isTTY: true,
    } as unknown as NodeJS.WriteStream;
    const p = createProgress({
      enabled: true,
      totalBytes: 2048,
      stream,
      note: () => "3 of 5 batches done, 2 workers",
    });
    p.bytes(1024);
    p.records(10);
    // The rate of 10 records in a few microseconds is in the thousands: "12,345 records/s".
    p.done();
    expect(written.split("\r\u001b[K").at(-1)).toMatch(
      /^10 records {2}[\d,]+ records\/s {2}1\.0 KB of 2\.0 KB \(50%\) {2}3 of 5 batches done, 2 workers\n$/,
    );
  });
});
