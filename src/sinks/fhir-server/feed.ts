// The FHIR server writer for `crossmap stream --fhir-server`: one feed message's output (an HL7 v2 message's
// Bundle, or NDJSON resources) sent at once, answered with the issues of what the server rejected, so that
// the feed acknowledges the message only once the server accepted it (or dead-letters it with the issues).
import type { Hl7v2Issue } from "../../pipeline/hl7v2/run.js";
import type { RunIssue } from "../../pipeline/types.js";
import { messageBundle, type Outgoing, resourceEntry } from "./bundles.js";
import type { Rejection } from "./sender.js";
import type { FhirOrigin, FhirServerWriter } from "./writer.js";

type FeedIssue = Hl7v2Issue | RunIssue;

/** What the server said about an entry or a message's transaction, as an issue of the feed message `where`. */
export const feedIssue = (where: string, r: Rejection<FhirOrigin>): FeedIssue => ({
  file: where,
  ...(r.origin.kind === "record" ? { entity: r.origin.entity, target: r.origin.target } : {}),
  code: r.code,
  severity: "error",
  message: `${r.request} ${r.code === "fhir_gave_up" ? "not accepted" : "rejected"}: ${r.message}`,
});

export function feedDelivery(
  writer: FhirServerWriter,
  kind: "bundle" | "records",
  as: "transaction" | "batch",
): (payload: string, where: string) => Promise<FeedIssue[]> {
  if (kind === "bundle") {
    return async (payload, where) => {
      const origin: FhirOrigin = { kind: "message", file: where, message: 1 };
      const { outgoing, unresolved } = messageBundle(JSON.parse(payload), as, origin);
      if (outgoing.entries.length === 0) return [];
      if (unresolved.length > 0) {
        return [
          {
            file: where,
            code: "fhir_not_sent",
            severity: "error",
            message: `not sent as a batch: it refers to entries the server would name (${[...new Set(unresolved)].join(", ")}), which only a transaction resolves`,
          },
        ];
      }
      return (await writer.deliverNow(outgoing)).rejected.map((r) => feedIssue(where, r));
    };
  }
  return async (payload, where) => {
    const issues: FeedIssue[] = [];
    let batch: Outgoing<FhirOrigin> = { type: "batch", entries: [], requests: [], origins: [], keys: [] };
    const send = async () => {
      if (batch.entries.length === 0) return;
      for (const r of (await writer.deliverNow(batch)).rejected) issues.push(feedIssue(where, r));
      batch = { type: "batch", entries: [], requests: [], origins: [], keys: [] };
    };
    for (const line of payload.split("\n")) {
      if (line.trim() === "") continue;
      const e = resourceEntry(line);
      if ("problem" in e) {
        // Not thrown: the feed would take that for a server outage and redeliver the message for ever.
        issues.push({
          file: where,
          code: "fhir_not_a_resource",
          severity: "error",
          message: `--fhir-server sends FHIR resources, and this output is not one (${e.problem})`,
        });
        continue;
      }
      batch.entries.push(e.entry);
      batch.requests.push(e.request);
      batch.origins.push({ kind: "record", entity: e.type, target: e.url });
      if (e.key !== undefined) batch.keys.push(e.key);
      if (batch.entries.length >= writer.batchSize) await send();
    }
    await send();
    return issues;
  };
}
