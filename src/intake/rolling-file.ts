// One channel of NDJSON output as a series of files `<prefix>-000001.ndjson`: the file being written is
// `<name>.part`; it is renamed into place once it reached its size or age and the journal has committed
// its last line. The committed state (file index, length) lets a restart cut off what came after it.
import { readdirSync, renameSync, rmSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { join } from "node:path";

export interface RollingState {
  index: number;
  length: number;
}

export interface RollingOptions {
  /** A file is closed once it holds this many bytes... */
  rollBytes: number;
  /** ...or once its first line is this old (ms). */
  rollMs: number;
  /** fdatasync each flush (`flush` durability) or not (`commit`: survives a crash, not a power loss). */
  sync: boolean;
}

export class RollingFile {
  private index = 1;
  private length = 0;
  private fd: FileHandle | undefined;
  private openedAt = 0;
  private lines: (string | Uint8Array)[] = [];
  /** A file completed by the last flush, renamed once that flush is committed. */
  private toRename: number | undefined;

  constructor(
    private readonly dir: string,
    private readonly prefix: string,
    private readonly options: RollingOptions,
  ) {}

  private name(index: number): string {
    return join(this.dir, `${this.prefix}-${String(index).padStart(6, "0")}.ndjson`);
  }

  /** Files before the committed one are complete; the committed one is cut to its length; later ones go. */
  async open(state: RollingState | undefined): Promise<void> {
    this.index = state?.index ?? 1;
    this.length = state?.length ?? 0;
    const part = new RegExp(`^${this.prefix}-(\\d{6,})\\.ndjson\\.part$`);
    for (const f of readdirSync(this.dir)) {
      const m = part.exec(f);
      if (!m) continue;
      const n = Number(m[1]);
      if (n < this.index) renameSync(join(this.dir, f), this.name(n));
      else if (n > this.index || this.length === 0) rmSync(join(this.dir, f));
    }
    if (this.length > 0) {
      this.fd = await open(`${this.name(this.index)}.part`, "r+");
      await this.fd.truncate(this.length);
      this.openedAt = Date.now();
    }
  }

  append(line: string | Uint8Array): void {
    this.lines.push(line);
  }

  /** True when the open file should be closed even with nothing new (its age). */
  due(now: number): boolean {
    return this.fd !== undefined && this.length > 0 && now - this.openedAt >= this.options.rollMs;
  }

  /**
   * Writes what was appended, syncs it, and says where the committed output ends. Off the main thread
   * (libuv's pool): a sync to disk would otherwise hold every acknowledgment waiting behind it.
   */
  async flush(now: number, close = false): Promise<RollingState> {
    if (this.lines.length > 0) {
      if (this.fd === undefined) {
        this.fd = await open(`${this.name(this.index)}.part`, "w");
        this.openedAt = now;
      }
      const bytes = Buffer.concat(this.lines.map((l) => (typeof l === "string" ? Buffer.from(l) : l)));
      this.lines = [];
      let off = 0;
      // At explicit positions: a file opened again after a restart is positioned at its start.
      while (off < bytes.length) {
        off += (await this.fd.write(bytes, off, bytes.length - off, this.length + off)).bytesWritten;
      }
      this.length += bytes.length;
      if (this.options.sync) await this.fd.datasync();
    }
    if (this.fd !== undefined && (close || this.length >= this.options.rollBytes || this.due(now))) {
      await this.fd.close();
      this.fd = undefined;
      this.toRename = this.index;
      this.index++;
      this.length = 0;
    }
    return { index: this.index, length: this.length };
  }

  committed(): void {
    if (this.toRename === undefined) return;
    renameSync(`${this.name(this.toRename)}.part`, this.name(this.toRename));
    this.toRename = undefined;
  }

  async close(): Promise<void> {
    await this.fd?.close();
    this.fd = undefined;
  }
}
