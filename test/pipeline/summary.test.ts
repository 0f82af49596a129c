import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { formatIssueLine, issueJsonLine } from "../../src/pipeline/issues.js";
import { createProgress } from "../../src/pipeline/progress.js";
import { formatSummaryLine, type RunSummary, SummaryCounter } from "../../src/pipeline/summary.js";

const summary: RunSummary = {
  records_in: 10,
  records_out: 9,
  records_failed: 1,
  errors: 2,
  warnings: 0,
  skipped: { Encounter: 3 },
  issues_by_code: { malformed_json: 1, unmapped_value: 1 },
  elapsed_ms: 1234,
  records_per_s: 8,
  completed: false,
};

describe("run reporting", () => {
  it("puts the summary on one line", () => {
    expect(formatSummaryLine(summary)).toBe(
      "crossmap map: 10 in, 9 out, 1 failed, 2 with errors, 0 warnings; issues: malformed_json 1, unmapped_value 1; skipped: Encounter 3; 1.23 s, 8 records/s; stopped early",
    );
  });

  it("counts a row the destination refused apart: not out, not another record with errors", () => {
    const counter = new SummaryCounter();
    counter.add({
      recordsIn: 1,
      recordsOut: 2,
      recordsFailed: 0,
      recordsWithErrors: 1,
      skipped: {},
      issues: [{ file: "in.ndjson", code: "missing_required", severity: "error", message: "m" }],
      output: {},
    } as never);
    counter.refused({ code: "missing_required", severity: "error" });
    const s = counter.finish(true);
    expect([s.records_in, s.records_out, s.errors, s.rows_refused, s.issues_by_code]).toEqual([
      1,
      1,
      1,
      1,
      { missing_required: 2 },
    ]);
    expect(formatSummaryLine({ ...s, elapsed_ms: 0, records_per_s: 0 })).toBe(
      "crossmap map: 1 in, 1 out, 0 failed, 1 with errors, 1 refused by the destination, 0 warnings; issues: missing_required 2; 0.00 s, 0 records/s",
    );
  });

  it("renders an issue for people and for programs", () => {
    const issue = {
      file: "b.ndjson",
      line: 2,
      entry: 5,
      entity: "Patient",
      field: "Patient.birthDate",
      target: "person.birth_datetime",
      code: "invalid_date",
      severity: "error" as const,
      message: 'not a date: "x"',
      value: 12345678901234567890n,
    };
    expect(formatIssueLine(issue)).toBe(
      'b.ndjson:2 entry[5]: error invalid_date at Patient.birthDate -> person.birth_datetime: not a date: "x"',
    );
    expect(issueJsonLine(issue)).toBe(
      '{"file":"b.ndjson","line":2,"entry":5,"entity":"Patient","field":"Patient.birthDate","target":"person.birth_datetime","code":"invalid_date","severity":"error","message":"not a date: \\"x\\"","value":12345678901234567890}\n',
    );
  });

  it("draws progress only when enabled, with bytes of the total when known", () => {
    const stream = new PassThrough();
    const progress = createProgress({ enabled: true, totalBytes: 4 * 1024 * 1024, stream: stream as never });
    progress.records(1500);
    progress.bytes(1024 * 1024);
    progress.done();
    const drawn = String(stream.read()).split("\r").filter(Boolean);
    const last = drawn.at(-1)!;
    expect(last.startsWith("\u001b[K1,500 records  ")).toBe(true);
    expect(last).toMatch(/ records\/s {2}1\.0 MB of 4\.0 MB \(25%\)\n$/);
    const off = new PassThrough();
    const silent = createProgress({ enabled: false, totalBytes: undefined, stream: off as never });
    silent.records(1);
    silent.done();
    expect(off.read()).toBeNull();
  });
});
