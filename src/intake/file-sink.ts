// `--out-dir DIR`: converted Bundles as rolling NDJSON files, one Bundle a line
// (`bundles-000001.ndjson`; the file being written ends in `.part`).
import { mkdir } from "node:fs/promises";
import { AppError } from "../errors.js";
import { RollingFile, type RollingOptions, type RollingState } from "./rolling-file.js";
import type { Refused, Sink, SinkItem } from "./sink.js";

const NEWLINE = Buffer.from("\n");

export class FileSink implements Sink {
  readonly description: string;
  private readonly file: RollingFile;

  constructor(
    private readonly dir: string,
    options: RollingOptions,
  ) {
    this.description = `files in ${dir}`;
    this.file = new RollingFile(dir, "bundles", options);
  }

  async open(state: unknown): Promise<void> {
    await mkdir(this.dir, { recursive: true }).catch((err: Error) => {
      throw new AppError(400, "output_error", `--out-dir ${this.dir}: cannot create it: ${err.message}`);
    });
    await this.file.open(state as RollingState | undefined);
  }

  write(item: SinkItem): void {
    this.file.append(item.bundle);
    this.file.append(NEWLINE);
  }

  /** True when the open file is old enough to be closed though nothing new came. */
  due(now: number): boolean {
    return this.file.due(now);
  }

  async flush(close = false): Promise<{ state: unknown; refused: Refused[] }> {
    return { state: await this.file.flush(Date.now(), close), refused: [] };
  }

  async committed(): Promise<void> {
    this.file.committed();
  }

  async close(): Promise<void> {
    await this.file.close();
  }
}
