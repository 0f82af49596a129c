// The issue headers of a published feed output: counts, the issues as ASCII JSON, and a cap.
import { headers } from "@nats-io/transport-node";
import { describe, expect, it } from "vitest";
import { issueHeaders } from "../../src/scale/feed-issues.js";

const issue = (n: number, severity: "error" | "warning" = "error") => ({
  file: "hl7.in.A#1",
  field: "PID.5",
  code: "unmapped_value",
  severity,
  message: `"Müller ${n}" is not in the value map`,
});

describe("issueHeaders", () => {
  it("sets nothing for an output without issues", () => {
    const h = headers();
    expect(issueHeaders(h, [], 1 << 20)).toEqual({ errors: 0, warnings: 0 });
    expect(h.keys()).toEqual([]);
  });

  it("counts errors and warnings and writes the issues as JSON in ASCII", () => {
    const h = headers();
    expect(issueHeaders(h, [issue(1), issue(2, "warning")], 1 << 20)).toEqual({ errors: 1, warnings: 1 });
    expect(h.get("Crossmap-Errors")).toBe("1");
    expect(h.get("Crossmap-Warnings")).toBe("1");
    const value = h.get("Crossmap-Issues");
    expect(value).toContain("M\\u00fcller 1");
    expect(/^[\x20-\x7e]*$/.test(value)).toBe(true);
    expect(JSON.parse(value)).toEqual([issue(1), issue(2, "warning")]);
    expect(h.has("Crossmap-Issues-Omitted")).toBe(false);
  });

  it("keeps the issues that fit in 16 KB, or the room the message has, and counts the others", () => {
    const many = Array.from({ length: 200 }, (_, n) => issue(n));
    const h = headers();
    issueHeaders(h, many, 1 << 20);
    const kept = JSON.parse(h.get("Crossmap-Issues")) as unknown[];
    expect(h.get("Crossmap-Issues").length).toBeLessThanOrEqual(16 * 1024);
    expect(kept).toEqual(many.slice(0, kept.length));
    expect(h.get("Crossmap-Issues-Omitted")).toBe(String(200 - kept.length));
    expect(h.get("Crossmap-Errors")).toBe("200");
    const tight = headers();
    issueHeaders(tight, many, 0);
    expect([tight.get("Crossmap-Issues"), tight.get("Crossmap-Issues-Omitted")]).toEqual(["[]", "200"]);
  });
});
