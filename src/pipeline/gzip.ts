// Compressed input: a gzip stream, told by its first two bytes whatever the file is called, is decompressed
// as it is read (for every input format, stdin included); `.gz` is left out of a name before its format
// and entity are told from it.
import { pipeline, Readable } from "node:stream";
import { createGunzip } from "node:zlib";

/** `PERSON.csv.gz` -> `PERSON.csv`. */
export function withoutGz(name: string): string {
  return name.replace(/\.gz$/i, "");
}

/** Decompressed pieces this large: the readers cut batches from them. */
const CHUNK = 64 * 1024;

/**
 * The bytes of `source`, decompressed when they are gzip. Corrupt or cut gzip data ends the bytes where it
 * went wrong and is told to `failed` (one sentence); what came before it is read as usual.
 */
export async function* gunzipped(
  source: AsyncIterable<Uint8Array>,
  failed: (message: string) => void,
): AsyncGenerator<Uint8Array> {
  const iterator = source[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let headBytes = 0;
  let done = false;
  while (headBytes < 2) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    head.push(next.value);
    headBytes += next.value.length;
  }
  async function* all(): AsyncGenerator<Uint8Array> {
    yield* head;
    if (done) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  const first = head.length === 1 ? head[0]! : Buffer.concat(head, headBytes);
  if (first.length < 2 || first[0] !== 0x1f || first[1] !== 0x8b) {
    yield* all();
    return;
  }
  const gunzip = createGunzip({ chunkSize: CHUNK });
  // The error, if any, also comes out of the iteration below; this callback only keeps it from going unhandled.
  pipeline(Readable.from(all(), { objectMode: false }), gunzip, () => {});
  let out = 0;
  try {
    for await (const chunk of gunzip as AsyncIterable<Uint8Array>) {
      out += chunk.length;
      yield chunk;
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    // A read error of the file itself is not the gzip data's fault: it goes on to the caller as it is.
    if (!e.code?.startsWith("Z_") && e.code !== "ERR_STREAM_PREMATURE_CLOSE") throw err;
    failed(
      `the gzip data is corrupt or cut short (${e.message}) after ${out} bytes of decompressed input; the rest is not read`,
    );
  }
}
