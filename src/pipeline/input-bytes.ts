// The bytes of one input, a file or stdin, as every reader takes them: counted for the progress line,
// decompressed when they are gzip, and ended with one sentence when they cannot be read (further), so that
// a file that vanished, a read error or corrupt gzip is one issue and never a crash.
import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import { gunzipped } from "./gzip.js";

/** What stopped an input: `unreadable_file` (nothing read), `read_error`, `invalid_gzip`. */
export interface InputFailure {
  code: "unreadable_file" | "read_error" | "invalid_gzip";
  message: string;
}

/** Reads from a file this much at a time: fewer syscalls; the readers cut each read into batches. */
const READ_BYTES = 1 << 20;

export function inputBytes(
  file: string,
  stdin: Readable,
  options: { onBytes?: (n: number) => void; failed: (f: InputFailure) => void },
): AsyncGenerator<Uint8Array> {
  const stream = file === "-" ? stdin : createReadStream(file, { highWaterMark: READ_BYTES });
  let told = false;
  const failed = (f: InputFailure) => {
    if (told) return;
    told = true;
    options.failed(f);
  };
  return gunzipped(raw(stream, file, options.onBytes, failed), (message) =>
    failed({ code: "invalid_gzip", message }),
  );
}

async function* raw(
  stream: Readable,
  file: string,
  onBytes: ((n: number) => void) | undefined,
  failed: (f: InputFailure) => void,
): AsyncGenerator<Uint8Array> {
  let read = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Uint8Array>) {
      onBytes?.(chunk.length);
      read += chunk.length;
      yield chunk;
    }
  } catch (err) {
    failed(
      read === 0
        ? {
            code: "unreadable_file",
            message: `cannot read ${file}: ${(err as Error).message}; nothing of it is read`,
          }
        : {
            code: "read_error",
            message: `cannot read ${file} after ${read} bytes: ${(err as Error).message}; the rest is not read`,
          },
    );
  }
}
