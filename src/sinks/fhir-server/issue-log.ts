// The issues a FHIR server writer found, kept until the run's own issues are written: as NDJSON lines in
// memory, spilled to a temporary file past a few thousand so that a server rejecting everything cannot
// fill the memory; the first few also as lines for people.
import { appendFileSync, createReadStream, createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";

const SPILL_AT = 5000;

export class IssueLog {
  private lines: string[] = [];
  private file: string | undefined;
  private dir: string | undefined;
  readonly shown: string[] = [];
  count = 0;
  readonly byCode: Record<string, number> = {};
  warnings = 0;
  errors = 0;

  constructor(private readonly showLimit = 20) {}

  add(json: string, human: string, code: string, severity: "error" | "warning"): void {
    this.count++;
    this.byCode[code] = (this.byCode[code] ?? 0) + 1;
    if (severity === "warning") this.warnings++;
    else this.errors++;
    if (this.shown.length < this.showLimit) this.shown.push(human);
    this.lines.push(json);
    if (this.lines.length >= SPILL_AT) this.spill();
  }

  private spill(): void {
    if (this.file === undefined) {
      this.dir = mkdtempSync(join(tmpdir(), "crossmap-fhir-issues-"));
      this.file = join(this.dir, "issues.ndjson");
    }
    appendFileSync(this.file, this.lines.join(""));
    this.lines = [];
  }

  /** Appends every NDJSON line, in the order found, to the file at `path`. */
  async appendTo(path: string): Promise<void> {
    if (this.file !== undefined) {
      await pipeline(createReadStream(this.file), createWriteStream(path, { flags: "a" }));
    }
    if (this.lines.length > 0) appendFileSync(path, this.lines.join(""));
  }

  dispose(): void {
    if (this.dir !== undefined) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
    this.file = undefined;
  }
}
