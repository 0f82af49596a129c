// `crossmap publish`: puts ER7 messages or NDJSON records on a feed subject, one message each, on
// `<subject>.<partition>` where the partition is the sender (MSH-4 by default) or a record's key field.
// Messages go out in file order on one connection, so each partition's order is the file's.
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { Readable } from "node:stream";
import { AppError } from "../errors.js";
import { streamMessages } from "../pipeline/hl7v2/split.js";
import { inputBytes } from "../pipeline/input-bytes.js";
import { parseJson } from "../pipeline/json.js";
import { mshComponent } from "./feed-convert.js";
import { ensureFeedStream } from "./feed-streams.js";
import { closeNats, connectNats, natsFailure, publishStored } from "./jetstream.js";
import { subjectToken } from "./names.js";
import { sha256 } from "./run-record.js";

export interface PublishOptions {
  url: string;
  subject: string;
  files: string[];
  format: "hl7v2" | "ndjson";
  /** `MSH.<n>` for ER7 (default MSH.4), a dotted field path for NDJSON (default: one partition). */
  key: string | undefined;
  stdin: Readable;
}

export interface PublishOutcome {
  messages: number;
  /** Messages the stream already had (published again within its duplicate window). */
  duplicates: number;
  partitions: Record<string, number>;
}

/** Acks awaited at once: enough to keep the connection busy, few enough to stop soon after a failure. */
const WINDOW = 256;

type KeyOf = (message: string) => string;

export function keyFunction(format: "hl7v2" | "ndjson", key: string | undefined): KeyOf {
  if (format === "hl7v2") {
    const m = /^MSH\.(\d+)$/.exec(key ?? "MSH.4");
    if (!m)
      throw new AppError(400, "usage", `--key for HL7 v2 must be MSH.<field>, like MSH.4; got "${key}"`);
    const field = Number(m[1]);
    return (message) => mshComponent(message.slice(0, message.indexOf("\r") >>> 0), field);
  }
  if (key === undefined) return () => "default";
  const path = key.split(".");
  return (line) => {
    let v: unknown;
    try {
      v = parseJson(line);
    } catch {
      return "";
    }
    for (const p of path)
      v = v !== null && typeof v === "object" ? (v as Record<string, unknown>)[p] : undefined;
    return v === undefined || v === null || typeof v === "object" ? "" : String(v);
  };
}

async function* units(input: AsyncIterable<Uint8Array>, format: "hl7v2" | "ndjson"): AsyncGenerator<string> {
  if (format === "hl7v2") {
    for await (const raw of streamMessages(input)) yield `${raw.segments.join("\r")}\r`;
    return;
  }
  let carry = "";
  const decoder = new TextDecoder();
  for await (const chunk of input) {
    const lines = (carry + decoder.decode(chunk, { stream: true })).split("\n");
    carry = lines.pop() ?? "";
    for (const line of lines) if (line.trim() !== "") yield line.replace(/\r$/, "");
  }
  carry += decoder.decode();
  if (carry.trim() !== "") yield carry.replace(/\r$/, "");
}

export async function runPublish(options: PublishOptions): Promise<PublishOutcome> {
  const keyOf = keyFunction(options.format, options.key);
  const files = options.files.length === 0 ? ["-"] : options.files;
  const ids: string[] = [];
  for (const f of files) {
    if (f === "-") {
      ids.push("");
      continue;
    }
    const info = await stat(f).catch(() => {
      throw new AppError(400, "input_error", `cannot read ${f}: no such file`);
    });
    // The same file published again within the stream's duplicate window is stored once.
    ids.push(sha256(`${resolve(f)}:${info.size}:${info.mtimeMs}`).slice(0, 16));
  }
  const nats = await connectNats(options.url, "crossmap publish");
  const outcome: PublishOutcome = { messages: 0, duplicates: 0, partitions: {} };
  try {
    await ensureFeedStream(nats, options.subject, 7);
    const acks = new Set<Promise<void>>();
    let failure: Error | undefined;
    for (const [i, file] of files.entries()) {
      // Gzip files are read decompressed; a file that cannot be read stops the command with the reason.
      const input = inputBytes(file, options.stdin, {
        failed: (f) => {
          throw new AppError(400, "input_error", f.message);
        },
      });
      let index = 0;
      for await (const message of units(input, options.format)) {
        if (failure) break;
        const partition = subjectToken(keyOf(message));
        outcome.partitions[partition] = (outcome.partitions[partition] ?? 0) + 1;
        index++;
        const msgID = ids[i] ? `${ids[i]}.${index}` : undefined;
        const ack: Promise<void> = publishStored(
          nats,
          `${options.subject}.${partition}`,
          message,
          msgID ? { msgID } : {},
        )
          .then((a) => {
            outcome.messages++;
            if (a.duplicate) outcome.duplicates++;
          })
          .catch((err: unknown) => {
            failure ??= natsFailure(`cannot publish message ${index} of ${file}`, err);
          })
          .finally(() => acks.delete(ack));
        acks.add(ack);
        if (acks.size >= WINDOW) await Promise.race(acks);
      }
      if (failure) break;
    }
    await Promise.all(acks);
    if (failure) throw failure;
    return outcome;
  } finally {
    await closeNats(nats);
  }
}
