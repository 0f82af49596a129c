// Conversion thread entry: builds the converter once from its settings, then converts the messages it is
// sent, one reply each (see convert-threads.ts).
import { parentPort } from "node:worker_threads";
import { type ConvertSettings, createConverter, type Outcome } from "./convert.js";

export type ToConverter = { id: number; text: string; where: string };
export type FromConverter =
  | { kind: "ready" }
  | { kind: "init_error"; message: string }
  | { kind: "done"; id: number; outcome: Outcome };

const port = parentPort;
if (port) {
  port.once("message", (settings: ConvertSettings) => {
    createConverter(settings).then(
      (convert) => {
        port.on("message", (m: ToConverter) => {
          port.postMessage({
            kind: "done",
            id: m.id,
            outcome: convert(m.text, m.where),
          } satisfies FromConverter);
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
