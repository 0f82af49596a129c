// `crossmap listen --fhir-server URL`: each converted message's Bundle posted to a FHIR server (as a
// transaction, or a batch with --bundle batch) by the FHIR server writer (src/sinks/fhir-server). A message
// is complete, and its journal mark advanced, only once the server accepted its Bundle; a Bundle the server
// refuses comes back as `refused` (a dead letter with the server's OperationOutcome in its issues).
import type { Hl7v2Issue } from "../pipeline/hl7v2/run.js";
import { feedDelivery } from "../sinks/fhir-server/feed.js";
import type { FhirServerWriter } from "../sinks/fhir-server/writer.js";
import { whereOf } from "./convert.js";
import type { Refused, Sink, SinkItem } from "./sink.js";

export interface FhirServerSinkOptions {
  writer: FhirServerWriter;
  as: "transaction" | "batch";
  /** Bundles in flight at once (never two of one ordering key). */
  concurrency: number;
}

export class FhirServerSink implements Sink {
  readonly description: string;
  private queued: SinkItem[] = [];
  private readonly deliver: (payload: string, where: string) => Promise<Hl7v2Issue[]>;
  private readonly decoder = new TextDecoder();

  constructor(private readonly o: FhirServerSinkOptions) {
    this.description = `FHIR server ${o.writer.url}`;
    this.deliver = feedDelivery(o.writer, "bundle", o.as) as (
      payload: string,
      where: string,
    ) => Promise<Hl7v2Issue[]>;
  }

  /**
   * Nothing to cut back after a crash: the messages after the last commit are converted and sent again,
   * and a Bundle sent twice writes the same resources (their ids come from the message, and the crossmap's
   * transaction entries are `PUT Type/id` or conditional).
   */
  async open(): Promise<void> {}

  write(item: SinkItem): void {
    this.queued.push(item);
  }

  /**
   * Sends what was written since the last flush, in order per key: a Bundle waits while one of an earlier
   * message with a key in common is queued or in flight; Bundles of other keys go side by side. Resolves
   * once the server answered every one; rejects when the server cannot be used (after the writer's tries).
   */
  async flush(): Promise<{ state: unknown; refused: Refused[] }> {
    const items = this.queued;
    this.queued = [];
    const refused: Refused[] = [];
    const busy = new Set<string>();
    const waiting = [...items];
    let failure: Error | undefined;
    await new Promise<void>((resolve) => {
      let running = 0;
      const next = (): void => {
        if (running === 0 && (failure !== undefined || waiting.length === 0)) {
          resolve();
          return;
        }
        // Keys of earlier messages still waiting block later ones with a key in common.
        const blocked = new Set(busy);
        for (let i = 0; i < waiting.length && running < this.o.concurrency && failure === undefined; ) {
          const item = waiting[i] as SinkItem;
          const keys = item.keys ?? [""];
          if (keys.some((k) => blocked.has(k))) {
            for (const k of keys) blocked.add(k);
            i++;
            continue;
          }
          waiting.splice(i, 1);
          for (const k of keys) {
            busy.add(k);
            blocked.add(k);
          }
          running++;
          this.send(item)
            .then(
              (issues) => {
                if (issues.length > 0) refused.push({ id: item.id, issues });
              },
              (err: Error) => {
                failure ??= err;
              },
            )
            .finally(() => {
              running--;
              for (const k of keys) busy.delete(k);
              next();
            });
        }
      };
      next();
    });
    if (failure !== undefined) throw failure;
    return { state: null, refused };
  }

  private send(item: SinkItem): Promise<Hl7v2Issue[]> {
    return this.deliver(this.decoder.decode(item.bundle), whereOf(item));
  }

  async committed(): Promise<void> {}

  async close(): Promise<void> {}
}
