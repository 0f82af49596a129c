// Conversion thread entry: builds the converter once from its settings, then converts the messages it is
// sent, one reply each (see convert-threads.ts).
import { type MessagePort, parentPort, receiveMessageOnPort } from "node:worker_threads";
import { lowerThreadPriority } from "../server/thread-priority.js";
import { type ConvertSettings, createConverter, type Outcome } from "./convert.js";
import type { Source } from "./sink.js";

/** Messages to convert, several at once when several were ready in the same turn (one wake-up each way). */
export type ToConverter = Request[];
export type Request = { id: number; text: string; source: Source };
/**
 * The first message: the settings, and a port for urgent requests (a sender waits for the conversion),
 * which the thread takes between two messages of the batch it is converting.
 */
export interface ConverterInit {
  settings: ConvertSettings;
  urgent: MessagePort;
}
export type FromConverter =
  | { kind: "ready" }
  | { kind: "init_error"; message: string }
  /** `more`: an urgent request's result; the batch being converted is not done. */
  | { kind: "done"; results: { id: number; outcome: Outcome }[]; more?: true };

const port = parentPort;
if (port) {
  // The main thread reads, keeps and answers (each ACK waits for it); with a conversion thread per core, it
  // would otherwise queue behind them for a core.
  lowerThreadPriority();
  port.once("message", ({ settings, urgent }: ConverterInit) => {
    createConverter(settings).then(
      (convert) => {
        const one = (m: Request) => ({ id: m.id, outcome: convert(m.text, m.source) });
        const send = (results: { id: number; outcome: Outcome }[], more: boolean): void => {
          // The bytes move to the main thread instead of being copied.
          const transfer: ArrayBuffer[] = [];
          for (const { outcome: o } of results) {
            if (o.kind !== "bundle") continue;
            transfer.push(o.bundle.buffer as ArrayBuffer);
            if (o.issuesLine) transfer.push(o.issuesLine.buffer as ArrayBuffer);
          }
          const done: FromConverter = more ? { kind: "done", results, more } : { kind: "done", results };
          port.postMessage(done, transfer);
        };
        // An urgent request waits for the message being converted, not for the rest of the batch.
        const urgentNow = (): void => {
          for (let m = receiveMessageOnPort(urgent); m !== undefined; m = receiveMessageOnPort(urgent))
            send([one(m.message as Request)], true);
        };
        urgent.on("message", (m: Request) => send([one(m)], true));
        port.on("message", (batch: ToConverter) => {
          const results = [];
          for (const m of batch) {
            urgentNow();
            results.push(one(m));
          }
          send(results, false);
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
