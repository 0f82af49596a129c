// `crossmap listen --fhir-server URL`: each converted message's Bundle posted to a FHIR server (as a
// transaction, or a batch with --bundle batch) by the FHIR server writer (src/sinks/fhir-server). A message
// is complete, and its journal mark advanced, only once the server accepted its Bundle; a Bundle the server
// refuses comes back as `refused` (a dead letter with the server's OperationOutcome in its issues). The
// messages a flush has queued are merged into transactions in the order they came (merge.ts).
import type { Hl7v2Issue } from "../pipeline/hl7v2/run.js";
import { messageBundle, type Outgoing } from "../sinks/fhir-server/bundles.js";
import { feedDelivery, feedIssue } from "../sinks/fhir-server/feed.js";
import { type MergeBounds, searches, TransactionMerger } from "../sinks/fhir-server/merge.js";
import type { FhirOrigin, FhirServerWriter } from "../sinks/fhir-server/writer.js";
import { whereOf } from "./convert.js";
import type { Refused, Sink, SinkItem } from "./sink.js";

export interface FhirServerSinkOptions {
  writer: FhirServerWriter;
  as: "transaction" | "batch";
  /** Bundles in flight at once (never two of one ordering key). */
  concurrency: number;
}

/** What goes out as one request: one message's Bundle, or several messages' merged transaction. */
interface Unit {
  /** Ordering keys: a unit waits while an earlier one with a key in common is queued or in flight. */
  keys: string[];
  send: () => Promise<Refused[]>;
}

export class FhirServerSink implements Sink {
  readonly description: string;
  /** Failing from a try that failed (the writer tries again) until the server answers a request. */
  readonly tries: { retries: number; failing: string | undefined } = {
    retries: 0,
    failing: undefined,
  };
  private queued: SinkItem[] = [];
  private readonly deliver: (payload: string, where: string) => Promise<Hl7v2Issue[]>;
  private readonly decoder = new TextDecoder();

  constructor(private readonly o: FhirServerSinkOptions) {
    this.description = `FHIR server ${o.writer.url}`;
    o.writer.onRetry((why) => {
      this.tries.retries++;
      this.tries.failing = why;
    });
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
   * message with a key in common is queued or in flight; Bundles of other keys go side by side. With
   * `--fhir-transaction-messages` above 1, the queued messages' transactions are merged first, in the
   * order they came (src/sinks/fhir-server/merge.ts), each message's ordering keys counted as something
   * it shares, so a patient's messages still reach the server in arrival order; a merged transaction the
   * server refuses is sent again message by message, so only the refused message is dead-lettered.
   * Resolves once the server answered every one; rejects when the server cannot be used (after the
   * writer's tries).
   */
  async flush(): Promise<{ state: unknown; refused: Refused[] }> {
    const items = this.queued;
    this.queued = [];
    const bounds = this.o.as === "transaction" ? this.o.writer.mergeBounds : undefined;
    const units = bounds && items.length > 1 ? this.merged(items, bounds) : items.map((i) => this.alone(i));
    const refused: Refused[] = [];
    const busy = new Set<string>();
    const waiting = [...units];
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
          const unit = waiting[i] as Unit;
          const keys = unit.keys;
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
          unit
            .send()
            .then(
              (r) => {
                // The server answered (it took the Bundle, or refused it for good): it accepts again.
                this.tries.failing = undefined;
                for (const x of r) refused.push(x);
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

  /** One message's Bundle sent as it is. */
  private alone(item: SinkItem): Unit {
    return {
      keys: [...(item.keys ?? [""])],
      send: async () => {
        const issues = await this.deliver(this.decoder.decode(item.bundle), whereOf(item));
        return issues.length > 0 ? [{ id: item.id, issues }] : [];
      },
    };
  }

  /** The messages' transactions merged; each rejection goes back to the message it names. */
  private merged(items: SinkItem[], bounds: MergeBounds): Unit[] {
    const merger = new TransactionMerger<FhirOrigin>(bounds);
    const itemOf = new Map<FhirOrigin, SinkItem>();
    const ready: Outgoing<FhirOrigin>[] = [];
    for (const item of items) {
      const origin: FhirOrigin = { kind: "message", file: whereOf(item), message: 1 };
      itemOf.set(origin, item);
      const bundle = JSON.parse(this.decoder.decode(item.bundle)) as Record<string, unknown>;
      const { outgoing, fullUrls } = messageBundle(bundle, "transaction", origin);
      if (outgoing.entries.length === 0) continue;
      // The intake's ordering keys (the patient) are shared names too: one patient's messages keep their order.
      const named = [...fullUrls, ...(item.keys ?? []).map((k) => `order ${k}`)];
      for (const o of merger.add({ outgoing, fullUrls: named, alone: searches(outgoing) })) ready.push(o);
    }
    for (const o of merger.drain()) ready.push(o);
    return ready.map((out) => {
      const members = new Set(out.origins.map((o) => itemOf.get(o) as SinkItem));
      const keys = new Set(out.keys);
      for (const m of members) for (const k of m.keys ?? [""]) keys.add(k);
      return {
        keys: [...keys],
        send: async () => {
          const byItem = new Map<SinkItem, Hl7v2Issue[]>();
          for (const r of (await this.o.writer.deliverNow(out)).rejected) {
            const item = itemOf.get(r.origin) as SinkItem;
            const issues = byItem.get(item) ?? [];
            issues.push(feedIssue(whereOf(item), r) as Hl7v2Issue);
            byItem.set(item, issues);
          }
          return [...byItem].map(([item, issues]) => ({ id: item.id, issues }));
        },
      };
    });
  }

  async committed(): Promise<void> {}

  async close(): Promise<void> {}
}
