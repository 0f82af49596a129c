// The JSON line format of the log stream: the time first, then the entry's fields in their order.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { formatLine, jsonLineLogger } from "../../src/server/logging.js";

describe("formatLine", () => {
  it("puts the time first and keeps the entry's fields, in order, as JSON.stringify writes them", () => {
    const entry = {
      level: "info" as const,
      msg: "request",
      method: "POST",
      path: '/v1/projects/p/schema-mapping/a"b\\c\u0001/approve',
      status: 200,
      duration_ms: 1.25,
      key_id: null,
      skipped: undefined,
    };
    const line = formatLine(entry, "2026-03-02T10:30:00.123Z");
    expect(line).toBe(
      '{"time":"2026-03-02T10:30:00.123Z","level":"info","msg":"request","method":"POST",' +
        '"path":"/v1/projects/p/schema-mapping/a\\"b\\\\c\\u0001/approve","status":200,"duration_ms":1.25,"key_id":null}',
    );
    expect(line).toBe(JSON.stringify({ time: "2026-03-02T10:30:00.123Z", ...entry }));
  });

  it("an entry with a time of its own keeps the key first and its own value, as before", () => {
    const entry = { level: "warn" as const, msg: "m", time: "mine" };
    expect(formatLine(entry, "now")).toBe('{"time":"mine","level":"warn","msg":"m"}');
  });
});

describe("jsonLineLogger", () => {
  it("writes the lines of one event-loop turn in one chunk, each stamped with the current time", async () => {
    const stream = new PassThrough();
    const chunks: string[] = [];
    stream.on("data", (d: Buffer) => chunks.push(d.toString()));
    const log = jsonLineLogger(stream);
    const before = Date.now();
    log({ level: "info", msg: "one" });
    log({ level: "error", msg: "two", n: 2 });
    await new Promise((r) => setImmediate(r));
    const after = Date.now();
    expect(chunks).toHaveLength(1);
    const lines = chunks[0]!.split("\n");
    expect(lines.pop()).toBe("");
    const parsed = lines.map((l) => JSON.parse(l));
    expect(parsed.map(({ time: _t, ...rest }) => rest)).toEqual([
      { level: "info", msg: "one" },
      { level: "error", msg: "two", n: 2 },
    ]);
    for (const { time } of parsed) {
      expect(time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(Date.parse(time)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(time)).toBeLessThanOrEqual(after);
    }
  });
});
