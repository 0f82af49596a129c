// Streams and consumers of live feeds: a feed subject `S` is partitioned as `S.<partition>` (one partition
// per sender), held by the stream that already captures `S.>` or by one created for it, and read through
// one durable consumer per partition that has at most one message out at a time, which keeps its order.
import { AckPolicy, DeliverPolicy, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { AppError } from "../errors.js";
import { isNotFound, type Nats, natsFailure } from "./jetstream.js";
import { sha256 } from "./run-record.js";

const DAY_NS = 24 * 3600 * 1e9;

/** `hl7.in` -> `CROSSMAP_HL7_IN`, the stream created for a feed subject that no stream captures yet. */
export function streamNameFor(subject: string): string {
  return `CROSSMAP_${subject.replace(/[^A-Za-z0-9]/g, "_").toUpperCase()}`;
}

/** A feed subject must be a plain subject (no wildcards); its partitions are the tokens after it. */
export function checkFeedSubject(flag: string, subject: string): void {
  if (!/^[^\s.*>]+(\.[^\s.*>]+)*$/.test(subject)) {
    throw new AppError(
      400,
      "usage",
      `${flag} must be a subject without wildcards, like hl7.in; got "${subject}"`,
    );
  }
}

/** The stream holding `subject.>`: the one that captures it, or a new one with our defaults. */
export async function ensureFeedStream(nats: Nats, subject: string, maxAgeDays: number): Promise<string> {
  const wildcard = `${subject}.>`;
  try {
    return await nats.jsm.streams.find(wildcard);
  } catch {
    // No stream captures it yet (the client reports that as a plain error).
  }
  const name = streamNameFor(subject);
  const clustered = nats.nc.info?.cluster !== undefined;
  const config = {
    name,
    subjects: [wildcard],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: maxAgeDays * DAY_NS,
    duplicate_window: 120e9,
  };
  try {
    await nats.jsm.streams.add({ ...config, num_replicas: clustered ? 3 : 1 });
  } catch (err) {
    if (!clustered) throw natsFailure(`cannot create stream ${name} for ${wildcard}`, err);
    await nats.jsm.streams.add({ ...config, num_replicas: 1 }).catch((e: unknown) => {
      throw natsFailure(`cannot create stream ${name} for ${wildcard}`, e);
    });
  }
  return name;
}

/** The durable consumer of one partition: `<feed name>_<partition>`, hashed when it would be too long. */
export function partitionConsumer(feed: string, partition: string): string {
  const plain = `${feed}_${partition.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  return plain.length <= 64 ? plain : `${feed.slice(0, 40)}_${sha256(partition).slice(0, 20)}`;
}

/** The partitions that hold messages now: the subjects under `subject.` in the stream. */
export async function listPartitions(nats: Nats, stream: string, subject: string): Promise<string[]> {
  const info = await nats.jsm.streams.info(stream, { subjects_filter: `${subject}.>` });
  return Object.keys(info.state.subjects ?? {})
    .map((s) => s.slice(subject.length + 1))
    .sort();
}

export async function ensurePartitionConsumer(
  nats: Nats,
  stream: string,
  name: string,
  filter: string,
  ackWaitS: number,
): Promise<void> {
  try {
    await nats.jsm.consumers.info(stream, name);
    return;
  } catch (err) {
    if (!isNotFound(err)) throw natsFailure(`cannot read consumer ${name}`, err);
  }
  await nats.jsm.consumers
    .add(stream, {
      durable_name: name,
      filter_subject: filter,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      // One message out at a time: the next is not delivered before this one is acked, even to another
      // process, and an unacked one is redelivered first. That is what keeps a sender's order.
      max_ack_pending: 1,
      ack_wait: ackWaitS * 1e9,
      max_deliver: -1,
    })
    .catch((err: unknown) => {
      throw natsFailure(`cannot create consumer ${name}`, err);
    });
}
