// For bench/fhir-server*.ts: the sink a build's `crossmap map` hands the HL7 v2 pipeline's located lines to,
// so each build's writer pays for reading them as its CLI did: the writer's `messageLines` where it has one,
// else that build's bundleLineSink (each line parsed, its Bundle handed to `messages`).
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { OutputSink } from "../src/pipeline/writers.js";
import type { FhirServerWriter } from "../src/sinks/fhir-server/writer.js";

/** `writerModule`: the build's dist/sinks/fhir-server/writer.js. */
export async function locatedSink(w: FhirServerWriter, writerModule: string): Promise<OutputSink> {
  const own = w as FhirServerWriter & { messageLines?: (as: "transaction") => OutputSink };
  if (typeof own.messageLines === "function") return own.messageLines("transaction");
  const dist = join(dirname(writerModule), "..", "..");
  const { bundleLineSink } = (await import(
    pathToFileURL(join(dist, "pipeline", "hl7v2", "bundle-sink.js")).href
  )) as { bundleLineSink: (sink: ReturnType<FhirServerWriter["messages"]>) => OutputSink };
  return bundleLineSink(w.messages("transaction"));
}
