// The listener's own records beside the output, committed with it: `dead-letters-*.ndjson` (messages that
// could not be converted at all, with their issues and text: never dropped in silence) and
// `issues-*.ndjson` (one line per converted message that had issues, as `crossmap map --errors` has them).
import { mkdir } from "node:fs/promises";
import { AppError } from "../errors.js";
import type { Hl7v2Issue } from "../pipeline/hl7v2/run.js";
import { stringifyJson } from "../pipeline/json.js";
import { RollingFile, type RollingOptions, type RollingState } from "./rolling-file.js";
import type { Source } from "./sink.js";

/** The fields that say which message a line is about. */
export const about = (s: Source) => ({
  journal_id: s.id,
  received: new Date(s.receivedAt).toISOString(),
  sender: s.sender,
  control_id: s.controlId,
});

/** The issues file's line for a converted message (made where it was converted). */
export const issuesLine = (source: Source, issues: Hl7v2Issue[]): string =>
  `${stringifyJson({ ...about(source), issues })}\n`;

export interface ReportsState {
  dead: RollingState;
  issues: RollingState;
}

export class Reports {
  private readonly dead: RollingFile;
  private readonly issues: RollingFile;

  constructor(
    readonly dir: string,
    options: RollingOptions,
  ) {
    this.dead = new RollingFile(dir, "dead-letters", options);
    this.issues = new RollingFile(dir, "issues", options);
  }

  async open(state: ReportsState | undefined): Promise<void> {
    await mkdir(this.dir, { recursive: true }).catch((err: Error) => {
      throw new AppError(400, "output_error", `--dead-letter ${this.dir}: cannot create it: ${err.message}`);
    });
    await this.dead.open(state?.dead);
    await this.issues.open(state?.issues);
  }

  deadLetter(source: Source, issues: Hl7v2Issue[], message: string): void {
    this.dead.append(`${stringifyJson({ ...about(source), issues, message })}\n`);
  }

  /** A line made by issuesLine (as UTF-8 bytes from a conversion thread). */
  issuesOf(line: Uint8Array | string): void {
    this.issues.append(line);
  }

  due(now: number): boolean {
    return this.dead.due(now) || this.issues.due(now);
  }

  async flush(close = false): Promise<ReportsState> {
    const now = Date.now();
    return { dead: await this.dead.flush(now, close), issues: await this.issues.flush(now, close) };
  }

  committed(): void {
    this.dead.committed();
    this.issues.committed();
  }

  async close(): Promise<void> {
    await this.dead.close();
    await this.issues.close();
  }
}
