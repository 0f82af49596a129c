// The listener's own records beside the output, committed with it: `dead-letters-*.ndjson` (messages that
// could not be converted at all, with their issues and text: never dropped in silence) and
// `issues-*.ndjson` (one line per converted message that had issues, as `crossmap map --errors` has them).
import { mkdir } from "node:fs/promises";
import { AppError } from "../errors.js";
import type { Hl7v2Issue } from "../pipeline/hl7v2/run.js";
import { stringifyJson } from "../pipeline/json.js";
import { RollingFile, type RollingOptions, type RollingState } from "./rolling-file.js";

/** Which message a line is about. */
export interface Source {
  id: number;
  sender: string;
  controlId: string;
  receivedAt: number;
}

const about = (s: Source) => ({
  journal_id: s.id,
  received: new Date(s.receivedAt).toISOString(),
  sender: s.sender,
  control_id: s.controlId,
});

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

  issuesOf(source: Source, issues: Hl7v2Issue[]): void {
    this.issues.append(`${stringifyJson({ ...about(source), issues })}\n`);
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
