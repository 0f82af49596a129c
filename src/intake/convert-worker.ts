// Conversion thread entry: builds the converter once from its settings, then converts the messages it is
// sent, one reply each (see convert-threads.ts).
import { parentPort } from "node:worker_threads";
import { lowerThreadPriority } from "../server/thread-priority.js";
import { type ConvertSettings, createConverter, type Outcome } from "./convert.js";
import type { Source } from "./sink.js";

/** Messages to convert, several at once when several were ready in the same turn (one wake-up each way). */
export type ToConverter = { id: number; text: string; source: Source }[];
export type FromConverter =
  | { kind: "ready" }
  | { kind: "init_error"; message: string }
  | { kind: "done"; results: { id: number; outcome: Outcome }[] };

const port = parentPort;
if (port) {
  // The main thread reads, keeps and answers (each ACK waits for it); with a conversion thread per core, it
  // would otherwise queue behind them for a core.
  lowerThreadPriority();
  port.once("message", (settings: ConvertSettings) => {
    createConverter(settings).then(
      (convert) => {
        port.on("message", (batch: ToConverter) => {
          const results = batch.map((m) => ({ id: m.id, outcome: convert(m.text, m.source) }));
          // The bytes move to the main thread instead of being copied.
          const transfer: ArrayBuffer[] = [];
          for (const { outcome: o } of results) {
            if (o.kind !== "bundle") continue;
            transfer.push(o.bundle.buffer as ArrayBuffer);
            if (o.issuesLine) transfer.push(o.issuesLine.buffer as ArrayBuffer);
          }
          port.postMessage({ kind: "done", results } satisfies FromConverter, transfer);
        });
        port.postMessage({ kind: "ready" } satisfies FromConverter);
      },
      (err: unknown) => {
        const message =
          err instanceof Error && "describe" in err
            ? (err as { describe(): string }).describe()
            : String(err);
        port.postMessage({ kind: "init_error", message } satisfies FromConverter);
      },
    );
  });
}
