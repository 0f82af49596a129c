// Output sinks: stdout, one file (-o) or one file per target entity (--out-dir). Files are written
// beside their final name and renamed only when the run succeeds, so a reader never sees half a file. A
// path that is not a regular file (/dev/null, a named pipe, /dev/stdout, a symbolic link) is written in
// place as stdout is: renaming over it would replace it (run as root, `-o /dev/null` replaced the device).
import { once } from "node:events";
import { createWriteStream, readdirSync, rmSync, type WriteStream } from "node:fs";
import { type FileHandle, lstat, mkdir, open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Writable } from "node:stream";
import { AppError } from "../errors.js";
import { processExists } from "../process-exists.js";

export interface OutputSink {
  /** Writes NDJSON for a target entity ("" when not splitting); resolves when it may be called again. */
  write(entity: string, text: string | Uint8Array): Promise<void>;
  /** Finishes and publishes the output. */
  commit(): Promise<void>;
  /** Drops unpublished output (files are removed; stdout keeps what it got). */
  abort(): Promise<void>;
}

/**
 * Where the HL7 v2 path hands each message's Bundle instead of writing it as text (the FHIR server writer,
 * src/sinks/fhir-server). `from` names the message for issues.
 */
export interface BundleSink {
  send(bundle: Record<string, unknown>, from: { file: string; message: number }): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/** Writes with backpressure: waits for 'drain' when the stream's buffer is full. */
export async function writeText(stream: Writable, text: string | Uint8Array): Promise<void> {
  if (text.length === 0) return;
  if (!stream.write(text)) await once(stream, "drain");
}

/**
 * Gathers small writes (one per batch) and hands them to the stream together, corked, so that a file
 * stream makes one writev call for many batches instead of a syscall each.
 */
class Coalescer {
  private parts: (string | Uint8Array)[] = [];
  private size = 0;
  constructor(
    private readonly stream: Writable,
    private readonly limit = 256 * 1024,
  ) {}

  async write(text: string | Uint8Array): Promise<void> {
    if (text.length === 0) return;
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= this.limit) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.parts.length === 0) return;
    const parts = this.parts;
    this.parts = [];
    this.size = 0;
    this.stream.cork();
    let ok = true;
    for (const part of parts) ok = this.stream.write(part);
    this.stream.uncork();
    if (!ok) await once(this.stream, "drain");
  }
}

export function streamSink(stream: Writable): OutputSink {
  // A reader that goes away (`| head`) surfaces as an 'error' event; without a listener it would crash.
  let failure: Error | undefined;
  stream.on("error", (err) => {
    failure = err;
  });
  const out = new Coalescer(stream);
  const guard = async (step: Promise<void>): Promise<void> => {
    await step.catch((err: Error) => {
      throw new AppError(500, "output_error", `cannot write the output: ${err.message}`);
    });
    if (failure) throw new AppError(500, "output_error", `cannot write the output: ${failure.message}`);
  };
  return {
    write: (_entity, text) => guard(out.write(text)),
    // What stdout already got stays there either way; flushing on abort keeps the records before a failure.
    commit: () => guard(out.flush()),
    abort: () => guard(out.flush()),
  };
}

/** A file published atomically: written to a hidden temporary beside it, renamed on commit. */
class AtomicFile {
  readonly temp: string;
  readonly stream: WriteStream;
  private readonly out: Coalescer;
  private failure: Error | undefined;

  constructor(readonly path: string) {
    removeStaleTemporaries(path);
    this.temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
    this.stream = createWriteStream(this.temp);
    this.out = new Coalescer(this.stream);
    this.stream.on("error", (err) => {
      this.failure = err;
    });
  }

  async write(text: string | Uint8Array): Promise<void> {
    if (this.failure) throw writeError(this.path, this.failure);
    await this.out.write(text);
  }

  async close(): Promise<void> {
    if (!this.stream.closed) {
      this.stream.end();
      await once(this.stream, "close");
    }
    if (this.failure) throw writeError(this.path, this.failure);
  }

  async commit(): Promise<void> {
    await this.out.flush();
    await this.close();
    await rename(this.temp, this.path);
  }

  async abort(): Promise<void> {
    await this.close().catch(() => {});
    await rm(this.temp, { force: true });
  }
}

/**
 * Removes the temporaries of `path` that runs killed outright (SIGKILL, the OOM killer) left behind: a
 * hidden `.<name>.<pid>.tmp` whose process is gone. One of a process still running (another run writing
 * the same file) is left alone, and so is anything this cannot tell (a pid of another user's process).
 */
function removeStaleTemporaries(path: string): void {
  const dir = dirname(path);
  const prefix = `.${basename(path)}.`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith(".tmp")) continue;
    const pidText = name.slice(prefix.length, -".tmp".length);
    if (!/^[1-9][0-9]{0,9}$/.test(pidText)) continue;
    const pid = Number(pidText);
    if (pid === process.pid || processExists(pid)) continue;
    rmSync(join(dir, name), { force: true });
  }
}

/**
 * Whether a file is published by renaming a temporary over it: a regular file, or nothing yet. Anything
 * else at the path (a device, a pipe, a socket, a symbolic link) is written in place.
 */
export async function publishedByRename(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isFile();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return true;
    throw writeError(path, err as Error);
  }
}

/** A path written as it comes, as stdout is (what it got stays there if the run stops). */
async function inPlaceSink(path: string): Promise<OutputSink> {
  let handle: FileHandle;
  try {
    handle = await open(path, "w");
  } catch (err) {
    throw writeError(path, err as Error);
  }
  const stream = handle.createWriteStream();
  const sink = streamSink(stream);
  const end = async (): Promise<void> => {
    if (stream.closed) return;
    stream.end();
    await once(stream, "close");
  };
  return {
    write: (entity, text) => sink.write(entity, text),
    commit: async () => {
      await sink.commit();
      await end();
    },
    abort: async () => {
      await sink.abort().catch(() => {});
      await end().catch(() => {});
    },
  };
}

export async function fileSink(path: string): Promise<OutputSink> {
  await ensureDir(dirname(path));
  if (!(await publishedByRename(path))) return inPlaceSink(path);
  const file = new AtomicFile(path);
  return {
    write: (_entity, text) => file.write(text),
    commit: () => file.commit(),
    abort: () => file.abort(),
  };
}

/**
 * One `<TargetEntity>.ndjson` per target entity, as FHIR Bulk Data exports are laid out. The files of
 * `always` are published even when nothing was written to them: the target entities of the tables read,
 * so that an empty table replaces the file an earlier run wrote of it into the same folder.
 */
export async function dirSink(dir: string, always: readonly string[] = []): Promise<OutputSink> {
  await ensureDir(dir);
  const files = new Map<string, AtomicFile>();
  const fileFor = (entity: string): AtomicFile => {
    let file = files.get(entity);
    if (!file) {
      file = new AtomicFile(join(dir, `${entity}.ndjson`));
      files.set(entity, file);
    }
    return file;
  };
  return {
    write: (entity, text) => fileFor(entity).write(text),
    commit: async () => {
      for (const entity of always) fileFor(entity);
      for (const file of files.values()) await file.commit();
    },
    abort: async () => {
      for (const file of files.values()) await file.abort();
    },
  };
}

async function ensureDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    throw new AppError(400, "output_error", `cannot create directory ${dir}: ${(err as Error).message}`);
  }
}

function writeError(path: string, err: Error): AppError {
  return new AppError(500, "output_error", `cannot write ${path}: ${err.message}`);
}

/** Opens a side file (--errors, --summary) before the run, so a bad path is a usage error, not a crash. */
export async function openForWriting(path: string, flag: string): Promise<FileHandle> {
  try {
    return await open(path, "w");
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const reason = e.code === "ENOENT" ? "no such directory" : e.message;
    throw new AppError(400, "output_error", `${flag} ${path}: cannot write it: ${reason}`);
  }
}
