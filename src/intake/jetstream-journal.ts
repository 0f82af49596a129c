// The journal on NATS JetStream (`--nats URL`): each message is published to a stream of its own (file
// storage, replicated in a cluster) and its answer leaves once the server has stored it. The resend key is
// the message id, so the stream's duplicate window recognises resends and gives back the first copy's
// sequence, whose stored answer is sent again. What was converted is recorded beside the output in a
// small LMDB store in --journal DIR (a watermark and the sequences converted above it), committed with the
// output state as the LMDB journal does.
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { headers as natsHeaders } from "@nats-io/transport-node";
import { type Database, open, type RootDatabase } from "lmdb";
import { AppError } from "../errors.js";
import {
  closeNats,
  connectNats,
  isNotFound,
  type Nats,
  natsFailure,
  publishStored,
} from "../scale/jetstream.js";
import type { Journal, JournalEntry, KeepResult, OutputState } from "./journal.js";
import type { Durability } from "./lmdb-journal.js";

export interface JetStreamJournalOptions {
  url: string;
  /** The stream (created when missing) and the one subject it holds. */
  stream: string;
  subject: string;
  /** The stream's duplicate window when it is created (ms); 0: resends are not recognised. */
  windowMs: number;
  /** How long the stream keeps messages when it is created (ms). */
  maxAgeMs: number;
  /** Where the conversion progress is kept. */
  progressDir: string;
  durability: Durability;
}

const H = {
  at: "Crossmap-Received",
  keys: "Crossmap-Order-Keys",
  sender: "Crossmap-Sender",
  controlId: "Crossmap-Control-Id",
  answer: "Crossmap-Answer",
} as const;

export class JetStreamJournal implements Journal {
  readonly kind = "jetstream";
  readonly identity: string;
  private readonly root: RootDatabase;
  private readonly done: Database<true, number>;
  private readonly state: Database<unknown, string>;
  /** Every sequence at or below it is converted. */
  private watermark: number;
  /** Kept and not converted: recovered at start, then added as messages are kept. */
  private readonly open = new Set<number>();
  private highest: number;

  private constructor(
    private readonly nats: Nats,
    private readonly o: JetStreamJournalOptions,
  ) {
    try {
      mkdirSync(o.progressDir, { recursive: true });
      this.root = open({ path: o.progressDir, maxDbs: 4 });
    } catch (err) {
      throw new AppError(
        400,
        "usage",
        `--journal ${o.progressDir}: cannot open it: ${(err as Error).message}`,
      );
    }
    this.done = this.root.openDB<true, number>({ name: "converted" });
    this.state = this.root.openDB<unknown, string>({ name: "state" });
    this.identity = o.stream;
    this.watermark = (this.state.get("watermark") as number | undefined) ?? 0;
    this.highest = this.watermark;
  }

  static async open(o: JetStreamJournalOptions): Promise<JetStreamJournal> {
    const nats = await connectNats(o.url, "crossmap listen");
    try {
      await ensureStream(nats, o);
      return new JetStreamJournal(nats, o);
    } catch (err) {
      await closeNats(nats);
      throw err;
    }
  }

  /**
   * The resend key is the message id (its hash), which the stream checks as it stores the message; the key
   * an earlier listener made of the message (journal.ts `formerKey`) is not looked up: a message carries one
   * id, and the stream checks an id only by storing a message under it.
   */
  async keep(entry: Omit<JournalEntry, "id">, resendKey: string, answer: Buffer): Promise<KeepResult> {
    const h = natsHeaders();
    h.set(H.at, String(entry.at));
    h.set(H.keys, JSON.stringify(entry.keys));
    h.set(H.sender, entry.sender);
    h.set(H.controlId, entry.controlId);
    h.set(H.answer, answer.toString("base64"));
    const msgID = this.o.windowMs > 0 ? createHash("sha256").update(resendKey).digest("hex") : undefined;
    const ack = await publishStored(this.nats, this.o.subject, entry.bytes, {
      headers: h,
      ...(msgID ? { msgID } : {}),
    });
    if (ack.duplicate) {
      const first = await this.nats.jsm.streams.getMessage(this.o.stream, { seq: ack.seq });
      // Gone from the stream (its limits): the resend is still not kept twice, but has no answer to repeat.
      const answer = first ? Buffer.from(first.header.get(H.answer), "base64") : Buffer.alloc(0);
      return { kind: "duplicate", id: ack.seq, answer };
    }
    this.open.add(ack.seq);
    if (ack.seq > this.highest) this.highest = ack.seq;
    return { kind: "kept", id: ack.seq };
  }

  async *unconverted(): AsyncIterable<JournalEntry> {
    const info = await this.nats.jsm.streams.info(this.o.stream);
    const last = info.state.last_seq;
    for (let seq = Math.max(this.watermark + 1, info.state.first_seq); seq <= last; seq++) {
      if (this.done.get(seq)) continue;
      let m: Awaited<ReturnType<Nats["jsm"]["streams"]["getMessage"]>>;
      try {
        m = await this.nats.jsm.streams.getMessage(this.o.stream, { seq });
      } catch (err) {
        throw natsFailure(`cannot read ${this.o.stream} #${seq}`, err);
      }
      // Deleted from the stream (by its limits or by hand): nothing to convert there.
      if (m === null) continue;
      this.open.add(seq);
      this.highest = Math.max(this.highest, seq);
      yield {
        id: seq,
        at: Number(m.header.get(H.at)),
        bytes: Buffer.from(m.data),
        keys: JSON.parse(m.header.get(H.keys) || "[]") as string[],
        sender: m.header.get(H.sender),
        controlId: m.header.get(H.controlId),
      };
    }
  }

  async converted(ids: readonly number[], state: OutputState): Promise<void> {
    for (const id of ids) this.open.delete(id);
    let lowest = this.highest + 1;
    for (const id of this.open) if (id < lowest) lowest = id;
    const watermark = lowest - 1;
    const below = this.watermark;
    const committed = this.root.transaction(() => {
      for (const id of ids) if (id > watermark) this.done.putSync(id, true);
      for (const { key } of this.done.getRange({ end: watermark + 1 })) this.done.removeSync(key);
      this.state.putSync("watermark", watermark);
      this.state.putSync("output", state);
    });
    await committed;
    if (this.o.durability === "flush") await this.root.flushed;
    this.watermark = Math.max(below, watermark);
  }

  outputState(): OutputState | undefined {
    return this.state.get("output") as OutputState | undefined;
  }

  pendingCount(): number {
    return this.open.size;
  }

  /** The stream's duplicate window forgets resend keys by itself. */
  async prune(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {
    await closeNats(this.nats);
    await this.root.close();
  }
}

async function ensureStream(nats: Nats, o: JetStreamJournalOptions): Promise<void> {
  try {
    const info = await nats.jsm.streams.info(o.stream);
    if (!info.config.subjects?.includes(o.subject)) {
      throw new AppError(
        400,
        "usage",
        `stream ${o.stream} does not hold subject ${o.subject} (it holds ${(info.config.subjects ?? []).join(", ")})`,
      );
    }
    return;
  } catch (err) {
    if (err instanceof AppError) throw err;
    if (!isNotFound(err)) throw natsFailure(`cannot read stream ${o.stream}`, err);
  }
  const clustered = nats.nc.info?.cluster !== undefined;
  const config = {
    name: o.stream,
    subjects: [o.subject],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: o.maxAgeMs * 1e6,
    // The server needs a window; with --dedup-window 0 no message id is sent, so it never applies.
    duplicate_window: Math.max(1000, Math.min(o.windowMs, o.maxAgeMs || o.windowMs)) * 1e6,
  };
  try {
    await nats.jsm.streams.add({ ...config, num_replicas: clustered ? 3 : 1 });
  } catch (err) {
    if (!clustered) throw natsFailure(`cannot create stream ${o.stream}`, err);
    await nats.jsm.streams.add({ ...config, num_replicas: 1 }).catch((e: unknown) => {
      throw natsFailure(`cannot create stream ${o.stream}`, e);
    });
  }
}
