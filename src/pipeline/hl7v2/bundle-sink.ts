// The record pipeline's output sink in front of a BundleSink (the FHIR server writer): HL7 v2 runs map in
// batches, here or in worker threads, and hand their Bundles on as text; each line names its message
// (Hl7v2StageOptions.located), so the sink gets the Bundle and where it came from, as it did on one thread.
import { parseJson } from "../json.js";
import type { BundleSink, OutputSink } from "../writers.js";

interface LocatedBundle {
  file: string;
  message: number;
  bundle: Record<string, unknown>;
}

export function bundleLineSink(sink: BundleSink): OutputSink {
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
        if (line === "") continue;
        const { file, message, bundle } = parseJson(line) as LocatedBundle;
        await sink.send(bundle, { file, message });
      }
    },
    commit: () => sink.commit(),
    abort: () => sink.abort(),
  };
}
