// `crossmap stream`: a live feed. Each partition of the input subject (a sender) is read in order through
// its own durable consumer; each message is converted and published to `<out>.<partition>` (or, when it
// cannot be converted, to `<dead-letter>.<partition>` with its issues) and acked only once that is stored.
import type { Consumer, ConsumerMessages, JsMsg } from "@nats-io/jetstream";
import { headers } from "@nats-io/transport-node";
import { stringifyJson } from "../pipeline/json.js";
import type { FeedConverter, FeedIssue, FeedOutput } from "./feed-convert.js";
import { issueHeaders } from "./feed-issues.js";
import {
  ensureFeedStream,
  ensurePartitionConsumer,
  listPartitions,
  partitionConsumer,
} from "./feed-streams.js";
import { type HealthServer, startHealth } from "./health.js";
import { closeNats, connectNats, PULL_EXPIRES_MS, publishStored } from "./jetstream.js";
import { Metrics } from "./metrics.js";
import { HEADER } from "./names.js";
import { onStopSignal } from "./signals.js";

export interface FeedOptions {
  url: string;
  /** Names the consumers: processes with the same name share the partitions' consumers. */
  name: string;
  convert: FeedConverter;
  in: string;
  /** Where outputs are published; optional when `deliver` sends them somewhere else. */
  out?: string;
  deadLetter: string;
  /**
   * Sends one output on (the FHIR server writer) before the message is acknowledged: resolves with the
   * issues of what was rejected (the message then goes to the dead-letter subject), throws when it could
   * not be sent (the message is redelivered).
   */
  deliver?: (payload: string, where: string) => Promise<FeedIssue[]>;
  ackWait: number;
  /** How often to look for new partitions (senders). */
  discoverMs: number;
  healthPort?: string;
  stderr: NodeJS.WritableStream;
}

interface Partition {
  name: string;
  messages: ConsumerMessages;
  done: Promise<void>;
}

export async function runFeed(options: FeedOptions): Promise<number> {
  const nats = await connectNats(options.url, `crossmap stream ${options.name}`);
  const log = (line: string) => options.stderr.write(`crossmap stream: ${line}\n`);
  const metrics = new Metrics("crossmap_stream");
  const count = {
    messages: metrics.counter("messages_total", "Messages converted and published, by partition."),
    dead: metrics.counter("dead_letters_total", "Messages sent to the dead-letter subject, by partition."),
    redeliveries: metrics.counter("redeliveries_total", "Messages received that had been delivered before."),
    warnings: metrics.counter("warnings_total", "Warning issues on published messages."),
    errors: metrics.counter("errors_total", "Error issues (fields left out) on published messages."),
    convertSeconds: metrics.counter("convert_seconds_total", "Time spent converting messages."),
    storeSeconds: metrics.counter("store_seconds_total", "Time spent waiting for outputs to be stored."),
    failures: metrics.counter("failures_total", "Messages whose output could not be stored (redelivered)."),
  };
  const gauge = {
    partitions: metrics.gauge("partitions", "Partitions (senders) being read."),
    lag: metrics.gauge("lag", "Messages not yet delivered, by partition (the consumer's num_pending)."),
  };
  const partitions = new Map<string, Partition>();
  let state: "ok" | "stopping" | "disconnected" = "ok";
  const stopping = (): boolean => state === "stopping";
  let health: HealthServer | undefined;
  let inStream = "";

  const handle = async (partition: string, m: JsMsg): Promise<void> => {
    if (m.info.deliveryCount > 1) count.redeliveries();
    const labels = { partition };
    const started = performance.now();
    let converted = options.convert(m.data, `${m.subject}#${m.seq}`);
    const convertedAt = performance.now();
    count.convertSeconds((convertedAt - started) / 1000);
    const source = (h: ReturnType<typeof headers>, id: string | undefined) => {
      h.set(HEADER.sourceSubject, m.subject);
      h.set(HEADER.sourceSeq, String(m.seq));
      if (id !== undefined) h.set(HEADER.sourceId, id);
    };
    try {
      if (options.deliver && converted.outputs.length > 0) {
        // Into a FHIR server: an output the server refused is not published; the whole message becomes the
        // dead letter, with the server's issues after the conversion's (a resend is harmless: PUTs).
        const kept: FeedOutput[] = [];
        const refused: FeedIssue[] = [];
        for (const o of converted.outputs) {
          const issues = await options.deliver(o.payload, `${m.subject}#${m.seq}`);
          if (issues.length > 0) refused.push(...o.issues, ...issues);
          else kept.push(o);
        }
        if (refused.length > 0) {
          const sourceId = converted.dead?.sourceId ?? converted.outputs[0]?.sourceId;
          converted = {
            outputs: kept,
            dead: { sourceId, issues: [...(converted.dead?.issues ?? []), ...refused] },
          };
        }
      }
      for (const [i, o] of options.out === undefined ? [] : converted.outputs.entries()) {
        const h = headers();
        source(h, o.sourceId);
        const told = issueHeaders(h, o.issues, nats.maxBody - Buffer.byteLength(o.payload));
        count.warnings(told.warnings);
        count.errors(told.errors);
        // Keyed by the input's place, so that a redelivered message is stored once.
        const msgID = `${inStream}.${m.seq}.${i}`;
        await publishStored(nats, `${options.out}.${partition}`, o.payload, { msgID, headers: h });
      }
      if (converted.outputs.length > 0) count.messages(1, labels);
      const dead = converted.dead;
      if (dead) {
        const h = headers();
        source(h, dead.sourceId);
        const letter = {
          source: { subject: m.subject, seq: m.seq, id: dead.sourceId ?? null },
          issues: dead.issues,
          message: dead.text ?? new TextDecoder().decode(m.data),
        };
        await publishStored(nats, `${options.deadLetter}.${partition}`, stringifyJson(letter), {
          msgID: `${inStream}.${m.seq}`,
          headers: h,
        });
        count.dead(1, labels);
      }
    } catch (err) {
      count.failures();
      log(
        `cannot store the output of ${m.subject} #${m.seq}: ${(err as Error).message}; it will be redelivered`,
      );
      m.nak(1000);
      return;
    }
    count.storeSeconds((performance.now() - convertedAt) / 1000);
    m.ack();
  };

  const follow = async (partition: string): Promise<void> => {
    const consumerName = partitionConsumer(options.name, partition);
    await ensurePartitionConsumer(
      nats,
      inStream,
      consumerName,
      `${options.in}.${partition}`,
      options.ackWait,
    );
    const consumer: Consumer = await nats.js.consumers.get(inStream, consumerName);
    const messages = await consumer.consume({ max_messages: 1, expires: PULL_EXPIRES_MS });
    const done = (async () => {
      for await (const m of messages) {
        // Given back: with one message out per partition, the next process takes it up in order.
        if (stopping()) m.nak();
        else await handle(partition, m);
      }
    })().catch((err: unknown) => {
      log(`partition ${partition} stopped: ${(err as Error).message}`);
    });
    partitions.set(partition, { name: consumerName, messages, done });
    gauge.partitions(partitions.size);
  };

  const discover = async () => {
    for (const p of await listPartitions(nats, inStream, options.in)) {
      if (!partitions.has(p) && !stopping()) await follow(p);
    }
  };

  let wake: (() => void) | undefined;
  const offSignals = onStopSignal((name) => {
    if (stopping()) return false;
    log(`${name}: finishing the messages in hand, then stopping`);
    state = "stopping";
    for (const p of partitions.values()) p.messages.stop();
    wake?.();
    return true;
  });

  try {
    inStream = await ensureFeedStream(nats, options.in, 7);
    if (options.out !== undefined) await ensureFeedStream(nats, options.out, 7);
    await ensureFeedStream(nats, options.deadLetter, 30);
    void (async () => {
      for await (const s of nats.nc.status()) {
        if (s.type === "disconnect" && state === "ok") state = "disconnected";
        if (s.type === "reconnect" && state === "disconnected") state = "ok";
      }
    })();
    if (options.healthPort !== undefined) {
      health = await startHealth(options.healthPort, {
        status: () => state,
        details: () => ({ name: options.name, partitions: partitions.size, ...metrics.toJSON() }),
        metrics,
        refresh: async () => {
          for (const [p, { name }] of partitions) {
            gauge.lag((await nats.jsm.consumers.info(inStream, name)).num_pending, { partition: p });
          }
        },
      });
    }
    await discover();
    log(
      `${options.name}: ${options.in}.> -> ${[options.out && `${options.out}.<partition>`, options.deliver && "the FHIR server"].filter(Boolean).join(" and ")}, dead letters to ${options.deadLetter}.<partition>` +
        (health ? `; health on ${health.url}` : ""),
    );
    while (!stopping()) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, options.discoverMs).unref();
      });
      if (!stopping())
        await discover().catch((err: unknown) => log(`cannot list partitions: ${(err as Error).message}`));
    }
    await Promise.all([...partitions.values()].map((p) => p.done));
    log("stopped");
    return 0;
  } finally {
    offSignals();
    await health?.close();
    await closeNats(nats);
  }
}
