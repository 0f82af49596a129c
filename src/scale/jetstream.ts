// Connecting to NATS and making sure the streams exist: what every crossmap process on NATS does first.
// A stream that already exists is used as it is, so an operator's own settings (replicas, limits) win.
import {
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from "@nats-io/jetstream";
import { connect, type MsgHdrs, type NatsConnection, TimeoutError } from "@nats-io/transport-node";
import { AppError } from "../errors.js";
import { RESULT_STREAM, RUN_STREAM, WORK_STREAM } from "./names.js";

export interface Nats {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** The largest message the server takes (its max_payload), less room for our headers. */
  maxBody: number;
  url: string;
}

const HEADER_ROOM = 4096;
/**
 * JetStream requests (publish acks, stream API) wait this long. A coordinator that cuts batches in a tight
 * loop, or any process on a saturated machine, may not read an ack that arrived for seconds: the client's
 * default of 5 s then reports timeouts for messages that were stored (seen on 2 busy cores).
 */
const REQUEST_TIMEOUT_MS = 30_000;
const DAY_NS = 24 * 3600 * 1e9;

/**
 * For `watch` connections (the coordinator's): client pings every 5 s, so that a server that went away
 * without closing the connection (a network cut, a frozen host) is noticed after 3 unanswered ones, within
 * ~20 s instead of the client's default ~4 min.
 */
const WATCHED_PINGS = { pingInterval: 5000, maxPingOut: 3 };

export async function connectNats(url: string, name: string, watch = false): Promise<Nats> {
  let nc: NatsConnection;
  try {
    // Long-lived processes ride out a server restart; the first connection must work, though.
    nc = await connect({
      servers: url,
      name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1000,
      ...(watch ? WATCHED_PINGS : {}),
    });
  } catch (err) {
    throw new AppError(
      400,
      "nats_unreachable",
      `cannot connect to NATS at ${url}: ${(err as Error).message}`,
    );
  }
  let jsm: JetStreamManager;
  try {
    jsm = await jetstreamManager(nc, { timeout: REQUEST_TIMEOUT_MS });
  } catch (err) {
    await nc.close().catch(() => {});
    throw new AppError(
      400,
      "nats_no_jetstream",
      `NATS at ${url} has no JetStream (${(err as Error).message}); start nats-server with -js`,
    );
  }
  const js = jetstream(nc, { timeout: REQUEST_TIMEOUT_MS });
  return { nc, js, jsm, maxBody: nc.info!.max_payload - HEADER_ROOM, url };
}

export function isNotFound(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamNotFound || err.code === JetStreamApiCodes.ConsumerNotFound)
  );
}

/** The streams of bulk runs, with their documented defaults (docs/scale-out.md). */
/**
 * How long each pull request lasts (ms), for every long-lived `consume()`. It also bounds how long a consumer
 * waits after the server restarts: the client re-checks the consumer on reconnect and, while JetStream is
 * still recovering, backs off by up to this long (nats.js's default, 30 s, left workers idle for up to half
 * a minute after every restart). An idle consumer pays one small pull request per 5 s.
 */
export const PULL_EXPIRES_MS = 5_000;

export const BULK_STREAMS: Record<string, Partial<StreamConfig>> = {
  [WORK_STREAM]: {
    subjects: ["crossmap.work.>"],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    duplicate_window: 120e9,
  },
  [RESULT_STREAM]: {
    subjects: ["crossmap.result.>"],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: 7 * DAY_NS,
    duplicate_window: 120e9,
    // A resume reads stored results one by one: a direct get answers with the payload as it is.
    allow_direct: true,
  },
  [RUN_STREAM]: {
    subjects: ["crossmap.run.>"],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_msgs_per_subject: 1,
    max_age: 30 * DAY_NS,
  },
};

/** Creates each stream that does not exist yet; three replicas when the server is part of a cluster. */
export async function ensureStreams(
  nats: Nats,
  streams: Record<string, Partial<StreamConfig>>,
): Promise<void> {
  for (const [name, config] of Object.entries(streams)) {
    try {
      await nats.jsm.streams.info(name);
      continue;
    } catch (err) {
      if (!isNotFound(err)) throw natsFailure(`cannot read stream ${name}`, err);
    }
    const clustered = nats.nc.info?.cluster !== undefined;
    try {
      await nats.jsm.streams.add({ ...config, name, num_replicas: clustered ? 3 : 1 });
    } catch (err) {
      // A cluster of fewer than three JetStream servers cannot place three replicas.
      if (!clustered) throw natsFailure(`cannot create stream ${name}`, err);
      await nats.jsm.streams.add({ ...config, name, num_replicas: 1 }).catch((e: unknown) => {
        throw natsFailure(`cannot create stream ${name}`, e);
      });
    }
  }
}

export function natsFailure(what: string, err: unknown): AppError {
  return new AppError(503, "nats_error", `${what}: ${(err as Error).message ?? String(err)}`);
}

/**
 * Publishes and waits for the server to store the message, trying again after a timeout when it has a
 * message id, which makes a repeat harmless (the stream drops it as a duplicate within its window).
 */
export async function publishStored(
  nats: Nats,
  subject: string,
  payload: Uint8Array | string,
  options: { msgID?: string; headers?: MsgHdrs },
): Promise<{ seq: number; duplicate: boolean }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await nats.js.publish(subject, payload, options);
    } catch (err) {
      // Without a message id a second try could store the message twice.
      if (!(err instanceof TimeoutError) || options.msgID === undefined || attempt === 3) throw err;
    }
  }
}

/**
 * Flushes what is still to be sent and closes the connection; when the server cannot be reached (drain
 * would wait for a reconnect that may never come), gives up after `ms` and closes anyway.
 */
export async function closeNats(nats: Nats, ms = 5000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([nats.nc.drain().catch(() => {}), late]);
  clearTimeout(timer);
  if (!nats.nc.isClosed()) await nats.nc.close().catch(() => {});
}
