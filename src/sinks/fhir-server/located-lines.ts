// The FHIR server writer's sink for the HL7 v2 pipeline's located lines (`{"file":..,"message":N,"bundle":
// {..}}`, one per message, as `crossmap map` hands them over): a transaction's entries are taken from the
// line as they are written (bundle-text.ts), never parsed and written again; a batch needs its references
// rewritten (bundles.ts `messageBundle`), so its line is parsed.
import { parseJson } from "../../pipeline/json.js";
import type { OutputSink } from "../../pipeline/writers.js";
import { type LocatedTransaction, locatedTransaction } from "./bundle-text.js";
import { messageBundle, type Outgoing } from "./bundles.js";

/** Sends one message's Bundle: what it is made of, the references a batch cannot resolve, its fullUrls. */
export type MessageSend<O> = (
  outgoing: Outgoing<O>,
  unresolved: string[],
  fullUrls: string[],
  origin: O,
) => Promise<void>;

export function locatedLines<O>(
  as: "transaction" | "batch",
  send: MessageSend<O>,
  o: {
    origin: (file: string, message: number) => O;
    commit: () => Promise<void>;
    abort: () => Promise<void>;
  },
): OutputSink {
  const one = (line: string): Promise<void> => {
    if (as === "transaction") {
      let t: LocatedTransaction<O> | undefined;
      try {
        t = locatedTransaction(line, o.origin);
      } catch {
        // Not the plain shape the pipeline writes: parsed below, which says what is wrong with it.
      }
      if (t !== undefined) return send(t.outgoing, [], t.fullUrls, o.origin(t.file, t.message));
    }
    const { file, message, bundle } = parseJson(line) as {
      file: string;
      message: number;
      bundle: Record<string, unknown>;
    };
    const from = o.origin(file, message);
    const { outgoing, unresolved, fullUrls } = messageBundle(bundle, as, from);
    return send(outgoing, unresolved, fullUrls, from);
  };
  const decoder = new TextDecoder();
  return {
    write: async (_entity, text) => {
      const s = typeof text === "string" ? text : decoder.decode(text);
      let start = 0;
      while (start < s.length) {
        let end = s.indexOf("\n", start);
        if (end === -1) end = s.length;
        const line = s.slice(start, end);
        start = end + 1;
        if (line !== "") await one(line);
      }
    },
    commit: o.commit,
    abort: o.abort,
  };
}
