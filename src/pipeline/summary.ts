// The run summary: counts gathered from batch results, rendered as one stderr line and as JSON.
import type { MalformedMessage } from "./hl7v2/message.js";
import type { BatchResult } from "./types.js";

export interface RunSummary {
  records_in: number;
  records_out: number;
  /** Records not written: malformed, wrong shape, no entity (and, with --on-error fail, the one that stopped the run). */
  records_failed: number;
  /** Records with at least one error-severity issue, written or not. */
  errors: number;
  /**
   * Output records the destination refused (a database's or CSV file's row with a value its column cannot
   * hold): mapped, then not written, each named in an issue. Not in `records_out`; present only when > 0.
   */
  rows_refused?: number;
  warnings: number;
  /** Bundle entries of resource types the run does not map, by type. */
  skipped: Record<string, number>;
  issues_by_code: Record<string, number>;
  elapsed_ms: number;
  records_per_s: number;
  /** Whether the run went through to the end (false when --on-error fail or a signal stopped it). */
  completed: boolean;
  /** HL7 v2 runs (records are segments): messages read, Bundles written, messages that could not be read. */
  messages?: number;
  bundles?: number;
  malformed_messages?: MalformedMessage[];
  /** The signal that stopped the run, when one did. */
  interrupted?: NodeJS.Signals;
}

/** A summary with nothing counted yet. */
export function emptySummary(): RunSummary {
  return {
    records_in: 0,
    records_out: 0,
    records_failed: 0,
    errors: 0,
    warnings: 0,
    skipped: {},
    issues_by_code: {},
    elapsed_ms: 0,
    records_per_s: 0,
    completed: false,
  };
}

/** Stamps completion, elapsed time since `started` (performance.now()) and the rate into `s`. */
export function finishSummary<S extends RunSummary>(s: S, started: number, completed: boolean): S {
  s.completed = completed;
  s.elapsed_ms = Math.round(performance.now() - started);
  s.records_per_s = s.elapsed_ms > 0 ? Math.round((s.records_in * 1000) / s.elapsed_ms) : s.records_in;
  return s;
}

export class SummaryCounter {
  private readonly started = performance.now();
  readonly summary: RunSummary = emptySummary();

  /** `messages`: the run reads HL7 v2 messages, and its summary counts them. */
  constructor(options: { messages?: boolean } = {}) {
    if (options.messages) {
      this.summary.messages = 0;
      this.summary.bundles = 0;
      this.summary.malformed_messages = [];
    }
  }

  add(result: BatchResult): void {
    const s = this.summary;
    const m = result.messages;
    if (m !== undefined) {
      s.messages = (s.messages ?? 0) + m.messages;
      s.bundles = (s.bundles ?? 0) + m.bundles;
      s.malformed_messages ??= [];
      for (const x of m.malformed) s.malformed_messages.push(x);
    }
    s.records_in += result.recordsIn;
    s.records_out += result.recordsOut;
    s.records_failed += result.recordsFailed;
    s.errors += result.recordsWithErrors;
    for (const [kind, n] of Object.entries(result.skipped)) s.skipped[kind] = (s.skipped[kind] ?? 0) + n;
    for (const issue of result.issues) {
      s.issues_by_code[issue.code] = (s.issues_by_code[issue.code] ?? 0) + 1;
      if (issue.severity === "warning") s.warnings++;
    }
  }

  /** An output record the destination refused: not written after all (see `rows_refused`). */
  refused(issue: { code: string; severity: string }): void {
    const s = this.summary;
    s.records_out--;
    s.rows_refused = (s.rows_refused ?? 0) + 1;
    this.addGathered(0, 0, [issue]);
  }

  /** Counts issues found before any record was read (files of a folder that are left out). */
  addIssues(issues: readonly { code: string; severity: string }[]): void {
    this.addGathered(0, 0, issues);
  }

  /** Counts what gathering wrote and reported at the end of a run (see gatherer.ts). */
  addGathered(
    written: number,
    recordsWithErrors: number,
    issues: readonly { code: string; severity: string }[],
  ): void {
    const s = this.summary;
    s.records_out += written;
    s.errors += recordsWithErrors;
    for (const issue of issues) {
      s.issues_by_code[issue.code] = (s.issues_by_code[issue.code] ?? 0) + 1;
      if (issue.severity === "warning") s.warnings++;
    }
  }

  finish(completed: boolean): RunSummary {
    return finishSummary(this.summary, this.started, completed);
  }
}

/** `crossmap map: 10 in, 9 out, 1 failed, 2 with errors, 0 warnings; issues: malformed_json 1, ...; 0.01 s, 1000 records/s` */
export function formatSummaryLine(s: RunSummary): string {
  const issues = Object.entries(s.issues_by_code)
    .map(([code, n]) => `${code} ${n}`)
    .join(", ");
  const skipped = Object.entries(s.skipped)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(", ");
  return (
    `crossmap map: ${s.records_in} in, ${s.records_out} out, ${s.records_failed} failed, ` +
    `${s.errors} with errors, ` +
    (s.rows_refused ? `${s.rows_refused} refused by the destination, ` : "") +
    `${s.warnings} warnings` +
    (issues ? `; issues: ${issues}` : "") +
    (skipped ? `; skipped: ${skipped}` : "") +
    `; ${(s.elapsed_ms / 1000).toFixed(2)} s, ${s.records_per_s} records/s` +
    (s.interrupted ? `; interrupted (${s.interrupted})` : s.completed ? "" : "; stopped early")
  );
}
