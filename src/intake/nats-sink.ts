// `--out-subject SUBJECT` (with --nats): converted Bundles published to a JetStream subject, one message a
// Bundle, in conversion order. Each carries a message id made of the journal's identity and the source
// message's journal id, so a Bundle published again after a crash (converted again) is dropped by the
// output stream's duplicate window instead of landing twice.
import { RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { headers as natsHeaders } from "@nats-io/transport-node";
import { closeNats, connectNats, type Nats, natsFailure, publishStored } from "../scale/jetstream.js";
import { HEADER } from "../scale/names.js";
import type { Refused, Sink, SinkItem } from "./sink.js";

export interface NatsSinkOptions {
  url: string;
  subject: string;
  /** Names the journal in message ids (a stream name, or the LMDB journal's identity). */
  journalId: string;
  /** The output stream's duplicate window when it is created (ms). */
  windowMs: number;
}

const DAY_MS = 86_400_000;

export class NatsSink implements Sink {
  readonly description: string;
  private nats: Nats | undefined;
  private items: SinkItem[] = [];

  constructor(private readonly o: NatsSinkOptions) {
    this.description = `NATS subject ${o.subject}`;
  }

  async open(): Promise<void> {
    this.nats = await connectNats(this.o.url, "crossmap listen output");
    const nats = this.nats;
    try {
      await nats.jsm.streams.find(this.o.subject);
    } catch {
      // No stream holds the subject yet: one of its own, keeping Bundles a week.
      const name = `CROSSMAP_${this.o.subject.replace(/[^A-Za-z0-9]/g, "_").toUpperCase()}`;
      await nats.jsm.streams
        .add({
          name,
          subjects: [this.o.subject],
          retention: RetentionPolicy.Limits,
          storage: StorageType.File,
          max_age: 7 * DAY_MS * 1e6,
          duplicate_window: Math.max(120_000, this.o.windowMs) * 1e6,
          num_replicas: 1,
        })
        .catch((err: unknown) => {
          throw natsFailure(`cannot create stream ${name} for ${this.o.subject}`, err);
        });
    }
  }

  write(item: SinkItem): void {
    this.items.push(item);
  }

  async flush(): Promise<{ state: unknown; refused: Refused[] }> {
    const items = this.items;
    this.items = [];
    const nats = this.nats as Nats;
    // Published side by side (acks come back in order on one connection), each stored before the commit.
    await Promise.all(
      items.map((item) => {
        const h = natsHeaders();
        h.set(HEADER.sourceId, item.controlId);
        h.set("Crossmap-Sender", item.sender);
        return publishStored(nats, this.o.subject, item.bundle, {
          msgID: `${this.o.journalId}.${item.id}`,
          headers: h,
        });
      }),
    );
    return { state: {}, refused: [] };
  }

  async committed(): Promise<void> {}

  async close(): Promise<void> {
    if (this.nats) await closeNats(this.nats);
  }
}
